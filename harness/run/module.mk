# harness/run: see docs/architecture.md
harness_src += $(wildcard harness/run/*.c)
