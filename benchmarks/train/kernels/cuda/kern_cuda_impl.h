/* kern_cuda_impl.h: what the files of the CUDA kernel set share (kern_cuda.h,
 * docs/stemdl-gpu.md): the context, the error checks, the element types and
 * the helpers one file offers the others.  Private to these files:
 *
 *   kern_cuda.cu          the context (create, release, the kern_ops table),
 *                         the kernel timers, the end of a step, statistics
 *   kern_cuda_mem.cu      device memory and transfers, copy and zero
 *   kern_cuda_ew.cu       the kernels of this set: ReLU, bias, pooling, the
 *                         L1 loss, Adam, add, conversions, the fp16 overflow check
 *   kern_cuda_conv.cu     convolutions through cuDNN (the calls, aligned
 *                         stand-ins, sample chunks, fallback algorithms)
 *   kern_cuda_algo.cu     a convolution problem's descriptors, its algorithm
 *                         choice (cudnnFind or heuristics) and workspace size
 *   kern_cuda_device.cu   facts about the device and the peak probe (cuBLAS GEMM)
 *   kern_cuda_nccl.cu     NCCL: the communicator and gsync's gradient transport
 *   kern_cuda_lion.cu     the Lion optimizer's kernels (docs/lioncub.md)
 *   kern_cuda_3d.cu       the 3D kernels (cuBLAS dense layers, pooling, leaky
 *                         ReLU, bias, MSE, strided copies)
 *   kern_cuda_conv3d.cu   the 3D convolutions (cuDNN Nd descriptors)
 *   kern_cuda_seg.cu      the segmentation kernels' table and batch norm
 *                         through cuDNN (the dilated and grouped convolutions
 *                         are kern_cuda_conv.cu's)
 *   kern_cuda_segew.cu    the segmentation set's small kernels: weighted
 *                         cross-entropy, image pooling and its broadcast
 *
 * All work is queued on one compute stream; NCCL runs on a second stream.
 * Device code cannot be shared between these files (they are compiled without
 * relocatable device code): a kernel lives in the file that launches it. */
#ifndef EXADL_TRAIN_KERN_CUDA_IMPL_H
#define EXADL_TRAIN_KERN_CUDA_IMPL_H

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <nccl.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <vector>

extern "C" {
#include "benchmarks/common/check.h"
}
#include "benchmarks/train/kernels/cuda/kern_cuda.h"
#include "benchmarks/train/kernels/cuda/kern_cuda_policy.h"

/* ---- error checks: every library call names itself, file and line -------- */

#define CK_CUDA(call)                                                                      \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) check_fail(#call, __FILE__, __LINE__, "%s", cudaGetErrorString(e_)); \
    } while (0)
#define CK_DNN(call)                                                                       \
    do {                                                                                   \
        cudnnStatus_t e_ = (call);                                                         \
        if (e_ != CUDNN_STATUS_SUCCESS)                                                    \
            check_fail(#call, __FILE__, __LINE__, "%s", cudnnGetErrorString(e_));          \
    } while (0)
#define CK_BLAS(call)                                                                      \
    do {                                                                                   \
        cublasStatus_t e_ = (call);                                                        \
        if (e_ != CUBLAS_STATUS_SUCCESS)                                                   \
            check_fail(#call, __FILE__, __LINE__, "%s", cublasGetStatusString(e_));        \
    } while (0)
#define CK_NCCL(call)                                                                      \
    do {                                                                                   \
        ncclResult_t e_ = (call);                                                          \
        if (e_ != ncclSuccess) check_fail(#call, __FILE__, __LINE__, "%s", ncclGetErrorString(e_)); \
    } while (0)
#define CK_LAUNCH(what) CK_CUDA(cudaGetLastError())

/* ---- element types ---------------------------------------------------------- */

/* fp32 and tf32 keep activations and weights in float; bf16 and fp16 keep
 * them in 16 bits (net.c keeps fp32 master weights, fp32 Adam moments and
 * fp32 gradients; cuDNN computes a 16-bit weight gradient that is widened into
 * the fp32 gradient array). */
enum Prec { P_FP32, P_TF32, P_BF16, P_FP16 };
enum Elem { E_F32, E_BF16, E_F16 };

template <typename T> struct Cvt;
template <> struct Cvt<float> {
    static __device__ __forceinline__ float f(float x) { return x; }
    static __device__ __forceinline__ float t(float x) { return x; }
};
template <> struct Cvt<__nv_bfloat16> {
    static __device__ __forceinline__ float f(__nv_bfloat16 x) { return __bfloat162float(x); }
    static __device__ __forceinline__ __nv_bfloat16 t(float x) { return __float2bfloat16_rn(x); }
};
template <> struct Cvt<__half> {
    static __device__ __forceinline__ float f(__half x) { return __half2float(x); }
    static __device__ __forceinline__ __half t(float x) { return __float2half_rn(x); }
};
template <typename T> __device__ __forceinline__ float tof(T x) { return Cvt<T>::f(x); }
template <typename T> __device__ __forceinline__ T fromf(float x) { return Cvt<T>::t(x); }

/* N elements moved as one aligned vector (16 bytes when N = 16 / sizeof(T)). */
template <typename T, int N> struct alignas(sizeof(T) * N) Pack {
    T v[N];
};

/* A view as the kernels see it: n samples of len contiguous elements (the
 * channel window's c*h*w), ss elements apart. */
struct DV {
    char *p;
    int64_t len, ss;
    int n;
};

static inline DV dv(const tview *t)
{
    DV d;
    d.p = (char *)t->p;
    d.len = (int64_t)t->c * t->h * t->w;
    d.ss = t->sstride;
    d.n = t->n;
    return d;
}

/* ---- the context ------------------------------------------------------------ */

enum ConvOp { OP_FWD = 0, OP_BWD_DATA = 1, OP_BWD_FILTER = 2 };

struct Geo {
    int op, n, xc, xh, xw, yc, yh, yw, k, pad, stride, dil, groups;
    long long xss, yss;
    bool operator==(const Geo &o) const
    {
        return op == o.op && n == o.n && xc == o.xc && xh == o.xh && xw == o.xw && yc == o.yc &&
               yh == o.yh && yw == o.yw && k == o.k && pad == o.pad && stride == o.stride && dil == o.dil &&
               groups == o.groups &&
               xss == o.xss && yss == o.yss;
    }
};

struct Conv {
    Geo g;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    int algo;
    cudnnMathType_t math;
    size_t ws;
    float time_ms;
    /* cuDNN's ranking (Find's by time, else its heuristics'), the one in use
     * (kern_cuda_policy.h's kcu_next_algo: the next after a run-time failure) */
    std::vector<kcu_algo_cand> cands;
    std::vector<cudnnMathType_t> maths;
    std::vector<float> times;
    int cur;
};

struct Pending {
    cudaEvent_t a, b;
    double *acc, *acc2;
};

struct Ctx {
    kern_ops ops;
    Prec prec;
    Elem elem;
    size_t esz;
    cudnnDataType_t dt;
    cudnnMathType_t math_req;
    int device, sm_count;
    size_t max_pitch;          /* cudaMemcpy2D's limit on a pitch */
    int64_t dnn_max_elems;     /* most elements a cuDNN descriptor may span (kern_cuda_policy.h) */
    cudaStream_t s, cs; /* compute, communication */
    cudnnHandle_t dnn;
    cublasHandle_t blas;
    ncclComm_t nccl;
    int has_nccl;

    /* convolutions */
    std::vector<Conv *> convs;
    int find;                  /* 1: cudnnFind*Ex, 0: heuristics */
    size_t ws_cap;             /* most workspace one convolution may use */
    void *ws;
    size_t ws_bytes, ws_need;  /* allocated; largest chosen */
    void *tscratch;            /* stands in for an accumulating output while timing */
    size_t tscratch_bytes;
    int tuned_since_sync;
    double tune_s;
    void *dw16;                /* 16-bit weight gradient before widening */
    size_t dw16_bytes;
    void *al[4];               /* aligned stand-ins for operands cuDNN would get misaligned */
    size_t al_bytes[4];

    /* small buffers */
    float *stage;              /* fp32 staging for put_f32 / get_f32 */
    size_t stage_elems;
    double *d_part, *d_loss;   /* L1 partial sums and result */
    int *d_flag;               /* fp16: 1 when a gradient is inf or NaN */
    double *h_loss;            /* pinned */
    int *h_flag;               /* pinned */

    /* timers */
    std::vector<cudaEvent_t> evpool, evdone;
    std::vector<Pending> pend;

    /* gradient reduction (gsync's transport): one timing event per gradient
     * slot, made by kcu_gs_prepare before the engine thread starts, and
     * whether it was marked in this step; the step's origin; a start and an
     * end event per reduction of the step (engine thread); a device fusion
     * buffer that only the engine thread touches */
    std::vector<cudaEvent_t> gs_ev;
    std::vector<char> gs_marked;
    cudaEvent_t gs_base;
    std::vector<cudaEvent_t> gs_call_ev;  /* 2 per reduction: start, end */
    int gs_ncalls;
    float *gs_fusion;
    size_t gs_fusion_elems;

    /* memory */
    std::unordered_map<void *, size_t> allocs;
    size_t alloc_cur, alloc_peak, used_peak, total_mem;

    /* the 3D kernels' convolutions and stand-ins (kern_cuda_3d.cu) */
    struct Cuda3d *c3d;
    /* the segmentation kernels' stand-ins and scratch (kern_cuda_seg.cu) */
    struct CudaSeg *seg;

    /* fp16 dynamic loss scaling */
    double scale, scale_init, growth, backoff;
    int growth_interval, good_steps, check_pending, tf32_disabled;
    int64_t checked, skipped;
};

static inline Ctx *ctx_of(void *c) { return (Ctx *)c; }

static inline const char *prec_name(Prec p)
{
    switch (p) {
    case P_FP32: return "fp32";
    case P_TF32: return "tf32";
    case P_BF16: return "bf16";
    case P_FP16: return "fp16";
    }
    return "?";
}

static inline const char *op_name(int op)
{
    return op == OP_FWD ? "fwd" : op == OP_BWD_DATA ? "bwd_data" : "bwd_filter";
}

static inline const char *math_name(cudnnMathType_t m)
{
    switch (m) {
    case CUDNN_DEFAULT_MATH: return "default";
    case CUDNN_TENSOR_OP_MATH: return "tensor_op";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION: return "tensor_op_conv";
    case CUDNN_FMA_MATH: return "fma";
    }
    return "unknown";
}

/* The context's precision and a cuDNN math mode in kern_cuda_policy.h's
 * terms (its rules are pure C, unit-tested without a GPU). */
static inline int policy_prec(Prec p)
{
    return p == P_FP32 ? KCU_PREC_FP32 : p == P_TF32 ? KCU_PREC_TF32 : p == P_BF16 ? KCU_PREC_BF16 : KCU_PREC_FP16;
}

static inline int policy_math(cudnnMathType_t m)
{
    return m == CUDNN_TENSOR_OP_MATH                      ? KCU_MATH_TENSOR_OP
           : m == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION ? KCU_MATH_TENSOR_OP_CONVERT
           : m == CUDNN_FMA_MATH                        ? KCU_MATH_FMA
                                                        : KCU_MATH_DEFAULT;
}

/* The factor a loss gradient carries (the fp16 loss scale, else 1). */
static inline double loss_grad_scale(const Ctx *C) { return kcu_loss_grad_scale(policy_prec(C->prec), C->scale); }

static const int kThreads = 256;
static const int kPartials = 1024; /* L1 partial sums (kern_cuda_ew.cu; allocated by kcu_create) */

static inline unsigned blocks_for(const Ctx *C, int64_t work)
{
    int64_t b = (work + kThreads - 1) / kThreads;
    int64_t cap = (int64_t)C->sm_count * 16;
    if (b > cap) b = cap;
    return (unsigned)(b > 0 ? b : 1);
}

/* ---- dispatch on the element type ---------------------------------------------- */

#define DISPATCH(C, FN, ...)                                          \
    do {                                                              \
        switch ((C)->elem) {                                          \
        case E_F32: FN<float>(__VA_ARGS__); break;                    \
        case E_BF16: FN<__nv_bfloat16>(__VA_ARGS__); break;           \
        case E_F16: FN<__half>(__VA_ARGS__); break;                   \
        }                                                             \
    } while (0)

/* ---- shared helpers --------------------------------------------------------------- */

/* kern_cuda_mem.cu: device memory (counted in the context's statistics) */
void *kcu_dev_alloc(Ctx *C, size_t bytes); /* NULL when out of memory */
void kcu_dev_free(Ctx *C, void *p);
/* Grow *buf to at least bytes (contents are lost); fatal when memory is out. */
void kcu_ensure(Ctx *C, void **buf, size_t *have, size_t bytes, const char *what);
void kcu_copy_rows(Ctx *C, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                   size_t rows, cudaMemcpyKind kind);

/* kern_cuda_ew.cu: n elements between fp32 and the compute type, on the compute stream */
void kcu_from_f32(Ctx *C, const float *src, void *dst, int64_t n);
void kcu_to_f32(Ctx *C, const void *src, float *dst, int64_t n);

/* The members of the kern_ops table (kern_cuda.cu fills it), by file. */
/* kern_cuda_mem.cu */
void kcu_op_copy(void *c, const tview *src, const tview *dst);
void kcu_op_zero(void *c, const tview *dst);
void *kcu_op_alloc(void *c, size_t bytes);
void kcu_op_release(void *c, void *p);
void kcu_op_h2d(void *c, void *dst, const void *src, size_t bytes);
void kcu_op_d2h(void *c, void *dst, const void *src, size_t bytes);
void kcu_op_put_f32(void *c, const tview *dst, const float *src);
void kcu_op_get_f32(void *c, const tview *src, float *dst);
void kcu_op_cast_params(void *c, const float *master, void *w_compute, int64_t n);
/* kern_cuda_ew.cu */
void kcu_op_relu_fwd(void *c, const tview *x, const tview *y);
void kcu_op_relu_bwd(void *c, const tview *x, const tview *dy, const tview *dx);
void kcu_op_add(void *c, const tview *src, const tview *dst);
void kcu_op_bias_fwd(void *c, const tview *y, const void *b);
void kcu_op_bias_bwd(void *c, const tview *dy, void *db);
void kcu_op_pool_fwd(void *c, const tview *x, const tview *y);
void kcu_op_pool_bwd(void *c, const tview *dy, const tview *dx);
double kcu_op_l1_fwd(void *c, const tview *y, const tview *t);
void kcu_op_l1_bwd(void *c, const tview *y, const tview *t, const tview *dy);
void kcu_op_adam(void *c, float *master, void *w_compute, const void *g, float *m, float *v,
                 int64_t n, const adam_hyper *h);
void kcu_op_grad_check(void *c, const float *grads, int64_t n);
/* kern_cuda_lion.cu */
void kcu_op_lion(void *c, float *master, void *w_compute, const void *g, float *m, int64_t n,
                 const lion_hyper *h);
void kcu_op_lion_sign(void *c, float *m, const void *g, uint64_t *bits, int64_t n,
                      const lion_hyper *h);
void kcu_op_lion_apply(void *c, float *master, void *w_compute, const uint64_t *words, int p,
                       int nranks, int64_t n, const lion_hyper *h);
/* kern_cuda_3d.cu: the 3D members (the convolutions' through kcu_fill_conv3d) */
void kcu_fill_3d(kern_ops *o);
void kcu_op_copy3d(void *c, const t3view *src, const t3view *dst);
/* kern_cuda_conv3d.cu: the 3D convolutions, and their state's release */
void kcu_fill_conv3d(kern_ops *o);
void kcu_release_3d(Ctx *C);
/* kern_cuda_lc.cu: the locally connected layers (strided batched GEMMs) */
void kcu_fill_lc(kern_ops *o);
/* kern_cuda_conv.cu */
void kcu_op_conv_fwd(void *c, const tview *x, const void *w, int k, const tview *y);
void kcu_op_conv_bwd_data(void *c, const tview *dy, const void *w, int k, const tview *dx);
void kcu_op_conv_bwd_weights(void *c, const tview *x, const tview *dy, int k, void *dw);
void kcu_op_tconv_fwd(void *c, const tview *x, const void *w, const tview *y);
void kcu_op_tconv_bwd_data(void *c, const tview *dy, const void *w, const tview *dx);
void kcu_op_tconv_bwd_weights(void *c, const tview *x, const tview *dy, void *dw);
void kcu_op_dconv_fwd(void *c, const tview *x, const void *w, const kern_dconv *g, const tview *y);
void kcu_op_dconv_bwd_data(void *c, const tview *dy, const void *w, const kern_dconv *g, const tview *dx);
void kcu_op_dconv_bwd_weights(void *c, const tview *x, const tview *dy, const kern_dconv *g, void *dw);
/* kern_cuda_algo.cu: the problem of a call (found in C->convs, else made with
 * its descriptors and algo -1: not chosen yet); its algorithm chosen over the
 * call's operands (accumulate: the call adds into its output, so cudnnFind
 * writes a scratch instead); the workspace its current algorithm needs */
Conv *kcu_conv_for(Ctx *C, int op, const tview *X, const tview *Y, const kern_dconv *cg);
void kcu_conv_tune(Ctx *C, Conv *cv, const tview *X, const void *w, const tview *Y, void *dw, bool accumulate);
size_t kcu_conv_ws_size(Ctx *C, Conv *cv);
/* kern_cuda_seg.cu: the rest of the segmentation members (batch norm through
 * cuDNN, weighted cross-entropy, image pooling and broadcast) and the dconv
 * members above */
void kcu_fill_seg(kern_ops *o);
void kcu_release_seg(Ctx *C);
/* kern_cuda_segew.cu: weighted cross-entropy, image pooling and broadcast */
void kcu_fill_segew(kern_ops *o);

#endif
