# benchmarks/modelpar: the `modelpar` program, a locally connected
# autoencoder with its weights sharded over the tiles of model groups
# (docs/modelparallel.md)
LIBRARIES     += modelpar
modelpar_src  += $(filter-out benchmarks/modelpar/main.c,$(wildcard benchmarks/modelpar/*.c))

PROGRAMS        += modelpar
modelpar_main   := benchmarks/modelpar/main.c
modelpar_libs   := modelpar train comm common
modelpar_ldlibs  = $(TRAIN_LDLIBS)
