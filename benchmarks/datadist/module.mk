# benchmarks/datadist: the `datadist` program, a dataset file delivered to
# every rank by reader ranks or read by each (docs/ensembles.md)
LIBRARIES += datadist
datadist_src += $(filter-out benchmarks/datadist/main.c,$(wildcard benchmarks/datadist/*.c))

PROGRAMS        += datadist
datadist_main   := benchmarks/datadist/main.c
datadist_libs   := datadist comm common
datadist_ldlibs  = $(MPI_LDLIBS)
