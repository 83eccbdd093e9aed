/* coll_gpu.cu: the collectives' GPU module, libexadl_coll_gpu.so: the CUDA
 * runtime's and NCCL's functions that the program calls, in the one table it
 * exports (coll_gpu.h).  Host code only; built by nvcc like the other GPU
 * modules, and linked with the CUDA runtime and NCCL. */
#define COLL_GPU_MODULE 1
#include "benchmarks/collectives/coll_gpu.h"

extern "C" {
extern const coll_gpu_api exadl_coll_gpu;
__attribute__((visibility("default"))) const coll_gpu_api exadl_coll_gpu = {
    static_cast<cudaError_t (*)(void **, size_t)>(cudaMalloc),
#define COLL_GPU_INIT(f) f,
    COLL_GPU_CALLS(COLL_GPU_INIT)
#undef COLL_GPU_INIT
};
}
