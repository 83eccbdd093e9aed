# benchmarks/stemdl: the `stemdl` program and the FC-DenseNet (model/)
STEMDL_MAIN := benchmarks/stemdl/main.c
STEMDL_SRC  += $(filter-out $(STEMDL_MAIN),$(wildcard benchmarks/stemdl/*.c)) \
               $(wildcard benchmarks/stemdl/model/*.c)
