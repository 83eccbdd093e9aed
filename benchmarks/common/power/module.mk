# benchmarks/common/power: the node's energy and power counters (docs/energy.md),
# MPI-free, part of common
common_src += $(wildcard benchmarks/common/power/*.c)
