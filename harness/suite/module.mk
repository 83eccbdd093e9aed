# harness/suite: see docs/architecture.md
HARN_SRC += $(wildcard harness/suite/*.c)
