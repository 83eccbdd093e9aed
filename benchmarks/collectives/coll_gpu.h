/* coll_gpu: the CUDA runtime and NCCL headers, included from C.
 *
 * Their headers trip this project's warnings (-Wundef on __cplusplus,
 * -Wstrict-prototypes on ncclGroupStart()), which are switched off for the
 * headers alone.  Only included where EXADL_GPU is 1. */
#ifndef EXADL_COLL_GPU_H
#define EXADL_COLL_GPU_H

#if EXADL_GPU
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wundef"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cuda_runtime.h>
#include <nccl.h>
#pragma GCC diagnostic pop
#endif

#endif
