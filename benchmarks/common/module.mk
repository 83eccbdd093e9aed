# benchmarks/common: the base library, MPI-free (the harness links it too)
COMMON_SRC += $(wildcard benchmarks/common/*.c)
