# harness/model: see docs/architecture.md
harness_src += $(wildcard harness/model/*.c)
