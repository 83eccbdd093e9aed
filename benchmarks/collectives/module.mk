# benchmarks/collectives: the `collectives` program; one file per operation in ops/
COLL_MAIN := benchmarks/collectives/main.c
COLL_SRC  += $(filter-out $(COLL_MAIN),$(wildcard benchmarks/collectives/*.c)) \
             $(wildcard benchmarks/collectives/ops/*.c)
COLL_CU   += $(wildcard benchmarks/collectives/*.cu)
