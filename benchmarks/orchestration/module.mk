# benchmarks/orchestration: the `orchestration` program, the per-step control
# cost of Horovod-style negotiation (docs/collectives.md)
LIBRARIES += orch
orch_src  += $(filter-out benchmarks/orchestration/main.c,$(wildcard benchmarks/orchestration/*.c))

PROGRAMS             += orchestration
orchestration_main   := benchmarks/orchestration/main.c
orchestration_libs   := orch fcdensenet train comm common
orchestration_ldlibs  = $(MPI_LDLIBS)
