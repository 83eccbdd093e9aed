# harness/run: see docs/architecture.md
HARN_SRC += $(wildcard harness/run/*.c)
