# benchmarks/train: the training runtime behind the network interface
# (network.h): loop, optimizer, run parameters and key tables, record parts,
# counted kernels, gradient engine, backends, and its kernel sets
# (kernels/ref, kernels/fast, kernels/cuda)
LIBRARIES += train
train_src += $(wildcard benchmarks/train/*.c benchmarks/train/gsync/*.c \
               benchmarks/train/kernels/*.c benchmarks/train/kernels/*/*.c)
train_cu  += $(wildcard benchmarks/train/kernels/cuda/*.cu)
# the fast set's 3D loops share oneDNN's OpenMP threads (kern_fast_3d.c)
$(BUILD)/obj/benchmarks/train/kernels/fast/kern_fast_3d.o: CFLAGS += -fopenmp
