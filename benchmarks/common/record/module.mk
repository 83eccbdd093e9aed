# benchmarks/common/record: the result record (docs/record.md), part of common
common_src += $(wildcard benchmarks/common/record/*.c)
