# benchmarks/train: the training runtime behind the network interface
# (network.h): loop, optimizer, run parameters and key tables, record parts,
# counted kernels, gradient engine, backends, and its kernel sets
# (kernels/ref, kernels/fast, kernels/cuda)
LIBRARIES += train
train_src += $(wildcard benchmarks/train/*.c benchmarks/train/gsync/*.c \
               benchmarks/train/kernels/*.c benchmarks/train/kernels/*/*.c)

# the CUDA kernel set is a GPU module (libexadl_cuda.so) that backend.c opens
# for --backend cuda (kernels/cuda/kern_cuda.h: kcu_load)
GPU_MODULES += cuda
cuda_cu     += $(wildcard benchmarks/train/kernels/cuda/*.cu)

# the fast set's 3D loops share oneDNN's OpenMP threads (kern_fast_3d.c) and
# need the vectoriser with selects as blends (-O3 -fno-trapping-math: no
# result changes, FP exceptions are never enabled): as branches, random
# signs mispredict half the time (5-10x slower on 128^3 activations)
$(BUILD)/obj/benchmarks/train/kernels/fast/kern_fast_3d.o: CFLAGS += -O3 -fno-trapping-math
# the element-wise 2D kernels and Adam likewise (kern_fast.c): ReLU's selects
# as blends, and Adam's sqrtf as a packed square root (-fno-math-errno: sqrtf
# of a negative sets no errno, its result is unchanged).  Bit-identical to the
# scalar loops (no -ffast-math, no FMA contraction on the x86-64 baseline):
# ReLU 2-10x and Adam about 2x faster, 3-8% of a bf16 step of `small` on one
# core (docs/stemdl-cpu-kernels.md "bf16: where the step's time goes")
$(BUILD)/obj/benchmarks/train/kernels/fast/kern_fast.o: CFLAGS += -O3 -fno-trapping-math -fno-math-errno
# the fuzz build (clang, whose OpenMP runtime is not libgomp) reaches no kernel:
# its loops run on one thread there
ifneq ($(FUZZ),1)
$(BUILD)/obj/benchmarks/train/kernels/fast/kern_fast_3d.o: CFLAGS += -fopenmp
$(BUILD)/obj/benchmarks/train/kernels/fast/kern_fast.o: CFLAGS += -fopenmp
endif
