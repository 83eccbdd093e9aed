# harness/report: see docs/architecture.md
harness_src += $(wildcard harness/report/*.c)
