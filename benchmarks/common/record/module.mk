# benchmarks/common/record: the result record (docs/record.md)
COMMON_SRC += $(wildcard benchmarks/common/record/*.c)
