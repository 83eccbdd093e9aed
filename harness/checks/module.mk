# harness/checks: see docs/architecture.md
HARN_SRC += $(wildcard harness/checks/*.c)
