# benchmarks/common: the base library, MPI-free (the harness links it too)
LIBRARIES  += common
common_src += $(wildcard benchmarks/common/*.c)
