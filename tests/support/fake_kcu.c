/* fake_kcu: a stand-in for the CUDA module (benchmarks/train/kernels/cuda/
 * kern_cuda.h), so that tests without a GPU run stemdl's --backend cuda
 * path: module loading, the device checks, the record, the gradient
 * engine's device transport.  stemdl opens it through EXADL_CUDA_MODULE.
 *
 *   EXADL_FAKE_GPUS=N     the node has N GPUs (default 1); CUDA_VISIBLE_DEVICES
 *                         shows a subset as CUDA does (ordinals, renumbered
 *                         from 0, up to the first one that is not a GPU)
 *   EXADL_FAKE_CUDA_ERROR=1   the device count fails as with a driver older
 *                         than the runtime (-1: not "no GPU")
 *   EXADL_FAKE_WAIT_FAIL=R    rank R's transport wait fails, as when NCCL
 *                         reports a dead peer
 *   EXADL_FAKE_CHECK_FAIL=N   the N-th convolution call of the process
 *                         (conv_fwd or conv3d_fwd, counted from 1) fails
 *                         through check_fail, as the real module's CK_DNN
 *                         does on a cuDNN error (tests/it/gpu_check_abort.sh)
 *
 * Each GPU's UUID is "GPU-fake-<physical ordinal>".  The kernels are the
 * reference set in host memory (fp32 only); "NCCL" is MPI_Allreduce on a
 * communicator of its own; device times are host times, right here because
 * the reference kernels finish before they return. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchmarks/common/check.h"
#include "benchmarks/train/kernels/cuda/kern_cuda.h"
#include "benchmarks/train/kernels/kern.h"

typedef struct {
    char precision[8];
    MPI_Comm comm;
    double t0;
    int nslots, ncalls, cap;
    int64_t fusion_elems; /* gs_prepare's bound: a fused call above it aborts, as the real module refuses it */
    double *ready, *start, *end;
} fake_t;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The visible GPUs' physical ordinals; their count. */
static int visible(int phys[64])
{
    const char *g = getenv("EXADL_FAKE_GPUS");
    int total = g && *g ? atoi(g) : 1, n = 0;
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    if (!cvd) {
        for (n = 0; n < total && n < 64; n++) phys[n] = n;
        return n;
    }
    for (const char *p = cvd; *p && n < 64;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v >= total || (*end && *end != ',')) break;
        phys[n++] = (int)v;
        p = *end ? end + 1 : end;
    }
    return n;
}

static int device_count(char *why, size_t len)
{
    if (getenv("EXADL_FAKE_CUDA_ERROR")) {
        snprintf(why, len, "cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime "
                           "version (error 35; fake)");
        return -1;
    }
    int phys[64], n = visible(phys);
    if (n == 0) snprintf(why, len, "cudaGetDeviceCount: no CUDA-capable device is detected (fake)");
    return n;
}

static void device_describe(int device, kcu_device_info *d)
{
    int phys[64], n = visible(phys);
    memset(d, 0, sizeof *d);
    snprintf(d->model, sizeof d->model, "ExaDL fake GPU (tests/support/fake_kcu.c)");
    d->cc_major = 9;
    d->memory_bytes = 1LL << 30;
    d->sm_count = 1;
    snprintf(d->driver, sizeof d->driver, "fake");
    snprintf(d->cuda_runtime, sizeof d->cuda_runtime, "fake");
    snprintf(d->cuda_driver, sizeof d->cuda_driver, "fake");
    snprintf(d->cudnn, sizeof d->cudnn, "fake");
    snprintf(d->cublas, sizeof d->cublas, "fake");
    snprintf(d->nccl, sizeof d->nccl, "fake");
    snprintf(d->uuid, sizeof d->uuid, "GPU-fake-%d", device >= 0 && device < n ? phys[device] : -1);
}

static void *create(const kcu_opts *o, char *err, size_t errlen)
{
    if (strcmp(o->precision, "fp32") != 0) {
        snprintf(err, errlen, "the fake CUDA module computes fp32 only, not %s", o->precision);
        return NULL;
    }
    fake_t *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(f->precision, sizeof f->precision, "%s", o->precision);
    f->comm = MPI_COMM_NULL;
    return f;
}

/* EXADL_FAKE_CHECK_FAIL: the convolutions counted, the chosen one fails. */
static kern_ops fake_ops;
static long conv_calls;

static void conv_call_counted(void)
{
    const char *v = getenv("EXADL_FAKE_CHECK_FAIL");
    if (v && *v && ++conv_calls == atol(v))
        check_fail("cudnnConvolutionForward(C->dnn, ...)", __FILE__, __LINE__,
                   "CUDNN_STATUS_EXECUTION_FAILED (fake: EXADL_FAKE_CHECK_FAIL=%s)", v);
}

static void conv_fwd_counted(void *ctx, const tview *x, const void *w, int k, const tview *y)
{
    conv_call_counted();
    kern_ref_ops()->conv_fwd(ctx, x, w, k, y);
}

static void conv3d_fwd_counted(void *ctx, const t3view *x, const void *w, int k, const t3view *y)
{
    conv_call_counted();
    kern_ref_ops()->conv3d_fwd(ctx, x, w, k, y);
}

static const kern_ops *ops(void *ctx)
{
    (void)ctx;
    if (!fake_ops.conv_fwd) {
        fake_ops = *kern_ref_ops();
        fake_ops.conv_fwd = conv_fwd_counted;
        fake_ops.conv3d_fwd = conv3d_fwd_counted;
    }
    return &fake_ops;
}

static void release(void *ctx)
{
    fake_t *f = ctx;
    if (!f) return;
    if (f->comm != MPI_COMM_NULL) MPI_Comm_free(&f->comm);
    free(f->ready);
    free(f->start);
    free(f->end);
    free(f);
}

static double gemm_peak(void *ctx, const char *dtype, int size, int warmup, int reps)
{
    (void)ctx, (void)dtype, (void)size, (void)warmup, (void)reps;
    return 0;
}

static void nccl_unique_id(char id[KCU_NCCL_ID_BYTES]) { memset(id, 0, KCU_NCCL_ID_BYTES); }

static void nccl_init(void *ctx, const char id[KCU_NCCL_ID_BYTES], int nranks, int rank)
{
    (void)id, (void)nranks, (void)rank;
    fake_t *f = ctx;
    if (MPI_Comm_dup(MPI_COMM_WORLD, &f->comm) != MPI_SUCCESS) abort();
}

static void gs_prepare(void *ctx, int nslots, int64_t fusion_elems)
{
    fake_t *f = ctx;
    f->nslots = nslots;
    f->fusion_elems = fusion_elems;
    f->ready = realloc(f->ready, (size_t)nslots * sizeof *f->ready);
    if (!f->ready) abort();
}

static void gs_begin(void *ctx)
{
    fake_t *f = ctx;
    f->t0 = now_s();
    f->ncalls = 0;
    for (int i = 0; i < f->nslots; i++) f->ready[i] = -1;
}

static void gs_mark(void *ctx, int slot)
{
    fake_t *f = ctx;
    if (slot >= 0 && slot < f->nslots) f->ready[slot] = now_s() - f->t0;
}

static void gs_thread_init(void *ctx) { (void)ctx; }

static void gs_allreduce(void *ctx, float *const *bufs, const int64_t *counts, const int *slots, int n)
{
    (void)slots;
    fake_t *f = ctx;
    if (f->ncalls == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 64;
        f->start = realloc(f->start, (size_t)f->cap * sizeof *f->start);
        f->end = realloc(f->end, (size_t)f->cap * sizeof *f->end);
        if (!f->start || !f->end) abort();
    }
    f->start[f->ncalls] = now_s() - f->t0;
    int64_t total = 0;
    for (int i = 0; i < n; i++) total += counts[i];
    if (n > 1 && total > f->fusion_elems) {
        fprintf(stderr, "fake NCCL: a fused reduction of %lld floats, above the %lld gs_prepare sized\n",
                (long long)total, (long long)f->fusion_elems);
        abort();
    }
    for (int i = 0; i < n; i++)
        if (MPI_Allreduce(MPI_IN_PLACE, bufs[i], (int)counts[i], MPI_FLOAT, MPI_SUM, f->comm) != MPI_SUCCESS)
            abort();
    f->end[f->ncalls] = now_s() - f->t0;
    f->ncalls++;
}

static int gs_wait(void *ctx, double timeout_s, char *err, size_t errlen)
{
    (void)ctx, (void)timeout_s;
    const char *fail = getenv("EXADL_FAKE_WAIT_FAIL");
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (fail && atoi(fail) == rank) {
        snprintf(err, errlen, "fake NCCL: the communicator failed on rank %d (EXADL_FAKE_WAIT_FAIL)", rank);
        return -1;
    }
    return 0;
}

static int gs_settle(void *ctx, double *ready_s, int nslots, double *start_s, double *end_s, int max_calls)
{
    fake_t *f = ctx;
    for (int i = 0; i < nslots; i++)
        ready_s[i] = i < f->nslots && f->ready[i] >= 0 ? f->ready[i] : __builtin_nan("");
    for (int i = 0; i < f->ncalls && i < max_calls; i++) start_s[i] = f->start[i], end_s[i] = f->end[i];
    return f->ncalls;
}

static void get_stats(void *ctx, kcu_stats *s)
{
    fake_t *f = ctx;
    memset(s, 0, sizeof *s);
    s->precision = f->precision;
    s->algo = "heuristic";
    s->tf32_disabled = 1;
}

static int conv_choice_get(void *ctx, int i, kcu_conv_choice *c)
{
    (void)ctx, (void)i, (void)c;
    return -1;
}

extern const kcu_api exadl_kcu_api;
const kcu_api exadl_kcu_api = {
    .device_count = device_count,
    .device_describe = device_describe,
    .create = create,
    .ops = ops,
    .release = release,
    .gemm_peak = gemm_peak,
    .nccl_unique_id = nccl_unique_id,
    .nccl_init = nccl_init,
    .gs_prepare = gs_prepare,
    .gs_begin = gs_begin,
    .gs_mark = gs_mark,
    .gs_thread_init = gs_thread_init,
    .gs_allreduce = gs_allreduce,
    .gs_wait = gs_wait,
    .gs_settle = gs_settle,
    .get_stats = get_stats,
    .conv_choice_get = conv_choice_get,
};
