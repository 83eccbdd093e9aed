# benchmarks/collectives: the `collectives` program; one file per operation in
# ops/, listed once in ops/ops.def
LIBRARIES += coll
coll_src  += $(filter-out benchmarks/collectives/main.c,$(wildcard benchmarks/collectives/*.c)) \
             $(wildcard benchmarks/collectives/ops/*.c)

# the CUDA runtime and NCCL, reached through a GPU module (libexadl_coll_gpu.so)
# that device.c opens for --backend nccl and mpi-cuda (coll_gpu.h)
GPU_MODULES += coll_gpu
coll_gpu_cu += $(wildcard benchmarks/collectives/*.cu)

PROGRAMS           += collectives
collectives_main   := benchmarks/collectives/main.c
collectives_libs   := coll comm common
collectives_ldlibs  = $(MPI_LDLIBS)
