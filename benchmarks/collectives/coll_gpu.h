/* coll_gpu: the CUDA runtime and NCCL as the collectives call them.
 *
 * The collectives program does not link the CUDA runtime or NCCL: their
 * functions come from the GPU module libexadl_coll_gpu.so (coll_gpu.cu, a
 * table of them) that device.c opens for --backend nccl and mpi-cuda, so that
 * a GPU build starts, and runs --backend mpi, where they are missing.  The C
 * files call them by their own names: the macros at the end send each call
 * through the table.  A new CUDA or NCCL call needs its name in
 * COLL_GPU_CALLS and its macro here (the link fails until it has them).
 *
 * Their headers trip this project's warnings (-Wundef on __cplusplus,
 * -Wstrict-prototypes on ncclGroupStart()), which are switched off for the
 * headers alone.  Only included where EXADL_GPU is 1. */
#ifndef EXADL_COLL_GPU_H
#define EXADL_COLL_GPU_H

#include <stddef.h>

#if EXADL_GPU
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wundef"
#ifndef __cplusplus
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#endif
#include <cuda_runtime_api.h>
#include <nccl.h>
#pragma GCC diagnostic pop

/* cudaMalloc has C++ overloads (cuda_runtime.h): its member is written out */
#define COLL_GPU_CALLS(X)                                                                    \
    X(cudaGetDeviceCount) X(cudaDriverGetVersion) X(cudaRuntimeGetVersion)                  \
    X(cudaGetErrorString) X(cudaGetLastError) X(cudaSetDevice) X(cudaGetDeviceProperties)   \
    X(cudaFree) X(cudaMemcpyAsync) X(cudaStreamCreateWithFlags) X(cudaStreamQuery)          \
    X(cudaStreamSynchronize) X(cudaStreamDestroy)                                           \
    X(ncclGetVersion) X(ncclGetUniqueId) X(ncclCommInitRank) X(ncclCommDestroy)             \
    X(ncclCommAbort) X(ncclCommGetAsyncError) X(ncclGetErrorString) X(ncclGetLastError)     \
    X(ncclAllReduce) X(ncclAllGather) X(ncclBroadcast) X(ncclReduce) X(ncclReduceScatter)   \
    X(ncclSend) X(ncclRecv) X(ncclGroupStart) X(ncclGroupEnd)

typedef struct {
    cudaError_t (*fn_cudaMalloc)(void **ptr, size_t bytes);
#define COLL_GPU_MEMBER(f) __typeof__(&f) fn_##f;
    COLL_GPU_CALLS(COLL_GPU_MEMBER)
#undef COLL_GPU_MEMBER
} coll_gpu_api;

#define COLL_GPU_MODULE_FILE "libexadl_coll_gpu.so"
#define COLL_GPU_SYMBOL "exadl_coll_gpu"

#ifndef COLL_GPU_MODULE
/* The table; NULL until coll_gpu_load succeeded. */
extern const coll_gpu_api *coll_gpu_fn;

/* Open the module (once; from the program's ../lib, its run path).  0, or -1
 * with one line in err (the loader's reason: CUDA or NCCL missing). */
int coll_gpu_load(char *err, size_t errlen);

#define cudaMalloc (coll_gpu_fn->fn_cudaMalloc)
#define cudaGetDeviceCount (coll_gpu_fn->fn_cudaGetDeviceCount)
#define cudaDriverGetVersion (coll_gpu_fn->fn_cudaDriverGetVersion)
#define cudaRuntimeGetVersion (coll_gpu_fn->fn_cudaRuntimeGetVersion)
#define cudaGetErrorString (coll_gpu_fn->fn_cudaGetErrorString)
#define cudaGetLastError (coll_gpu_fn->fn_cudaGetLastError)
#define cudaSetDevice (coll_gpu_fn->fn_cudaSetDevice)
#define cudaGetDeviceProperties (coll_gpu_fn->fn_cudaGetDeviceProperties)
#define cudaFree (coll_gpu_fn->fn_cudaFree)
#define cudaMemcpyAsync (coll_gpu_fn->fn_cudaMemcpyAsync)
#define cudaStreamCreateWithFlags (coll_gpu_fn->fn_cudaStreamCreateWithFlags)
#define cudaStreamQuery (coll_gpu_fn->fn_cudaStreamQuery)
#define cudaStreamSynchronize (coll_gpu_fn->fn_cudaStreamSynchronize)
#define cudaStreamDestroy (coll_gpu_fn->fn_cudaStreamDestroy)
#define ncclGetVersion (coll_gpu_fn->fn_ncclGetVersion)
#define ncclGetUniqueId (coll_gpu_fn->fn_ncclGetUniqueId)
#define ncclCommInitRank (coll_gpu_fn->fn_ncclCommInitRank)
#define ncclCommDestroy (coll_gpu_fn->fn_ncclCommDestroy)
#define ncclCommAbort (coll_gpu_fn->fn_ncclCommAbort)
#define ncclCommGetAsyncError (coll_gpu_fn->fn_ncclCommGetAsyncError)
#define ncclGetErrorString (coll_gpu_fn->fn_ncclGetErrorString)
#define ncclGetLastError (coll_gpu_fn->fn_ncclGetLastError)
#define ncclAllReduce (coll_gpu_fn->fn_ncclAllReduce)
#define ncclAllGather (coll_gpu_fn->fn_ncclAllGather)
#define ncclBroadcast (coll_gpu_fn->fn_ncclBroadcast)
#define ncclReduce (coll_gpu_fn->fn_ncclReduce)
#define ncclReduceScatter (coll_gpu_fn->fn_ncclReduceScatter)
#define ncclSend (coll_gpu_fn->fn_ncclSend)
#define ncclRecv (coll_gpu_fn->fn_ncclRecv)
#define ncclGroupStart (coll_gpu_fn->fn_ncclGroupStart)
#define ncclGroupEnd (coll_gpu_fn->fn_ncclGroupEnd)
#endif
#endif

#endif
