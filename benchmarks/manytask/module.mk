# benchmarks/manytask: the `manytask` program, many short tasks launched C at
# a time through a launcher (docs/ensembles.md); no MPI of its own
LIBRARIES += manytask
manytask_src += $(filter-out benchmarks/manytask/main.c,$(wildcard benchmarks/manytask/*.c))

PROGRAMS        += manytask
manytask_main   := benchmarks/manytask/main.c
manytask_libs   := manytask common
manytask_ldlibs  = $(HARN_LDLIBS)
