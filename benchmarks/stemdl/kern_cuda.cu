/* kern_cuda.cu: the CUDA kernel set of STEMDL (kern_cuda.h, docs/stemdl-gpu.md).
 *
 * Convolutions (k x k SAME, 1x1, and the 1x1 stride-2 transposed convolution)
 * are cuDNN's legacy convolution API on strided NCHW descriptors: a channel
 * window of a dense block's buffer is described by its strides (n: sstride,
 * c: h*w, h: w, w: 1), so layers read the concatenation in place.  The
 * transposed convolution is expressed through a 1x1 stride-2 convolution
 * "C2" whose input is the transposed convolution's output:
 *     tconv forward        = C2 backward-data   (beta 0: the odd pixels become 0)
 *     tconv data gradient  = C2 forward          (beta 1: accumulates)
 *     tconv weight gradient= C2 backward-filter  (C2's filter [K=c_in][C=c_out] is
 *                                                 the tconv's [c_in][c_out] layout)
 * Every distinct problem (shape, strides, direction) gets its algorithm once,
 * at its first call: cudnnFind*Ex over the real operands (outputs that
 * accumulate are replaced by a scratch copy while timing), or cuDNN's
 * heuristics; the choice is cached.  One workspace serves every call; it is
 * sized to the largest choice once the step that made the choices ends.
 *
 * Everything else is a kernel of this file: ReLU, bias, pooling, the L1 loss,
 * Adam, element-wise add, dtype conversions, the fp16 overflow check.  All
 * work is queued on one compute stream; NCCL runs on a second stream.
 *
 * Element types: fp32 and tf32 keep activations and weights in float; bf16
 * and fp16 keep them in 16 bits (net.c keeps fp32 master weights, fp32 Adam
 * moments and fp32 gradients; cuDNN computes a 16-bit weight gradient that is
 * widened into the fp32 gradient array). */
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <vector>

extern "C" {
#include "check.h"
}
#include "kern_cuda.h"

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

static DV dv(const tview *t)
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
    int op, n, xc, xh, xw, yc, yh, yw, k, pad, stride;
    long long xss, yss;
    bool operator==(const Geo &o) const
    {
        return op == o.op && n == o.n && xc == o.xc && xh == o.xh && xw == o.xw && yc == o.yc &&
               yh == o.yh && yw == o.yw && k == o.k && pad == o.pad && stride == o.stride &&
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

    /* gradient reduction (gsync's transport): one event per gradient slot,
     * made by kcu_gs_prepare before the engine thread starts, and a device
     * fusion buffer that only the engine thread touches */
    std::vector<cudaEvent_t> gs_ev;
    float *gs_fusion;
    size_t gs_fusion_elems;

    /* memory */
    std::unordered_map<void *, size_t> allocs;
    size_t alloc_cur, alloc_peak, used_peak, total_mem;

    /* fp16 dynamic loss scaling */
    double scale, scale_init, growth, backoff;
    int growth_interval, good_steps, check_pending, tf32_disabled;
    int64_t checked, skipped;
};

static Ctx *ctx_of(void *c) { return (Ctx *)c; }

static const char *prec_name(Prec p)
{
    switch (p) {
    case P_FP32: return "fp32";
    case P_TF32: return "tf32";
    case P_BF16: return "bf16";
    case P_FP16: return "fp16";
    }
    return "?";
}

static const int kThreads = 256;

static unsigned blocks_for(const Ctx *C, int64_t work)
{
    int64_t b = (work + kThreads - 1) / kThreads;
    int64_t cap = (int64_t)C->sm_count * 16;
    if (b > cap) b = cap;
    return (unsigned)(b > 0 ? b : 1);
}

static void check_grid(int n, int c)
{
    CHECK(n >= 1 && n <= 65535 && c >= 0 && c <= 65535,
          "tensor of %d samples x %d channels: the CUDA kernels take at most 65535 of each", n, c);
}

/* ---- device memory ------------------------------------------------------------ */

static void *dev_alloc(Ctx *C, size_t bytes)
{
    void *p = NULL;
    if (bytes == 0) bytes = 256;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        return NULL;
    }
    CK_CUDA(e);
    C->allocs[p] = bytes;
    C->alloc_cur += bytes;
    if (C->alloc_cur > C->alloc_peak) C->alloc_peak = C->alloc_cur;
    return p;
}

static void dev_free(Ctx *C, void *p)
{
    if (!p) return;
    auto it = C->allocs.find(p);
    CHECK(it != C->allocs.end(), "freeing %p, which this context did not allocate", p);
    C->alloc_cur -= it->second;
    C->allocs.erase(it);
    CK_CUDA(cudaFree(p));
}

/* Grow *buf to at least bytes (contents are lost); fatal when memory is out. */
static void ensure(Ctx *C, void **buf, size_t *have, size_t bytes, const char *what)
{
    if (bytes <= *have && *buf) return;
    CK_CUDA(cudaStreamSynchronize(C->s));
    dev_free(C, *buf);
    *buf = dev_alloc(C, bytes);
    CHECK(*buf != NULL, "out of device memory allocating %.3g GB for the %s", (double)bytes / 1e9,
          what);
    *have = bytes;
}

/* ---- timers (CUDA events) ----------------------------------------------------- */

static cudaEvent_t ev_get(Ctx *C)
{
    if (!C->evpool.empty()) {
        cudaEvent_t e = C->evpool.back();
        C->evpool.pop_back();
        return e;
    }
    cudaEvent_t e;
    CK_CUDA(cudaEventCreate(&e));
    return e;
}

static void *cu_timer_start(void *c)
{
    Ctx *C = ctx_of(c);
    Pending p = {ev_get(C), ev_get(C), NULL, NULL};
    CK_CUDA(cudaEventRecord(p.a, C->s));
    C->pend.push_back(p);
    return (void *)(intptr_t)C->pend.size(); /* index + 1: never NULL */
}

static void cu_timer_stop(void *c, void *token, double *accum_s)
{
    Ctx *C = ctx_of(c);
    size_t i = (size_t)(intptr_t)token - 1;
    CHECK(i < C->pend.size(), "bad timer token");
    C->pend[i].acc = accum_s;
    CK_CUDA(cudaEventRecord(C->pend[i].b, C->s));
}

static void cu_timer_flush(void *c)
{
    Ctx *C = ctx_of(c);
    CK_CUDA(cudaStreamSynchronize(C->s));
    if (C->cs) CK_CUDA(cudaStreamSynchronize(C->cs));
    for (const Pending &p : C->pend) {
        float ms = 0;
        CK_CUDA(cudaEventElapsedTime(&ms, p.a, p.b));
        if (p.acc) *p.acc += ms * 1e-3;
        if (p.acc2) *p.acc2 += ms * 1e-3;
        C->evpool.push_back(p.a);
        C->evpool.push_back(p.b);
    }
    C->pend.clear();
    for (cudaEvent_t e : C->evdone) C->evpool.push_back(e);
    C->evdone.clear();
}

/* ---- kernels ------------------------------------------------------------------ */

enum { EW_RELU = 0, EW_RELU_BWD = 1, EW_ADD = 2 };

/* o = max(a, 0);  o += (a > 0 ? b : 0);  o += a.  grid: (x over len, y = sample) */
template <typename T, int N, int OP> __global__ void k_ew(DV a, DV b, DV o)
{
    const int64_t s = blockIdx.y;
    const T *pa = (const T *)a.p + s * a.ss;
    const T *pb = (const T *)b.p + s * b.ss;
    T *po = (T *)o.p + s * o.ss;
    const int64_t step = (int64_t)gridDim.x * blockDim.x * N;
    for (int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * N; i < o.len; i += step) {
        Pack<T, N> va = *(const Pack<T, N> *)(pa + i), vo;
        if constexpr (OP == EW_RELU) {
#pragma unroll
            for (int j = 0; j < N; j++) vo.v[j] = tof(va.v[j]) > 0.f ? va.v[j] : fromf<T>(0.f);
        } else if constexpr (OP == EW_RELU_BWD) {
            Pack<T, N> vb = *(const Pack<T, N> *)(pb + i);
            vo = *(const Pack<T, N> *)(po + i);
#pragma unroll
            for (int j = 0; j < N; j++)
                if (tof(va.v[j]) > 0.f) vo.v[j] = fromf<T>(tof(vo.v[j]) + tof(vb.v[j]));
        } else {
            vo = *(const Pack<T, N> *)(po + i);
#pragma unroll
            for (int j = 0; j < N; j++) vo.v[j] = fromf<T>(tof(vo.v[j]) + tof(va.v[j]));
        }
        *(Pack<T, N> *)(po + i) = vo;
    }
}

/* y += b[c].  grid: (x over h*w, y = channel, z = sample) */
template <typename T> __global__ void k_bias_fwd(DV y, const T *b, int64_t hw)
{
    T *p = (T *)y.p + (int64_t)blockIdx.z * y.ss + (int64_t)blockIdx.y * hw;
    const float bv = tof(b[blockIdx.y]);
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < hw;
         i += (int64_t)gridDim.x * blockDim.x)
        p[i] = fromf<T>(tof(p[i]) + bv);
}

/* Sum of a block's values in double; the result is valid in thread 0. */
__device__ double block_sum(double v)
{
    __shared__ double sh[kThreads];
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if ((int)threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w];
        __syncthreads();
    }
    return sh[0];
}

/* db[c] = sum over samples and pixels of dy (double accumulation).  grid: channels */
template <typename T> __global__ void k_bias_bwd(DV dy, int64_t hw, float *db)
{
    double acc = 0;
    for (int s = 0; s < dy.n; s++) {
        const T *p = (const T *)dy.p + (int64_t)s * dy.ss + (int64_t)blockIdx.x * hw;
        for (int64_t i = threadIdx.x; i < hw; i += blockDim.x) acc += tof(p[i]);
    }
    double sum = block_sum(acc);
    if (threadIdx.x == 0) db[blockIdx.x] = (float)sum;
}

/* 2x2 mean, stride 2.  grid: (x over ho*wo, y = channel, z = sample) */
template <typename T> __global__ void k_pool_fwd(DV x, DV y, int ho, int wo)
{
    const int64_t plane = (int64_t)ho * wo;
    const int wi = 2 * wo;
    const T *px = (const T *)x.p + (int64_t)blockIdx.z * x.ss + (int64_t)blockIdx.y * plane * 4;
    T *py = (T *)y.p + (int64_t)blockIdx.z * y.ss + (int64_t)blockIdx.y * plane;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < plane;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t r = i / wo, q = i - r * wo;
        const T *a = px + 2 * r * wi + 2 * q;
        float s = tof(a[0]) + tof(a[1]);
        s = s + tof(a[wi]);
        s = s + tof(a[wi + 1]);
        py[i] = fromf<T>(0.25f * s);
    }
}

/* dx = dy / 4 over each window (overwrite).  grid: (x over hi*wi, y = channel, z = sample) */
template <typename T> __global__ void k_pool_bwd(DV dy, DV dx, int hi, int wi)
{
    const int64_t plane = (int64_t)hi * wi;
    const int wo = wi / 2;
    const T *pdy = (const T *)dy.p + (int64_t)blockIdx.z * dy.ss + (int64_t)blockIdx.y * (plane / 4);
    T *pdx = (T *)dx.p + (int64_t)blockIdx.z * dx.ss + (int64_t)blockIdx.y * plane;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < plane;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t r = i / wi, q = i - r * wi;
        pdx[i] = fromf<T>(0.25f * tof(pdy[(r / 2) * wo + q / 2]));
    }
}

/* Partial sums of |y - t| in double, one per block. */
template <typename T> __global__ void k_l1_partial(DV y, DV t, double *part)
{
    const int64_t total = (int64_t)y.n * y.len;
    double acc = 0;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t s = i / y.len, o = i - s * y.len;
        double d = (double)tof(((const T *)y.p)[s * y.ss + o]) - (double)tof(((const T *)t.p)[s * t.ss + o]);
        acc += fabs(d);
    }
    double sum = block_sum(acc);
    if (threadIdx.x == 0) part[blockIdx.x] = sum;
}

/* out = sum of n partials, in a fixed order (deterministic). */
__global__ void k_sum_partials(const double *part, int n, double *out)
{
    double acc = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) acc += part[i];
    double sum = block_sum(acc);
    if (threadIdx.x == 0) *out = sum;
}

/* dy = sign(y - t) * s.  grid: (x over len, y = sample) */
template <typename T> __global__ void k_l1_bwd(DV y, DV t, DV dy, float s)
{
    const int64_t n = blockIdx.y;
    const T *py = (const T *)y.p + n * y.ss;
    const T *pt = (const T *)t.p + n * t.ss;
    T *pd = (T *)dy.p + n * dy.ss;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < y.len;
         i += (int64_t)gridDim.x * blockDim.x) {
        float d = tof(py[i]) - tof(pt[i]);
        pd[i] = fromf<T>(d > 0.f ? s : (d < 0.f ? -s : 0.f));
    }
}

/* Adam, PyTorch's form (bias corrections folded into lr_t and eps_t); skips
 * everything when *skip is set (fp16 overflow). */
template <typename T>
__global__ void k_adam(float *w, T *wc, const float *g, float *m, float *v, int64_t n, float b1,
                       float b2, float gs, float lr_t, float eps_t, const int *skip)
{
    if (skip && *skip) return;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        float gi = g[i] * gs;
        float mi = b1 * m[i] + (1.0f - b1) * gi;
        float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
        float wi = w[i] - lr_t * mi / (sqrtf(vi) + eps_t);
        m[i] = mi;
        v[i] = vi;
        w[i] = wi;
        if (wc) wc[i] = fromf<T>(wi);
    }
}

template <typename T> __global__ void k_from_f32(const float *src, T *dst, int64_t n)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        dst[i] = fromf<T>(src[i]);
}

template <typename T> __global__ void k_to_f32(const T *src, float *dst, int64_t n)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        dst[i] = tof(src[i]);
}

__global__ void k_nonfinite(const float *g, int64_t n, int *flag)
{
    int bad = 0;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        bad |= !isfinite(g[i]);
    if (bad) *flag = 1;
}

/* Deterministic pseudo-random values in [-1, 1) for the peak probe. */
template <typename T> __global__ void k_fill(T *p, int64_t n, uint32_t seed)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        uint32_t x = (uint32_t)i * 2654435761u ^ seed;
        x ^= x >> 15;
        x *= 2246822519u;
        x ^= x >> 13;
        p[i] = fromf<T>((float)(x >> 8) * (2.0f / 16777216.0f) - 1.0f);
    }
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

static bool aligned16(const void *p) { return ((uintptr_t)p & 15) == 0; }

template <typename T, int OP> static void ew(Ctx *C, const tview *a, const tview *b, const tview *o)
{
    DV A = dv(a), B = dv(b ? b : a), O = dv(o);
    CHECK(A.len == O.len && B.len == O.len && A.n == O.n && B.n == O.n, "element-wise views differ");
    if (O.len == 0 || O.n == 0) return;
    check_grid(O.n, 0);
    constexpr int N = 16 / sizeof(T);
    bool vec = O.len % N == 0 && A.ss % N == 0 && B.ss % N == 0 && O.ss % N == 0 &&
               aligned16(A.p) && aligned16(B.p) && aligned16(O.p);
    dim3 grid(blocks_for(C, vec ? O.len / N : O.len), (unsigned)O.n);
    if (vec)
        k_ew<T, N, OP><<<grid, kThreads, 0, C->s>>>(A, B, O);
    else
        k_ew<T, 1, OP><<<grid, kThreads, 0, C->s>>>(A, B, O);
    CK_LAUNCH("k_ew");
}

template <typename T> static void relu_fwd_t(Ctx *C, const tview *x, const tview *y) { ew<T, EW_RELU>(C, x, NULL, y); }
template <typename T> static void relu_bwd_t(Ctx *C, const tview *x, const tview *dy, const tview *dx) { ew<T, EW_RELU_BWD>(C, x, dy, dx); }
template <typename T> static void add_t(Ctx *C, const tview *src, const tview *dst) { ew<T, EW_ADD>(C, src, NULL, dst); }

template <typename T> static void bias_fwd_t(Ctx *C, const tview *y, const void *b)
{
    if (tview_elems(y) == 0) return;
    check_grid(y->n, y->c);
    int64_t hw = (int64_t)y->h * y->w;
    dim3 grid(std::max(1u, std::min(blocks_for(C, hw), 64u)), (unsigned)y->c, (unsigned)y->n);
    k_bias_fwd<T><<<grid, kThreads, 0, C->s>>>(dv(y), (const T *)b, hw);
    CK_LAUNCH("k_bias_fwd");
}

template <typename T> static void bias_bwd_t(Ctx *C, const tview *dy, void *db)
{
    if (dy->c == 0) return;
    check_grid(dy->n, dy->c);
    k_bias_bwd<T><<<(unsigned)dy->c, kThreads, 0, C->s>>>(dv(dy), (int64_t)dy->h * dy->w, (float *)db);
    CK_LAUNCH("k_bias_bwd");
}

template <typename T> static void pool_fwd_t(Ctx *C, const tview *x, const tview *y)
{
    CHECK(x->h == 2 * y->h && x->w == 2 * y->w && x->c == y->c && x->n == y->n, "pool_fwd shapes");
    if (tview_elems(y) == 0) return;
    check_grid(y->n, y->c);
    int64_t plane = (int64_t)y->h * y->w;
    dim3 grid(std::max(1u, std::min(blocks_for(C, plane), 64u)), (unsigned)y->c, (unsigned)y->n);
    k_pool_fwd<T><<<grid, kThreads, 0, C->s>>>(dv(x), dv(y), y->h, y->w);
    CK_LAUNCH("k_pool_fwd");
}

template <typename T> static void pool_bwd_t(Ctx *C, const tview *dy, const tview *dx)
{
    CHECK(dx->h == 2 * dy->h && dx->w == 2 * dy->w && dx->c == dy->c && dx->n == dy->n, "pool_bwd shapes");
    if (tview_elems(dx) == 0) return;
    check_grid(dx->n, dx->c);
    int64_t plane = (int64_t)dx->h * dx->w;
    dim3 grid(std::max(1u, std::min(blocks_for(C, plane), 64u)), (unsigned)dx->c, (unsigned)dx->n);
    k_pool_bwd<T><<<grid, kThreads, 0, C->s>>>(dv(dy), dv(dx), dx->h, dx->w);
    CK_LAUNCH("k_pool_bwd");
}

static const int kPartials = 1024;

template <typename T> static void l1_partial_t(Ctx *C, const tview *y, const tview *t)
{
    k_l1_partial<T><<<kPartials, kThreads, 0, C->s>>>(dv(y), dv(t), C->d_part);
    CK_LAUNCH("k_l1_partial");
}

template <typename T> static void l1_bwd_t(Ctx *C, const tview *y, const tview *t, const tview *dy, float s)
{
    if (tview_elems(y) == 0) return;
    check_grid(y->n, 0);
    DV Y = dv(y);
    dim3 grid(blocks_for(C, Y.len), (unsigned)Y.n);
    k_l1_bwd<T><<<grid, kThreads, 0, C->s>>>(Y, dv(t), dv(dy), s);
    CK_LAUNCH("k_l1_bwd");
}

template <typename T>
static void adam_t(Ctx *C, float *w, void *wc, const float *g, float *m, float *v, int64_t n,
                   float b1, float b2, float gs, float lr_t, float eps_t, const int *skip)
{
    k_adam<T><<<blocks_for(C, n), kThreads, 0, C->s>>>(w, (T *)wc, g, m, v, n, b1, b2, gs, lr_t,
                                                       eps_t, skip);
    CK_LAUNCH("k_adam");
}

template <typename T> static void from_f32_t(Ctx *C, const float *src, void *dst, int64_t n)
{
    if (n <= 0) return;
    k_from_f32<T><<<blocks_for(C, n), kThreads, 0, C->s>>>(src, (T *)dst, n);
    CK_LAUNCH("k_from_f32");
}

template <typename T> static void to_f32_t(Ctx *C, const void *src, float *dst, int64_t n)
{
    if (n <= 0) return;
    k_to_f32<T><<<blocks_for(C, n), kThreads, 0, C->s>>>((const T *)src, dst, n);
    CK_LAUNCH("k_to_f32");
}

/* ---- kern_ops: the simple kernels ----------------------------------------------- */

static void cu_relu_fwd(void *c, const tview *x, const tview *y) { Ctx *C = ctx_of(c); DISPATCH(C, relu_fwd_t, C, x, y); }
static void cu_relu_bwd(void *c, const tview *x, const tview *dy, const tview *dx) { Ctx *C = ctx_of(c); DISPATCH(C, relu_bwd_t, C, x, dy, dx); }
static void cu_add(void *c, const tview *src, const tview *dst) { Ctx *C = ctx_of(c); DISPATCH(C, add_t, C, src, dst); }
static void cu_bias_fwd(void *c, const tview *y, const void *b) { Ctx *C = ctx_of(c); DISPATCH(C, bias_fwd_t, C, y, b); }
static void cu_bias_bwd(void *c, const tview *dy, void *db) { Ctx *C = ctx_of(c); DISPATCH(C, bias_bwd_t, C, dy, db); }
static void cu_pool_fwd(void *c, const tview *x, const tview *y) { Ctx *C = ctx_of(c); DISPATCH(C, pool_fwd_t, C, x, y); }
static void cu_pool_bwd(void *c, const tview *dy, const tview *dx) { Ctx *C = ctx_of(c); DISPATCH(C, pool_bwd_t, C, dy, dx); }

/* rows x width bytes, pitches apart: one 2D copy; one plain copy for a
 * single row; row by row where a pitch is beyond what cudaMemcpy2D takes. */
static void copy_rows(Ctx *C, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                      size_t rows, cudaMemcpyKind kind)
{
    if (rows == 1) {
        CK_CUDA(cudaMemcpyAsync(dst, src, width, kind, C->s));
    } else if (dpitch <= C->max_pitch && spitch <= C->max_pitch) {
        CK_CUDA(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, kind, C->s));
    } else {
        for (size_t r = 0; r < rows; r++)
            CK_CUDA(cudaMemcpyAsync((char *)dst + r * dpitch, (const char *)src + r * spitch, width, kind, C->s));
    }
}

static void zero_rows(Ctx *C, void *dst, size_t pitch, size_t width, size_t rows)
{
    if (rows == 1) {
        CK_CUDA(cudaMemsetAsync(dst, 0, width, C->s));
    } else if (pitch <= C->max_pitch) {
        CK_CUDA(cudaMemset2DAsync(dst, pitch, 0, width, rows, C->s));
    } else {
        for (size_t r = 0; r < rows; r++) CK_CUDA(cudaMemsetAsync((char *)dst + r * pitch, 0, width, C->s));
    }
}

static void cu_copy(void *c, const tview *src, const tview *dst)
{
    Ctx *C = ctx_of(c);
    DV S = dv(src), D = dv(dst);
    CHECK(S.len == D.len && S.n == D.n, "copy: views differ");
    if (S.len == 0 || S.n == 0) return;
    copy_rows(C, D.p, (size_t)D.ss * C->esz, S.p, (size_t)S.ss * C->esz, (size_t)S.len * C->esz,
              (size_t)S.n, cudaMemcpyDeviceToDevice);
}

static void cu_zero(void *c, const tview *dst)
{
    Ctx *C = ctx_of(c);
    DV D = dv(dst);
    if (D.len == 0 || D.n == 0) return;
    zero_rows(C, D.p, (size_t)D.ss * C->esz, (size_t)D.len * C->esz, (size_t)D.n);
}

static double cu_l1_fwd(void *c, const tview *y, const tview *t)
{
    Ctx *C = ctx_of(c);
    int64_t count = tview_elems(y);
    if (count == 0) return 0;
    DISPATCH(C, l1_partial_t, C, y, t);
    k_sum_partials<<<1, kThreads, 0, C->s>>>(C->d_part, kPartials, C->d_loss);
    CK_LAUNCH("k_sum_partials");
    CK_CUDA(cudaMemcpyAsync(C->h_loss, C->d_loss, sizeof(double), cudaMemcpyDeviceToHost, C->s));
    /* the interface returns the loss: the host waits for the forward pass here */
    CK_CUDA(cudaStreamSynchronize(C->s));
    return *C->h_loss * (1.0 / (double)count);
}

static void cu_l1_bwd(void *c, const tview *y, const tview *t, const tview *dy)
{
    Ctx *C = ctx_of(c);
    /* fp16: the loss gradient carries the loss scale (dynamic loss scaling) */
    double scale = C->prec == P_FP16 ? C->scale : 1.0;
    float s = (float)(scale / (double)tview_elems(y));
    DISPATCH(C, l1_bwd_t, C, y, t, dy, s);
}

static void cu_adam(void *c, float *master, void *w_compute, const void *g, float *m, float *v,
                    int64_t n, const adam_hyper *h)
{
    Ctx *C = ctx_of(c);
    if (n <= 0) return;
    double scale = C->prec == P_FP16 ? C->scale : 1.0;
    /* a step skipped for overflow does not advance Adam's step count (as PyTorch's GradScaler) */
    int64_t step = h->step - (C->prec == P_FP16 ? C->skipped : 0);
    if (step < 1) step = 1;
    double bc1 = 1.0 - pow(h->beta1, (double)step);
    double bc2 = 1.0 - pow(h->beta2, (double)step);
    float lr_t = (float)(h->lr * sqrt(bc2) / bc1);
    float eps_t = (float)(h->eps * sqrt(bc2));
    float gs = (float)(h->grad_scale / scale);
    const int *skip = C->prec == P_FP16 ? C->d_flag : NULL;
    void *wc = (w_compute && w_compute != (void *)master) ? w_compute : NULL;
    if (!wc || C->elem == E_F32)
        adam_t<float>(C, master, wc, (const float *)g, m, v, n, (float)h->beta1, (float)h->beta2,
                      gs, lr_t, eps_t, skip);
    else if (C->elem == E_BF16)
        adam_t<__nv_bfloat16>(C, master, wc, (const float *)g, m, v, n, (float)h->beta1,
                              (float)h->beta2, gs, lr_t, eps_t, skip);
    else
        adam_t<__half>(C, master, wc, (const float *)g, m, v, n, (float)h->beta1, (float)h->beta2,
                       gs, lr_t, eps_t, skip);
}

/* fp16: once per step, before the optimizer, over the whole reduced gradient. */
static void cu_grad_check(void *c, const float *grads, int64_t n)
{
    Ctx *C = ctx_of(c);
    CK_CUDA(cudaMemsetAsync(C->d_flag, 0, sizeof(int), C->s));
    if (n > 0) {
        k_nonfinite<<<blocks_for(C, n), kThreads, 0, C->s>>>(grads, n, C->d_flag);
        CK_LAUNCH("k_nonfinite");
    }
    CK_CUDA(cudaMemcpyAsync(C->h_flag, C->d_flag, sizeof(int), cudaMemcpyDeviceToHost, C->s));
    C->check_pending = 1;
}

/* ---- memory and transfers ------------------------------------------------------- */

static void *cu_alloc(void *c, size_t bytes)
{
    Ctx *C = ctx_of(c);
    void *p = dev_alloc(C, bytes);
    if (p) CK_CUDA(cudaMemsetAsync(p, 0, bytes ? bytes : 256, C->s));
    return p;
}

static void cu_release(void *c, void *p)
{
    Ctx *C = ctx_of(c);
    CK_CUDA(cudaStreamSynchronize(C->s));
    dev_free(C, p);
}

static void cu_h2d(void *c, void *dst, const void *src, size_t bytes)
{
    Ctx *C = ctx_of(c);
    CK_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, C->s));
    CK_CUDA(cudaStreamSynchronize(C->s));
}

static void cu_d2h(void *c, void *dst, const void *src, size_t bytes)
{
    Ctx *C = ctx_of(c);
    CK_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, C->s));
    CK_CUDA(cudaStreamSynchronize(C->s));
}

static const size_t kStageElems = (size_t)16 << 20; /* 64 MB of fp32 */

static void cu_put_f32(void *c, const tview *dst, const float *src)
{
    Ctx *C = ctx_of(c);
    DV D = dv(dst);
    if (D.len == 0 || D.n == 0) return;
    if (C->elem == E_F32) {
        copy_rows(C, D.p, (size_t)D.ss * 4, src, (size_t)D.len * 4, (size_t)D.len * 4, (size_t)D.n,
                  cudaMemcpyHostToDevice);
    } else {
        if (!C->stage) {
            C->stage = (float *)dev_alloc(C, kStageElems * sizeof(float));
            CHECK(C->stage, "out of device memory for the %zu MB staging buffer", kStageElems * 4 >> 20);
            C->stage_elems = kStageElems;
        }
        for (int s = 0; s < D.n; s++)
            for (int64_t off = 0; off < D.len; off += (int64_t)C->stage_elems) {
                int64_t k = std::min((int64_t)C->stage_elems, D.len - off);
                /* the copy waits for the previous conversion (same stream) */
                CK_CUDA(cudaMemcpyAsync(C->stage, src + (size_t)s * D.len + off, (size_t)k * 4,
                                        cudaMemcpyHostToDevice, C->s));
                char *d = D.p + ((size_t)s * D.ss + off) * C->esz;
                DISPATCH(C, from_f32_t, C, C->stage, d, k);
            }
    }
    CK_CUDA(cudaStreamSynchronize(C->s));
}

static void cu_get_f32(void *c, const tview *src, float *dst)
{
    Ctx *C = ctx_of(c);
    DV S = dv(src);
    if (S.len == 0 || S.n == 0) return;
    if (C->elem == E_F32) {
        copy_rows(C, dst, (size_t)S.len * 4, S.p, (size_t)S.ss * 4, (size_t)S.len * 4, (size_t)S.n,
                  cudaMemcpyDeviceToHost);
    } else {
        if (!C->stage) {
            C->stage = (float *)dev_alloc(C, kStageElems * sizeof(float));
            CHECK(C->stage, "out of device memory for the %zu MB staging buffer", kStageElems * 4 >> 20);
            C->stage_elems = kStageElems;
        }
        for (int s = 0; s < S.n; s++)
            for (int64_t off = 0; off < S.len; off += (int64_t)C->stage_elems) {
                int64_t k = std::min((int64_t)C->stage_elems, S.len - off);
                const char *p = S.p + ((size_t)s * S.ss + off) * C->esz;
                DISPATCH(C, to_f32_t, C, p, C->stage, k);
                CK_CUDA(cudaMemcpyAsync(dst + (size_t)s * S.len + off, C->stage, (size_t)k * 4,
                                        cudaMemcpyDeviceToHost, C->s));
            }
    }
    CK_CUDA(cudaStreamSynchronize(C->s));
}

static void cu_cast_params(void *c, const float *master, void *w_compute, int64_t n)
{
    Ctx *C = ctx_of(c);
    if (!w_compute || w_compute == (const void *)master || n <= 0) return;
    DISPATCH(C, from_f32_t, C, master, w_compute, n);
    CK_CUDA(cudaStreamSynchronize(C->s));
}

/* End of a step: wait for the device; settle the loss scale; after the step
 * that chose convolution algorithms, give back the timing scratch and trim the
 * workspace to the largest choice; note the memory in use. */
static void cu_sync(void *c)
{
    Ctx *C = ctx_of(c);
    CK_CUDA(cudaStreamSynchronize(C->s));
    if (C->cs) CK_CUDA(cudaStreamSynchronize(C->cs));
    if (C->check_pending) {
        C->check_pending = 0;
        C->checked++;
        if (*C->h_flag) {
            C->skipped++;
            C->scale *= C->backoff;
            C->good_steps = 0;
        } else if (++C->good_steps >= C->growth_interval) {
            C->scale *= C->growth;
            C->good_steps = 0;
        }
    }
    if (C->tuned_since_sync) {
        C->tuned_since_sync = 0;
        dev_free(C, C->tscratch);
        C->tscratch = NULL;
        C->tscratch_bytes = 0;
        if (C->ws && C->ws_bytes > C->ws_need) {
            dev_free(C, C->ws);
            C->ws = NULL;
            C->ws_bytes = 0;
            if (C->ws_need) {
                C->ws = dev_alloc(C, C->ws_need);
                CHECK(C->ws, "out of device memory for the %.3g GB cuDNN workspace", (double)C->ws_need / 1e9);
                C->ws_bytes = C->ws_need;
            }
        }
    }
    size_t fr = 0, tot = 0;
    CK_CUDA(cudaMemGetInfo(&fr, &tot));
    if (tot - fr > C->used_peak) C->used_peak = tot - fr;
}

/* ---- convolutions through cuDNN ---------------------------------------------------- */

static const char *op_name(int op)
{
    return op == OP_FWD ? "fwd" : op == OP_BWD_DATA ? "bwd_data" : "bwd_filter";
}

static const char *math_name(cudnnMathType_t m)
{
    switch (m) {
    case CUDNN_DEFAULT_MATH: return "default";
    case CUDNN_TENSOR_OP_MATH: return "tensor_op";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION: return "tensor_op_conv";
    case CUDNN_FMA_MATH: return "fma";
    }
    return "unknown";
}

/* fp32 must not use TF32 tensor cores; nothing may convert to fp16 behind our back. */
static bool math_allowed(const Ctx *C, cudnnMathType_t m)
{
    if (m == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) return false;
    if (C->prec == P_FP32) return m == CUDNN_FMA_MATH || m == CUDNN_DEFAULT_MATH;
    return true;
}

static int to_int(int64_t v, const char *what)
{
    CHECK(v >= 0 && v <= INT_MAX, "%s %lld does not fit cuDNN's int descriptors", what, (long long)v);
    return (int)v;
}

static void set_tensor(const Ctx *C, cudnnTensorDescriptor_t d, const tview *t)
{
    CK_DNN(cudnnSetTensor4dDescriptorEx(d, C->dt, t->n, t->c, t->h, t->w, to_int(t->sstride, "sample stride"),
                                        to_int((int64_t)t->h * t->w, "plane"), t->w, 1));
}

/* Bytes a view spans from its first element to its last. */
static size_t span_bytes(const Ctx *C, const tview *t)
{
    return ((size_t)(t->n - 1) * (size_t)t->sstride + (size_t)t->c * t->h * t->w) * C->esz;
}

/* A view like t over another buffer (same strides). */
static tview moved(const tview *t, void *p)
{
    tview r = *t;
    r.p = p;
    return r;
}

static size_t ws_size(Ctx *C, Conv *cv)
{
    size_t b = 0;
    if (cv->g.op == OP_FWD)
        CK_DNN(cudnnGetConvolutionForwardWorkspaceSize(C->dnn, cv->xd, cv->wd, cv->cd, cv->yd,
                                                       (cudnnConvolutionFwdAlgo_t)cv->algo, &b));
    else if (cv->g.op == OP_BWD_DATA)
        CK_DNN(cudnnGetConvolutionBackwardDataWorkspaceSize(C->dnn, cv->wd, cv->yd, cv->cd, cv->xd,
                                                            (cudnnConvolutionBwdDataAlgo_t)cv->algo, &b));
    else
        CK_DNN(cudnnGetConvolutionBackwardFilterWorkspaceSize(C->dnn, cv->xd, cv->yd, cv->cd, cv->wd,
                                                              (cudnnConvolutionBwdFilterAlgo_t)cv->algo, &b));
    return b;
}

/* Workspace for cudnnFind: as much as the cap allows and memory permits. */
static size_t find_workspace(Ctx *C)
{
    size_t fr = 0, tot = 0;
    CK_CUDA(cudaStreamSynchronize(C->s));
    CK_CUDA(cudaMemGetInfo(&fr, &tot));
    size_t avail = fr + C->ws_bytes;
    size_t margin = (size_t)512 << 20;
    size_t want = std::min(C->ws_cap, avail > margin ? (avail - margin) / 2 : 0);
    if (C->ws_bytes >= want) return C->ws_bytes;
    while (want >= ((size_t)1 << 20)) {
        dev_free(C, C->ws);
        C->ws = dev_alloc(C, want);
        if (C->ws) {
            C->ws_bytes = want;
            return want;
        }
        C->ws_bytes = 0;
        want /= 2;
    }
    return 0;
}

/* Keep the first result that succeeded, fits the cap and uses an allowed math mode. */
template <typename Perf> static bool pick(const Ctx *C, const Perf *perf, int n, Conv *cv, bool timed)
{
    for (int i = 0; i < n; i++) {
        if (perf[i].status != CUDNN_STATUS_SUCCESS || !math_allowed(C, perf[i].mathType)) continue;
        if (perf[i].memory > C->ws_cap) continue;
        cv->algo = (int)perf[i].algo;
        cv->math = perf[i].mathType;
        cv->ws = perf[i].memory;
        cv->time_ms = timed ? perf[i].time : -1.0f;
        return true;
    }
    return false;
}

/* Choose the algorithm of a new problem.  x, w, y are the operands of the
 * call (cuDNN's names); out is whichever of them the direction writes, and
 * accumulate says whether the call adds into it (then Find writes a scratch). */
static void tune(Ctx *C, Conv *cv, const tview *X, const void *w, const tview *Y, void *dw, bool accumulate)
{
    auto t0 = std::chrono::steady_clock::now();
    const int kMax = 32;
    int found = 0;
    bool ok = false;
    CK_DNN(cudnnSetConvolutionMathType(cv->cd, C->math_req));
    if (C->find) {
        size_t wsb = find_workspace(C);
        tview x = *X, y = *Y;
        if (accumulate) {
            const tview *out = cv->g.op == OP_FWD ? Y : X;
            ensure(C, &C->tscratch, &C->tscratch_bytes, span_bytes(C, out), "algorithm-timing scratch");
            if (cv->g.op == OP_FWD) y = moved(Y, C->tscratch);
            else x = moved(X, C->tscratch);
        }
        if (cv->g.op == OP_FWD) {
            cudnnConvolutionFwdAlgoPerf_t perf[kMax];
            CK_DNN(cudnnFindConvolutionForwardAlgorithmEx(C->dnn, cv->xd, x.p, cv->wd, w, cv->cd, cv->yd, y.p,
                                                          kMax, &found, perf, C->ws, wsb));
            ok = pick(C, perf, found, cv, true);
        } else if (cv->g.op == OP_BWD_DATA) {
            cudnnConvolutionBwdDataAlgoPerf_t perf[kMax];
            CK_DNN(cudnnFindConvolutionBackwardDataAlgorithmEx(C->dnn, cv->wd, w, cv->yd, y.p, cv->cd, cv->xd,
                                                               x.p, kMax, &found, perf, C->ws, wsb));
            ok = pick(C, perf, found, cv, true);
        } else {
            cudnnConvolutionBwdFilterAlgoPerf_t perf[kMax];
            CK_DNN(cudnnFindConvolutionBackwardFilterAlgorithmEx(C->dnn, cv->xd, x.p, cv->yd, y.p, cv->cd, cv->wd,
                                                                 dw, kMax, &found, perf, C->ws, wsb));
            ok = pick(C, perf, found, cv, true);
        }
    } else {
        if (cv->g.op == OP_FWD) {
            cudnnConvolutionFwdAlgoPerf_t perf[kMax];
            CK_DNN(cudnnGetConvolutionForwardAlgorithm_v7(C->dnn, cv->xd, cv->wd, cv->cd, cv->yd, kMax, &found, perf));
            ok = pick(C, perf, found, cv, false);
        } else if (cv->g.op == OP_BWD_DATA) {
            cudnnConvolutionBwdDataAlgoPerf_t perf[kMax];
            CK_DNN(cudnnGetConvolutionBackwardDataAlgorithm_v7(C->dnn, cv->wd, cv->yd, cv->cd, cv->xd, kMax, &found, perf));
            ok = pick(C, perf, found, cv, false);
        } else {
            cudnnConvolutionBwdFilterAlgoPerf_t perf[kMax];
            CK_DNN(cudnnGetConvolutionBackwardFilterAlgorithm_v7(C->dnn, cv->xd, cv->yd, cv->cd, cv->wd, kMax, &found, perf));
            ok = pick(C, perf, found, cv, false);
        }
    }
    CHECK(ok,
          "cuDNN offers no usable %s algorithm (%d candidates) for x %dx%dx%dx%d, y %dx%dx%dx%d, "
          "k %d, stride %d, %s within a %.3g GB workspace",
          op_name(cv->g.op), found, cv->g.n, cv->g.xc, cv->g.xh, cv->g.xw, cv->g.n, cv->g.yc,
          cv->g.yh, cv->g.yw, cv->g.k, cv->g.stride, prec_name(C->prec), (double)C->ws_cap / 1e9);
    CK_DNN(cudnnSetConvolutionMathType(cv->cd, cv->math));
    cv->ws = std::max(cv->ws, ws_size(C, cv));
    C->ws_need = std::max(C->ws_need, cv->ws);
    C->tuned_since_sync = 1;
    C->tune_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (getenv("EXADL_CUDA_VERBOSE"))
        fprintf(stderr,
                "stemdl: cuDNN %s x %dx%dx%dx%d y %dx%dx%dx%d k %d s %d: algo %d, math %s, "
                "workspace %zu B, %.3f ms\n",
                op_name(cv->g.op), cv->g.n, cv->g.xc, cv->g.xh, cv->g.xw, cv->g.n, cv->g.yc, cv->g.yh,
                cv->g.yw, cv->g.k, cv->g.stride, cv->algo, math_name(cv->math), cv->ws, cv->time_ms);
}

static Conv *conv_for(Ctx *C, int op, const tview *X, const tview *Y, int k, int stride)
{
    Geo g;
    memset(&g, 0, sizeof g);
    g.op = op;
    g.n = X->n;
    g.xc = X->c, g.xh = X->h, g.xw = X->w, g.xss = X->sstride;
    g.yc = Y->c, g.yh = Y->h, g.yw = Y->w, g.yss = Y->sstride;
    g.k = k;
    g.stride = stride;
    g.pad = stride == 1 ? k / 2 : 0;
    for (Conv *cv : C->convs)
        if (cv->g == g) return cv;
    Conv *cv = new Conv();
    cv->g = g;
    CK_DNN(cudnnCreateTensorDescriptor(&cv->xd));
    CK_DNN(cudnnCreateTensorDescriptor(&cv->yd));
    CK_DNN(cudnnCreateFilterDescriptor(&cv->wd));
    CK_DNN(cudnnCreateConvolutionDescriptor(&cv->cd));
    set_tensor(C, cv->xd, X);
    set_tensor(C, cv->yd, Y);
    CK_DNN(cudnnSetFilter4dDescriptor(cv->wd, C->dt, CUDNN_TENSOR_NCHW, Y->c, X->c, k, k));
    CK_DNN(cudnnSetConvolution2dDescriptor(cv->cd, g.pad, g.pad, stride, stride, 1, 1,
                                           CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    cv->algo = -1;
    C->convs.push_back(cv);
    return cv;
}

/* cuDNN wants its operands aligned (16 bytes serves its vector loads; it
 * documents 4 at the least).  A channel window of a 16-bit buffer with an odd
 * plane, or a layer's weights at an odd offset of the flat parameter array,
 * is not: such an operand goes through an aligned copy.  gb2019's
 * activations are always aligned (planes of 4096 to 262144 pixels); its
 * weights mostly are not, which costs a copy of the weights per call (about
 * 1 GB of device traffic per step, a fraction of a millisecond). */
enum { AL_X, AL_Y, AL_W, AL_DW };
static const size_t kAlign = 16;

static bool misaligned(const void *p) { return ((uintptr_t)p % kAlign) != 0; }

static bool view_misaligned(const Ctx *C, const tview *t)
{
    return misaligned(t->p) || (t->n > 1 && ((size_t)t->sstride * C->esz) % kAlign != 0);
}

/* A dense, aligned copy of a view's shape in stand-in buffer `which`, holding
 * the view's values when copy_in. */
static tview stage_view(Ctx *C, const tview *t, int which, bool copy_in)
{
    tview d = *t;
    int64_t per = (int64_t)(kAlign / C->esz), len = (int64_t)t->c * t->h * t->w;
    d.sstride = (len + per - 1) / per * per;
    ensure(C, &C->al[which], &C->al_bytes[which], (size_t)d.sstride * t->n * C->esz, "aligned stand-in");
    d.p = C->al[which];
    if (copy_in)
        copy_rows(C, d.p, (size_t)d.sstride * C->esz, t->p, (size_t)t->sstride * C->esz, (size_t)len * C->esz,
                  (size_t)t->n, cudaMemcpyDeviceToDevice);
    return d;
}

static void unstage_view(Ctx *C, const tview *staged, const tview *t)
{
    size_t len = (size_t)t->c * t->h * t->w;
    copy_rows(C, t->p, (size_t)t->sstride * C->esz, staged->p, (size_t)staged->sstride * C->esz, len * C->esz,
              (size_t)t->n, cudaMemcpyDeviceToDevice);
}

static void conv_run(Ctx *C, int op, const tview *X, const tview *Y, const void *w, void *dw, int k, int stride,
                     float beta);

/* One convolution call.  X is cuDNN's x (the convolution's input), Y its y.
 *   OP_FWD:        Y = conv(X, w)      (+ beta * Y)
 *   OP_BWD_DATA:   X = conv_T(Y, w)    (+ beta * X)
 *   OP_BWD_FILTER: dw = X (*) Y        (overwrite) */
static void conv_call(Ctx *C, int op, const tview *X, const tview *Y, const void *w, void *dw, int k,
                      int stride, float beta)
{
    CHECK(X->n == Y->n, "convolution: %d samples in, %d out", X->n, Y->n);
    if (stride == 1)
        CHECK(X->h == Y->h && X->w == Y->w, "convolution: image %dx%d in, %dx%d out", X->h, X->w, Y->h, Y->w);
    else
        CHECK(k == 1 && X->h == 2 * Y->h && X->w == 2 * Y->w, "stride-2 convolution shapes");
    if (tview_elems(X) == 0 || tview_elems(Y) == 0) return;
    bool x_out = op == OP_BWD_DATA, y_out = op == OP_FWD;
    bool xs = view_misaligned(C, X), ys = view_misaligned(C, Y);
    bool wst = w && misaligned(w), dwst = op == OP_BWD_FILTER && misaligned(dw);
    if (!xs && !ys && !wst && !dwst) {
        conv_run(C, op, X, Y, w, dw, k, stride, beta);
        return;
    }
    tview Xa = xs ? stage_view(C, X, AL_X, !x_out || beta != 0.0f) : *X;
    tview Ya = ys ? stage_view(C, Y, AL_Y, !y_out || beta != 0.0f) : *Y;
    size_t wbytes = (size_t)Y->c * X->c * k * k * C->esz;
    const void *wa = w;
    if (wst) {
        ensure(C, &C->al[AL_W], &C->al_bytes[AL_W], wbytes, "aligned stand-in");
        CK_CUDA(cudaMemcpyAsync(C->al[AL_W], w, wbytes, cudaMemcpyDeviceToDevice, C->s));
        wa = C->al[AL_W];
    }
    void *dwa = dw;
    if (dwst) {
        ensure(C, &C->al[AL_DW], &C->al_bytes[AL_DW], wbytes, "aligned stand-in");
        dwa = C->al[AL_DW];
    }
    conv_run(C, op, &Xa, &Ya, wa, dwa, k, stride, beta);
    if (xs && x_out) unstage_view(C, &Xa, X);
    if (ys && y_out) unstage_view(C, &Ya, Y);
    if (dwst) CK_CUDA(cudaMemcpyAsync(dw, dwa, wbytes, cudaMemcpyDeviceToDevice, C->s));
}

/* conv_call on operands cuDNN can take as they are. */
static void conv_run(Ctx *C, int op, const tview *X, const tview *Y, const void *w, void *dw, int k, int stride,
                     float beta)
{
    Conv *cv = conv_for(C, op, X, Y, k, stride);
    if (cv->algo < 0) tune(C, cv, X, w, Y, dw, beta != 0.0f);
    if (cv->ws) ensure(C, &C->ws, &C->ws_bytes, cv->ws, "cuDNN workspace");
    float one = 1.0f, zero = 0.0f;
    if (op == OP_FWD)
        CK_DNN(cudnnConvolutionForward(C->dnn, &one, cv->xd, X->p, cv->wd, w, cv->cd,
                                       (cudnnConvolutionFwdAlgo_t)cv->algo, C->ws, cv->ws, &beta, cv->yd, Y->p));
    else if (op == OP_BWD_DATA)
        CK_DNN(cudnnConvolutionBackwardData(C->dnn, &one, cv->wd, w, cv->yd, Y->p, cv->cd,
                                            (cudnnConvolutionBwdDataAlgo_t)cv->algo, C->ws, cv->ws, &beta,
                                            cv->xd, X->p));
    else
        CK_DNN(cudnnConvolutionBackwardFilter(C->dnn, &one, cv->xd, X->p, cv->yd, Y->p, cv->cd,
                                              (cudnnConvolutionBwdFilterAlgo_t)cv->algo, C->ws, cv->ws, &zero,
                                              cv->wd, dw));
}

/* The weight gradient into the fp32 gradient array: directly in fp32/tf32;
 * through a 16-bit buffer widened to fp32 in bf16/fp16 (cuDNN's filter
 * gradient has the data's type). */
static void filter_grad(Ctx *C, const tview *X, const tview *Y, int k, int stride, void *dw)
{
    if (C->elem == E_F32) {
        conv_call(C, OP_BWD_FILTER, X, Y, NULL, dw, k, stride, 0.0f);
        return;
    }
    int64_t n = (int64_t)X->c * Y->c * k * k;
    ensure(C, &C->dw16, &C->dw16_bytes, (size_t)n * C->esz, "16-bit weight gradient");
    conv_call(C, OP_BWD_FILTER, X, Y, NULL, C->dw16, k, stride, 0.0f);
    DISPATCH(C, to_f32_t, C, C->dw16, (float *)dw, n);
}

static void cu_conv_fwd(void *c, const tview *x, const void *w, int k, const tview *y)
{
    conv_call(ctx_of(c), OP_FWD, x, y, w, NULL, k, 1, 0.0f);
}

static void cu_conv_bwd_data(void *c, const tview *dy, const void *w, int k, const tview *dx)
{
    conv_call(ctx_of(c), OP_BWD_DATA, dx, dy, w, NULL, k, 1, 1.0f);
}

static void cu_conv_bwd_weights(void *c, const tview *x, const tview *dy, int k, void *dw)
{
    filter_grad(ctx_of(c), x, dy, k, 1, dw);
}

/* The transposed convolution through the stride-2 convolution C2 whose input
 * is the tconv's output (see the top of the file). */
static void cu_tconv_fwd(void *c, const tview *x, const void *w, const tview *y)
{
    conv_call(ctx_of(c), OP_BWD_DATA, y, x, w, NULL, 1, 2, 0.0f);
}

static void cu_tconv_bwd_data(void *c, const tview *dy, const void *w, const tview *dx)
{
    conv_call(ctx_of(c), OP_FWD, dy, dx, w, NULL, 1, 2, 1.0f);
}

static void cu_tconv_bwd_weights(void *c, const tview *x, const tview *dy, void *dw)
{
    filter_grad(ctx_of(c), dy, x, 1, 2, dw);
}

/* ---- the public interface ------------------------------------------------------------ */

extern "C" int kcu_device_count(char *why, size_t len)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        snprintf(why, len, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
        (void)cudaGetLastError();
        return 0;
    }
    if (n <= 0) snprintf(why, len, "cudaGetDeviceCount: 0 devices");
    return n > 0 ? n : 0;
}

static void version3(int v, char *buf, size_t len) /* 91900 -> 9.19.0 */
{
    snprintf(buf, len, "%d.%d.%d", v / 10000, (v / 100) % 100, v % 100);
}

static void version_cuda(int v, char *buf, size_t len) /* 13000 -> 13.0 */
{
    snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  ..." -> 580.65.06 */
static int kernel_driver(char *buf, size_t len)
{
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f) return -1;
    char line[512];
    int rc = -1;
    if (fgets(line, sizeof line, f)) {
        char *save = NULL;
        for (char *tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
            int dots = 0, digits = 1;
            for (const char *p = tok; *p; p++) {
                if (*p == '.') dots++;
                else if (*p < '0' || *p > '9') digits = 0;
            }
            if (digits && dots >= 1 && tok[0] != '.') {
                snprintf(buf, len, "%s", tok);
                rc = 0;
                break;
            }
        }
    }
    fclose(f);
    return rc;
}

extern "C" void kcu_device_describe(int device, kcu_device_info *d)
{
    memset(d, 0, sizeof *d);
    cudaDeviceProp p;
    CK_CUDA(cudaGetDeviceProperties(&p, device));
    snprintf(d->model, sizeof d->model, "%s", p.name);
    d->cc_major = p.major;
    d->cc_minor = p.minor;
    d->memory_bytes = (long long)p.totalGlobalMem;
    d->sm_count = p.multiProcessorCount;
    int rt = 0, drv = 0;
    CK_CUDA(cudaRuntimeGetVersion(&rt));
    CK_CUDA(cudaDriverGetVersion(&drv));
    version_cuda(rt, d->cuda_runtime, sizeof d->cuda_runtime);
    version_cuda(drv, d->cuda_driver, sizeof d->cuda_driver);
    if (kernel_driver(d->driver, sizeof d->driver))
        snprintf(d->driver, sizeof d->driver, "CUDA driver API %s", d->cuda_driver);
    version3((int)cudnnGetVersion(), d->cudnn, sizeof d->cudnn);
    int ma = 0, mi = 0, pa = 0;
    CK_BLAS(cublasGetProperty(MAJOR_VERSION, &ma));
    CK_BLAS(cublasGetProperty(MINOR_VERSION, &mi));
    CK_BLAS(cublasGetProperty(PATCH_LEVEL, &pa));
    snprintf(d->cublas, sizeof d->cublas, "%d.%d.%d", ma, mi, pa);
    int nv = 0;
    CK_NCCL(ncclGetVersion(&nv));
    version3(nv, d->nccl, sizeof d->nccl);
}

static void fill_ops(Ctx *C)
{
    kern_ops *o = &C->ops;
    memset(o, 0, sizeof *o);
    o->name = "cuda";
    o->conv_fwd = cu_conv_fwd;
    o->conv_bwd_data = cu_conv_bwd_data;
    o->conv_bwd_weights = cu_conv_bwd_weights;
    o->tconv_fwd = cu_tconv_fwd;
    o->tconv_bwd_data = cu_tconv_bwd_data;
    o->tconv_bwd_weights = cu_tconv_bwd_weights;
    o->bias_fwd = cu_bias_fwd;
    o->bias_bwd = cu_bias_bwd;
    o->relu_fwd = cu_relu_fwd;
    o->relu_bwd = cu_relu_bwd;
    o->pool_fwd = cu_pool_fwd;
    o->pool_bwd = cu_pool_bwd;
    o->l1_fwd = cu_l1_fwd;
    o->l1_bwd = cu_l1_bwd;
    o->adam = cu_adam;
    o->copy = cu_copy;
    o->add = cu_add;
    o->zero = cu_zero;
    o->act_bytes = C->esz;
    o->alloc = cu_alloc;
    o->release = cu_release;
    o->h2d = cu_h2d;
    o->d2h = cu_d2h;
    o->put_f32 = cu_put_f32;
    o->get_f32 = cu_get_f32;
    o->cast_params = cu_cast_params;
    o->sync = cu_sync;
    o->timer_start = cu_timer_start;
    o->timer_stop = cu_timer_stop;
    o->timer_flush = cu_timer_flush;
    o->grad_check = C->prec == P_FP16 ? cu_grad_check : NULL;
}

extern "C" void *kcu_create(const kcu_opts *o, char *err, size_t errlen)
{
    Prec prec;
    if (!strcmp(o->precision, "fp32")) prec = P_FP32;
    else if (!strcmp(o->precision, "tf32")) prec = P_TF32;
    else if (!strcmp(o->precision, "bf16")) prec = P_BF16;
    else if (!strcmp(o->precision, "fp16")) prec = P_FP16;
    else {
        snprintf(err, errlen, "--precision %s: the cuda backend runs fp32, tf32, bf16 or fp16", o->precision);
        return NULL;
    }
    const char *algo = o->algo ? o->algo : getenv("EXADL_CUDNN_ALGO");
    if (!algo || !*algo) algo = "find";
    if (strcmp(algo, "find") && strcmp(algo, "heuristic")) {
        snprintf(err, errlen, "EXADL_CUDNN_ALGO=%s: expected find or heuristic", algo);
        return NULL;
    }
    size_t cap = o->workspace_limit;
    if (!cap) {
        const char *mb = getenv("EXADL_CUDNN_WS_MB");
        if (mb && *mb) {
            char *end = NULL;
            long long v = strtoll(mb, &end, 10);
            if (*end || v < 0 || v > (1LL << 24)) {
                snprintf(err, errlen, "EXADL_CUDNN_WS_MB=%s: expected a number of MiB (0 to 16777216)", mb);
                return NULL;
            }
            cap = (size_t)v << 20;
        } else {
            cap = (size_t)8 << 30; /* gb2019 needs 12 GB for itself: an 80 GB GPU has room */
        }
    }
    Ctx *C = new Ctx();
    C->prec = prec;
    C->find = !strcmp(algo, "find");
    C->ws_cap = cap;
    C->device = o->device;
    switch (prec) {
    case P_FP32:
        C->elem = E_F32, C->dt = CUDNN_DATA_FLOAT, C->math_req = CUDNN_FMA_MATH;
        /* fp32 means fp32: no TF32 anywhere in this process (cuDNN, cuBLAS) */
        setenv("NVIDIA_TF32_OVERRIDE", "0", 1);
        C->tf32_disabled = 1;
        break;
    case P_TF32: C->elem = E_F32, C->dt = CUDNN_DATA_FLOAT, C->math_req = CUDNN_TENSOR_OP_MATH; break;
    case P_BF16: C->elem = E_BF16, C->dt = CUDNN_DATA_BFLOAT16, C->math_req = CUDNN_TENSOR_OP_MATH; break;
    case P_FP16: C->elem = E_F16, C->dt = CUDNN_DATA_HALF, C->math_req = CUDNN_TENSOR_OP_MATH; break;
    }
    C->esz = C->elem == E_F32 ? 4 : 2;
    /* PyTorch's GradScaler defaults */
    C->scale = C->scale_init = 65536.0;
    C->growth = 2.0;
    C->backoff = 0.5;
    C->growth_interval = 2000;

    CK_CUDA(cudaSetDevice(o->device));
    CK_CUDA(cudaFree(0)); /* create the context now, not inside the first timed call */
    cudaDeviceProp p;
    CK_CUDA(cudaGetDeviceProperties(&p, o->device));
    C->sm_count = p.multiProcessorCount;
    C->max_pitch = p.memPitch;
    C->total_mem = p.totalGlobalMem;
    CK_CUDA(cudaStreamCreateWithFlags(&C->s, cudaStreamNonBlocking));
    CK_DNN(cudnnCreate(&C->dnn));
    CK_DNN(cudnnSetStream(C->dnn, C->s));
    CK_BLAS(cublasCreate(&C->blas));
    CK_BLAS(cublasSetStream(C->blas, C->s));
    CK_CUDA(cudaMallocHost((void **)&C->h_loss, sizeof(double)));
    CK_CUDA(cudaMallocHost((void **)&C->h_flag, sizeof(int)));
    *C->h_flag = 0;
    C->d_part = (double *)dev_alloc(C, kPartials * sizeof(double));
    C->d_loss = (double *)dev_alloc(C, sizeof(double));
    C->d_flag = (int *)dev_alloc(C, sizeof(int));
    CHECK(C->d_part && C->d_loss && C->d_flag, "out of device memory at start-up");
    CK_CUDA(cudaMemsetAsync(C->d_flag, 0, sizeof(int), C->s));
    CK_CUDA(cudaStreamSynchronize(C->s));
    fill_ops(C);
    return C;
}

extern "C" const kern_ops *kcu_ops(void *ctx) { return &ctx_of(ctx)->ops; }

extern "C" void kcu_release(void *ctx)
{
    Ctx *C = ctx_of(ctx);
    if (!C) return;
    CK_CUDA(cudaDeviceSynchronize());
    for (Conv *cv : C->convs) {
        CK_DNN(cudnnDestroyTensorDescriptor(cv->xd));
        CK_DNN(cudnnDestroyTensorDescriptor(cv->yd));
        CK_DNN(cudnnDestroyFilterDescriptor(cv->wd));
        CK_DNN(cudnnDestroyConvolutionDescriptor(cv->cd));
        delete cv;
    }
    for (const Pending &p : C->pend) {
        C->evpool.push_back(p.a);
        C->evpool.push_back(p.b);
    }
    for (cudaEvent_t e : C->evdone) C->evpool.push_back(e);
    for (cudaEvent_t e : C->evpool) CK_CUDA(cudaEventDestroy(e));
    for (cudaEvent_t e : C->gs_ev) CK_CUDA(cudaEventDestroy(e));
    if (C->gs_fusion) CK_CUDA(cudaFree(C->gs_fusion));
    /* whatever the network did not give back */
    for (auto &a : C->allocs) CK_CUDA(cudaFree(a.first));
    CK_CUDA(cudaFreeHost(C->h_loss));
    CK_CUDA(cudaFreeHost(C->h_flag));
    if (C->has_nccl) CK_NCCL(ncclCommDestroy(C->nccl));
    CK_BLAS(cublasDestroy(C->blas));
    CK_DNN(cudnnDestroy(C->dnn));
    if (C->cs) CK_CUDA(cudaStreamDestroy(C->cs));
    CK_CUDA(cudaStreamDestroy(C->s));
    delete C;
}

/* ---- peak probe ------------------------------------------------------------------------ */

extern "C" double kcu_gemm_peak(void *ctx, const char *dtype, int size, int warmup, int reps)
{
    Ctx *C = ctx_of(ctx);
    cudaDataType_t ab, cd;
    cublasComputeType_t ct;
    size_t esz;
    if (!strcmp(dtype, "bf16")) ab = cd = CUDA_R_16BF, ct = CUBLAS_COMPUTE_32F, esz = 2;
    else if (!strcmp(dtype, "fp16")) ab = cd = CUDA_R_16F, ct = CUBLAS_COMPUTE_32F, esz = 2;
    else if (!strcmp(dtype, "tf32")) ab = cd = CUDA_R_32F, ct = CUBLAS_COMPUTE_32F_FAST_TF32, esz = 4;
    else if (!strcmp(dtype, "fp32")) ab = cd = CUDA_R_32F, ct = CUBLAS_COMPUTE_32F, esz = 4;
    else return 0;
    CHECK(size > 0 && reps > 0 && warmup >= 0, "peak probe: bad size or repetitions");
    int64_t n2 = (int64_t)size * size;
    void *m[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        cudaError_t e = cudaMalloc(&m[i], (size_t)n2 * esz);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            for (int j = 0; j < i; j++) CK_CUDA(cudaFree(m[j]));
            return 0; /* no room for the probe: the record says null */
        }
        if (esz == 2 && ab == CUDA_R_16BF)
            k_fill<__nv_bfloat16><<<blocks_for(C, n2), kThreads, 0, C->s>>>((__nv_bfloat16 *)m[i], n2, 17u + i);
        else if (esz == 2)
            k_fill<__half><<<blocks_for(C, n2), kThreads, 0, C->s>>>((__half *)m[i], n2, 17u + i);
        else
            k_fill<float><<<blocks_for(C, n2), kThreads, 0, C->s>>>((float *)m[i], n2, 17u + i);
        CK_LAUNCH("k_fill");
    }
    float alpha = 1.0f, beta = 0.0f;
    auto gemm = [&]() {
        CK_BLAS(cublasGemmEx(C->blas, CUBLAS_OP_N, CUBLAS_OP_N, size, size, size, &alpha, m[0], ab, size,
                             m[1], ab, size, &beta, m[2], cd, size, ct, CUBLAS_GEMM_DEFAULT));
    };
    for (int i = 0; i < warmup; i++) gemm();
    std::vector<cudaEvent_t> ev(2 * (size_t)reps);
    for (auto &e : ev) CK_CUDA(cudaEventCreate(&e));
    for (int i = 0; i < reps; i++) {
        CK_CUDA(cudaEventRecord(ev[2 * i], C->s));
        gemm();
        CK_CUDA(cudaEventRecord(ev[2 * i + 1], C->s));
    }
    CK_CUDA(cudaStreamSynchronize(C->s));
    std::vector<double> t((size_t)reps);
    for (int i = 0; i < reps; i++) {
        float ms = 0;
        CK_CUDA(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
        t[i] = ms * 1e-3;
    }
    for (auto &e : ev) CK_CUDA(cudaEventDestroy(e));
    for (int i = 0; i < 3; i++) CK_CUDA(cudaFree(m[i]));
    std::sort(t.begin(), t.end());
    double med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    return med > 0 ? 2.0 * (double)size * size * size / med : 0;
}

/* ---- NCCL ---------------------------------------------------------------------------------- */

extern "C" void kcu_nccl_unique_id(char id[KCU_NCCL_ID_BYTES])
{
    static_assert(sizeof(ncclUniqueId) == KCU_NCCL_ID_BYTES, "NCCL id size");
    ncclUniqueId u;
    CK_NCCL(ncclGetUniqueId(&u));
    memcpy(id, &u, sizeof u);
}

extern "C" void kcu_nccl_init(void *ctx, const char id[KCU_NCCL_ID_BYTES], int nranks, int rank)
{
    Ctx *C = ctx_of(ctx);
    ncclUniqueId u;
    memcpy(&u, id, sizeof u);
    CK_CUDA(cudaSetDevice(C->device));
    CK_NCCL(ncclCommInitRank(&C->nccl, nranks, u, rank));
    C->has_nccl = 1;
    /* the reductions get the higher priority: they are on the critical path at
     * the end of backward and take few multiprocessors */
    int lo = 0, hi = 0;
    CK_CUDA(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    CK_CUDA(cudaStreamCreateWithPriority(&C->cs, cudaStreamNonBlocking, hi));
}

extern "C" void kcu_gs_prepare(void *ctx, int nslots)
{
    Ctx *C = ctx_of(ctx);
    CHECK(C->has_nccl, "NCCL transport used before kcu_nccl_init");
    while ((int)C->gs_ev.size() < nslots) {
        cudaEvent_t e;
        CK_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        C->gs_ev.push_back(e);
    }
}

extern "C" void kcu_gs_mark(void *ctx, int slot)
{
    Ctx *C = ctx_of(ctx);
    CHECK(slot >= 0 && slot < (int)C->gs_ev.size(), "gradient slot %d of %zu", slot, C->gs_ev.size());
    CK_CUDA(cudaEventRecord(C->gs_ev[(size_t)slot], C->s));
}

extern "C" void kcu_gs_thread_init(void *ctx)
{
    CK_CUDA(cudaSetDevice(ctx_of(ctx)->device));
}

extern "C" void kcu_gs_allreduce(void *ctx, float *const *bufs, const int64_t *counts,
                                 const int *slots, int n)
{
    Ctx *C = ctx_of(ctx);
    /* as Horovod does: wait on the host until the gradients exist, so that the
     * reduction's start time (taken by gsync) is when it really starts */
    for (int i = 0; i < n; i++) CK_CUDA(cudaEventSynchronize(C->gs_ev[(size_t)slots[i]]));
    std::vector<std::pair<float *, int64_t>> sp((size_t)n);
    int64_t total = 0;
    for (int i = 0; i < n; i++) sp[(size_t)i] = {bufs[i], counts[i]}, total += counts[i];
    std::sort(sp.begin(), sp.end());
    bool contiguous = true;
    for (size_t i = 1; i < sp.size(); i++) contiguous &= sp[i - 1].first + sp[i - 1].second == sp[i].first;
    if (contiguous) {
        CK_NCCL(ncclAllReduce(sp[0].first, sp[0].first, (size_t)total, ncclFloat32, ncclSum, C->nccl, C->cs));
    } else {
        if ((size_t)total > C->gs_fusion_elems) {
            if (C->gs_fusion) CK_CUDA(cudaFree(C->gs_fusion));
            CK_CUDA(cudaMalloc(&C->gs_fusion, (size_t)total * sizeof(float)));
            C->gs_fusion_elems = (size_t)total;
        }
        int64_t off = 0;
        for (auto &x : sp) {
            CK_CUDA(cudaMemcpyAsync(C->gs_fusion + off, x.first, (size_t)x.second * sizeof(float),
                                    cudaMemcpyDeviceToDevice, C->cs));
            off += x.second;
        }
        CK_NCCL(ncclAllReduce(C->gs_fusion, C->gs_fusion, (size_t)total, ncclFloat32, ncclSum, C->nccl, C->cs));
        off = 0;
        for (auto &x : sp) {
            CK_CUDA(cudaMemcpyAsync(x.first, C->gs_fusion + off, (size_t)x.second * sizeof(float),
                                    cudaMemcpyDeviceToDevice, C->cs));
            off += x.second;
        }
    }
    CK_CUDA(cudaStreamSynchronize(C->cs));
}

/* ---- statistics --------------------------------------------------------------------------- */

extern "C" void kcu_get_stats(void *ctx, kcu_stats *s)
{
    Ctx *C = ctx_of(ctx);
    memset(s, 0, sizeof *s);
    s->precision = prec_name(C->prec);
    s->algo = C->find ? "find" : "heuristic";
    s->workspace_bytes = C->ws_need;
    s->workspace_limit = C->ws_cap;
    s->conv_problems = (int)C->convs.size();
    s->tune_s = C->tune_s;
    s->alloc_peak_bytes = C->alloc_peak;
    s->used_peak_bytes = C->used_peak;
    s->total_bytes = C->total_mem;
    s->tf32_disabled = C->tf32_disabled;
    s->loss_scaling = C->prec == P_FP16;
    s->scale_init = C->scale_init;
    s->scale_final = C->scale;
    s->growth_factor = C->growth;
    s->backoff_factor = C->backoff;
    s->growth_interval = C->growth_interval;
    s->checked_steps = C->checked;
    s->skipped_steps = C->skipped;
}

extern "C" int kcu_conv_choice_get(void *ctx, int i, kcu_conv_choice *c)
{
    Ctx *C = ctx_of(ctx);
    if (i < 0 || i >= (int)C->convs.size()) return -1;
    const Conv *cv = C->convs[(size_t)i];
    memset(c, 0, sizeof *c);
    snprintf(c->op, sizeof c->op, "%s", op_name(cv->g.op));
    c->n = cv->g.n;
    c->xc = cv->g.xc, c->xh = cv->g.xh, c->xw = cv->g.xw;
    c->yc = cv->g.yc, c->yh = cv->g.yh, c->yw = cv->g.yw;
    c->k = cv->g.k;
    c->stride = cv->g.stride;
    c->algo = cv->algo;
    snprintf(c->math, sizeof c->math, "%s", math_name(cv->math));
    c->ws_bytes = cv->ws;
    c->time_ms = cv->time_ms;
    return 0;
}
