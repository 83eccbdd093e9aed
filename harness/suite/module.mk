# harness/suite: see docs/architecture.md
harness_src += $(wildcard harness/suite/*.c)
