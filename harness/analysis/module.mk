# harness/analysis: see docs/architecture.md
harness_src += $(wildcard harness/analysis/*.c)
