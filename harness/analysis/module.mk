# harness/analysis: see docs/architecture.md
HARN_SRC += $(wildcard harness/analysis/*.c)
