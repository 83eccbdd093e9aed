# harness/model: see docs/architecture.md
HARN_SRC += $(wildcard harness/model/*.c)
