# benchmarks/train: the training runtime (loop, counted kernels, gradient
# engine, backends) and its kernel sets (kernels/ref, kernels/fast, kernels/cuda)
TRAIN_SRC += $(wildcard benchmarks/train/*.c benchmarks/train/gsync/*.c \
               benchmarks/train/kernels/*.c benchmarks/train/kernels/*/*.c)
TRAIN_CU  += $(wildcard benchmarks/train/kernels/cuda/*.cu)
