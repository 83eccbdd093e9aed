# benchmarks/workflow: the `workflow` program, producers running a small
# simulation and a trainer consuming their samples as they appear, through
# MPI or through files, with back-pressure (docs/workflow.md)
LIBRARIES    += workflow
workflow_src += $(filter-out benchmarks/workflow/main.c,$(wildcard benchmarks/workflow/*.c))

PROGRAMS        += workflow
workflow_main   := benchmarks/workflow/main.c
workflow_libs   := workflow train comm common
workflow_ldlibs  = $(TRAIN_LDLIBS)
