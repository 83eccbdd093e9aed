# harness/report: see docs/architecture.md
HARN_SRC += $(wildcard harness/report/*.c)
