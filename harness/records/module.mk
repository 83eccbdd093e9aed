# harness/records: see docs/architecture.md
HARN_SRC += $(wildcard harness/records/*.c)
