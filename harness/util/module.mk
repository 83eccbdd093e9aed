# harness/util: see docs/architecture.md
harness_src += $(wildcard harness/util/*.c)
