# harness/checks: see docs/architecture.md
harness_src += $(wildcard harness/checks/*.c)
