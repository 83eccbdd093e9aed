# harness/records: see docs/architecture.md
harness_src += $(wildcard harness/records/*.c)
