# benchmarks/stemdl: the `stemdl` program and the FC-DenseNet (model/)
LIBRARIES  += stemdl
stemdl_src += $(filter-out benchmarks/stemdl/main.c,$(wildcard benchmarks/stemdl/*.c)) \
              $(wildcard benchmarks/stemdl/model/*.c)

PROGRAMS      += stemdl
stemdl_main   := benchmarks/stemdl/main.c
stemdl_libs   := stemdl train comm common
stemdl_ldlibs  = $(TRAIN_LDLIBS)
