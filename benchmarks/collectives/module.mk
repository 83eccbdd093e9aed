# benchmarks/collectives: the `collectives` program; one file per operation in ops/
LIBRARIES += coll
coll_src  += $(filter-out benchmarks/collectives/main.c,$(wildcard benchmarks/collectives/*.c)) \
             $(wildcard benchmarks/collectives/ops/*.c)
coll_cu   += $(wildcard benchmarks/collectives/*.cu)

PROGRAMS           += collectives
collectives_main   := benchmarks/collectives/main.c
collectives_libs   := coll orch stemdl train comm common
collectives_ldlibs  = $(MPI_LDLIBS)
