# benchmarks/skeleton: the `skeleton` program, a training step with the real
# gradient engine and MPI calls and the kernels replaced by device time, for
# mpirun and for SimGrid's smpirun (docs/simulate.md "The compute skeleton")
LIBRARIES += skel
skel_src  += $(filter-out benchmarks/skeleton/main.c,$(wildcard benchmarks/skeleton/*.c))

PROGRAMS        += skeleton
skeleton_main   := benchmarks/skeleton/main.c
skeleton_libs   := skel fcdensenet train comm common
skeleton_ldlibs  = $(TRAIN_LDLIBS)
