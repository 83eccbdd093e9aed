# benchmarks/stemdl: the `stemdl` program, the FC-DenseNet
# (benchmarks/networks/fcdensenet/) trained on the training runtime
LIBRARIES  += stemdl
stemdl_src += $(filter-out benchmarks/stemdl/main.c,$(wildcard benchmarks/stemdl/*.c))

PROGRAMS      += stemdl
stemdl_main   := benchmarks/stemdl/main.c
stemdl_libs   := stemdl fcdensenet train shard comm common
stemdl_ldlibs  = $(TRAIN_LDLIBS)
