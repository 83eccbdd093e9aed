/* kern_cuda: the training runtime's CUDA kernel set (cuDNN convolutions, own kernels
 * for everything else), the NCCL gradient transport and the facts about the
 * device, behind a C interface.  Implemented in kern_cuda*.cu (the list is in
 * kern_cuda_impl.h), which form the GPU module libexadl_cuda.so, built where
 * EXADL_GPU is 1.  Programs do not link it: they open it with kcu_load when
 * --backend cuda is asked for and call it through the kcu_api table, so a GPU
 * build starts, and runs on the CPU, where CUDA, cuDNN or NCCL are missing.
 * docs/stemdl-gpu.md describes the design.
 *
 * Errors of the CUDA runtime, cuDNN, cuBLAS and NCCL are fatal (check_fail:
 * the call, file, line, rank and host); the functions that can fail for a
 * reason the user can act on (no GPU, a bad setting) return it instead. */
#ifndef EXADL_TRAIN_KERN_CUDA_H
#define EXADL_TRAIN_KERN_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "benchmarks/train/kernels/kern.h"

/* CUDA devices visible to this process.  0 means no GPU here, with the
 * reason in why: no CUDA-capable device (cudaErrorNoDevice), or no NVIDIA
 * driver at all (cudaErrorInsufficientDriver with driver version 0).  -1
 * means there is a driver but CUDA cannot start (a driver older than the
 * runtime, a broken installation): a failure, never to be taken for "no
 * GPU"; why names the error. */
int kcu_device_count(char *why, size_t len);

typedef struct {
    char model[256];
    int cc_major, cc_minor;
    long long memory_bytes;
    int sm_count;
    char driver[64];       /* the kernel driver (/proc/driver/nvidia/version), else the CUDA driver API */
    char cuda_runtime[32], cuda_driver[32], cudnn[32], cublas[32], nccl[32];
    char uuid[48];         /* "GPU-8d1c...": the physical device, whatever CUDA_VISIBLE_DEVICES says */
} kcu_device_info;

void kcu_device_describe(int device, kcu_device_info *info);

typedef struct {
    const char *precision;  /* fp32 | tf32 | bf16 | fp16 */
    int device;             /* CUDA device ordinal (the caller picks local rank % devices) */
    const char *algo;       /* cuDNN algorithm choice: find | heuristic; NULL: $EXADL_CUDNN_ALGO, else find */
    size_t workspace_limit; /* most bytes one convolution may use; 0: $EXADL_CUDNN_WS_MB, else 8 GiB */
} kcu_opts;

/* Select the device, create streams and library handles.  NULL with one line
 * in err when a setting is bad. */
void *kcu_create(const kcu_opts *o, char *err, size_t errlen);
/* The kernel table of this context (act_bytes 4 for fp32/tf32, 2 for bf16/fp16). */
const kern_ops *kcu_ops(void *ctx);
void kcu_release(void *ctx);

/* Peak probe: FLOP/s of a dense size x size x size GEMM in dtype (bf16, fp16:
 * 16-bit inputs, fp32 accumulation; tf32; fp32) with cuBLAS on random data:
 * `warmup` products, then `reps` products timed one by one with CUDA events;
 * the median. */
double kcu_gemm_peak(void *ctx, const char *dtype, int size, int warmup, int reps);

/* NCCL: rank 0 makes the id, every rank receives it (MPI_Bcast by the
 * caller), then every rank joins the communicator. */
#define KCU_NCCL_ID_BYTES 128
void kcu_nccl_unique_id(char id[KCU_NCCL_ID_BYTES]);
void kcu_nccl_init(void *ctx, const char id[KCU_NCCL_ID_BYTES], int nranks, int rank);

/* The gradient transport of gsync.h over NCCL (gsync_transport's members):
 * prepare makes one timing event per gradient slot (before the engine thread
 * starts); begin records the step's origin on the compute stream and mark a
 * slot's event there (main thread); allreduce (engine thread) queues, on the
 * communication stream, a wait for the slots' events, a start event, the
 * in-place sum over the ranks (fused through a device buffer when the buffers
 * are not end to end) and an end event, and returns without waiting; wait
 * (engine thread) polls until the step's last reduction is complete, NCCL's
 * asynchronous errors included, and aborts the communicator after timeout_s;
 * settle (main thread, after the step) reads the events: device times.
 * Without NCCL (one rank) begin, mark and settle still give the gradients'
 * device ready times. */
void kcu_gs_prepare(void *ctx, int nslots, int64_t fusion_elems);
void kcu_gs_begin(void *ctx);
void kcu_gs_mark(void *ctx, int slot);
void kcu_gs_thread_init(void *ctx);
void kcu_gs_allreduce(void *ctx, float *const *bufs, const int64_t *counts, const int *slots, int n);
int kcu_gs_wait(void *ctx, double timeout_s, char *err, size_t errlen);
int kcu_gs_settle(void *ctx, double *ready_s, int nslots, double *start_s, double *end_s, int max_calls);

typedef struct {
    const char *precision;
    const char *algo;                  /* find | heuristic */
    size_t workspace_bytes;            /* cuDNN workspace after the choices */
    size_t workspace_limit;
    int conv_problems;                 /* distinct convolution problems (shape x direction) */
    double tune_s;                     /* seconds spent choosing algorithms */
    size_t alloc_peak_bytes;           /* largest sum of this context's device allocations */
    size_t used_peak_bytes;            /* largest total - free (cudaMemGetInfo) seen at step ends */
    size_t total_bytes;                /* device memory */
    int tf32_disabled;                 /* fp32: only FMA math (cuDNN), no TF32 compute type (cuBLAS) */
    /* dynamic loss scaling (fp16 only; loss_scaling 0 elsewhere) */
    int loss_scaling;
    double scale_init, scale_final, growth_factor, backoff_factor;
    int growth_interval;
    int64_t checked_steps, skipped_steps;
} kcu_stats;

void kcu_get_stats(void *ctx, kcu_stats *s);

/* The i-th convolution problem and the algorithm chosen for it. */
typedef struct {
    char op[12];        /* fwd | bwd_data | bwd_filter (cuDNN's direction) */
    int n, xc, xh, xw;  /* cuDNN's x (the convolution's input) */
    int yc, yh, yw;     /* cuDNN's y */
    int k, stride;
    int algo;           /* cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t */
    char math[16];      /* default | tensor_op | fma */
    size_t ws_bytes;
    float time_ms;      /* measured by cudnnFind (-1 with heuristic choice) */
} kcu_conv_choice;

int kcu_conv_choice_get(void *ctx, int i, kcu_conv_choice *c); /* 0, or -1 past the end */

/* ---- the module as programs see it ----------------------------------------------- */

/* The functions above, as the module exports them (symbol KCU_API_SYMBOL). */
typedef struct {
    int (*device_count)(char *why, size_t len);
    void (*device_describe)(int device, kcu_device_info *info);
    void *(*create)(const kcu_opts *o, char *err, size_t errlen);
    const kern_ops *(*ops)(void *ctx);
    void (*release)(void *ctx);
    double (*gemm_peak)(void *ctx, const char *dtype, int size, int warmup, int reps);
    void (*nccl_unique_id)(char id[KCU_NCCL_ID_BYTES]);
    void (*nccl_init)(void *ctx, const char id[KCU_NCCL_ID_BYTES], int nranks, int rank);
    void (*gs_prepare)(void *ctx, int nslots, int64_t fusion_elems);
    void (*gs_begin)(void *ctx);
    void (*gs_mark)(void *ctx, int slot);
    void (*gs_thread_init)(void *ctx);
    void (*gs_allreduce)(void *ctx, float *const *bufs, const int64_t *counts, const int *slots, int n);
    int (*gs_wait)(void *ctx, double timeout_s, char *err, size_t errlen);
    int (*gs_settle)(void *ctx, double *ready_s, int nslots, double *start_s, double *end_s, int max_calls);
    void (*get_stats)(void *ctx, kcu_stats *s);
    int (*conv_choice_get)(void *ctx, int i, kcu_conv_choice *c);
} kcu_api;

#define KCU_API_SYMBOL "exadl_kcu_api"
#define KCU_MODULE "libexadl_cuda.so"

/* Open the CUDA module: $EXADL_CUDA_MODULE where set (a path: tests give a
 * stand-in, tests/support/fake_kcu.c), else libexadl_cuda.so from the
 * program's ../lib (its run path).  Once per process; NULL with one line in
 * err when it cannot be opened (the build has none, or a library it needs --
 * the CUDA runtime, cuDNN, cuBLAS, NCCL -- is missing: the loader's words). */
const kcu_api *kcu_load(char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
