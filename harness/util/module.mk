# harness/util: see docs/architecture.md
HARN_SRC += $(wildcard harness/util/*.c)
