# benchmarks/cosmoflow: the `cosmoflow` program and the CosmoFlow 3D CNN with
# spatial parallelism (model/); tools/ holds the CPU and GPU benchmarks and
# their PyTorch peer
LIBRARIES     += cosmoflow
cosmoflow_src += $(filter-out benchmarks/cosmoflow/main.c,$(wildcard benchmarks/cosmoflow/*.c)) \
                 $(wildcard benchmarks/cosmoflow/model/*.c)

PROGRAMS         += cosmoflow
cosmoflow_main   := benchmarks/cosmoflow/main.c
cosmoflow_libs   := cosmoflow train shard comm common
cosmoflow_ldlibs  = $(TRAIN_LDLIBS)
