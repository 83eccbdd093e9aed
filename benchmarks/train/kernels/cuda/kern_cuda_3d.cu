/* kern_cuda_3d.cu: the 3D kernels of the CUDA set (kern.h "3D kernels",
 * docs/cosmoflow.md) other than the convolutions (kern_cuda_conv3d.cu): the
 * dense layers on cuBLAS (GemmEx: 16-bit operands, fp32 accumulation and
 * fp32 weight gradients), and pooling, leaky ReLU, bias, loss and strided
 * copies as kernels over the 5-D index space.  The MSE gradient carries the
 * fp16 loss scale.
 *
 * Compiled wherever CUDA is found; run only on a GPU (tests skip elsewhere). */
#include "benchmarks/train/kernels/cuda/kern_cuda_impl.h"
#include "benchmarks/train/kernels/cuda/kern_cuda_policy.h"

/* ---- the 5-D index space ------------------------------------------------------- */

struct V5 {
    char *p;
    int n, c, d, h, w;
    long long sn, sc, sd, sh, sw;
};

static V5 v5(const t3view *t)
{
    V5 v = {(char *)t->p, t->n, t->c, t->d, t->h, t->w, t->sn, t->sc, t->sd, t->sh, t->sw};
    return v;
}

/* Element e of the view's (n, c, d, h, w) order, as an offset in elements. */
__device__ __forceinline__ long long off5(const V5 &v, long long e, int *ch)
{
    int x = (int)(e % v.w);
    e /= v.w;
    int y = (int)(e % v.h);
    e /= v.h;
    int z = (int)(e % v.d);
    e /= v.d;
    int c = (int)(e % v.c);
    int i = (int)(e / v.c);
    if (ch) *ch = c;
    return i * v.sn + c * v.sc + z * v.sd + y * v.sh + x * v.sw;
}

static long long elems5(const V5 &v) { return (long long)v.n * v.c * v.d * v.h * v.w; }

#define GRID_LOOP(e, total) \
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < (total); e += (long long)gridDim.x * blockDim.x)

template <typename T> __global__ void k_copy3d(V5 s, V5 d, long long total)
{
    GRID_LOOP(e, total) ((T *)d.p)[off5(d, e, NULL)] = ((const T *)s.p)[off5(s, e, NULL)];
}

template <typename T> __global__ void k_lrelu_fwd(V5 x, V5 y, float slope, long long total)
{
    GRID_LOOP(e, total)
    {
        float v = tof(((const T *)x.p)[off5(x, e, NULL)]), m = slope * v;
        ((T *)y.p)[off5(y, e, NULL)] = fromf<T>(v > 0 ? v : m);
    }
}

template <typename T> __global__ void k_lrelu_bwd(V5 y, V5 dy, V5 dx, float slope, long long total)
{
    GRID_LOOP(e, total)
    {
        float g = tof(((const T *)dy.p)[off5(dy, e, NULL)]), m = slope * g;
        ((T *)dx.p)[off5(dx, e, NULL)] = fromf<T>(tof(((const T *)y.p)[off5(y, e, NULL)]) > 0 ? g : m);
    }
}

template <typename T> __global__ void k_bias3d_fwd(V5 y, const T *b, long long total)
{
    GRID_LOOP(e, total)
    {
        int c;
        long long o = off5(y, e, &c);
        ((T *)y.p)[o] = fromf<T>(tof(((T *)y.p)[o]) + tof(b[c]));
    }
}

/* One block per channel: the sum over n, d, h, w in double. */
template <typename T> __global__ void k_bias3d_bwd(V5 dy, float *db)
{
    __shared__ double part[kThreads];
    int c = blockIdx.x;
    long long per = (long long)dy.n * dy.d * dy.h * dy.w;
    double acc = 0;
    for (long long e = threadIdx.x; e < per; e += blockDim.x) {
        long long r = e;
        int x = (int)(r % dy.w);
        r /= dy.w;
        int y = (int)(r % dy.h);
        r /= dy.h;
        int z = (int)(r % dy.d);
        int i = (int)(r / dy.d);
        acc += tof(((const T *)dy.p)[i * dy.sn + c * dy.sc + z * dy.sd + y * dy.sh + x * dy.sw]);
    }
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if ((int)threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) db[c] = (float)part[0];
}

/* The window of pooled element e: its first maximum (z, y, x order). */
template <typename T> __device__ __forceinline__ int window_first_max(const V5 &x, long long base)
{
    float m = tof(((const T *)x.p)[base]);
    int at = 0;
    for (int j = 1; j < 8; j++) {
        float v = tof(((const T *)x.p)[base + (j >> 2) * x.sd + ((j >> 1) & 1) * x.sh + (j & 1) * x.sw]);
        if (v > m) m = v, at = j;
    }
    return at;
}

/* Offset in x of the window's first voxel for pooled element e of y. */
__device__ __forceinline__ long long window_base(const V5 &y, const V5 &x, long long e)
{
    int q = (int)(e % y.w);
    e /= y.w;
    int r = (int)(e % y.h);
    e /= y.h;
    int z = (int)(e % y.d);
    e /= y.d;
    int c = (int)(e % y.c);
    int i = (int)(e / y.c);
    return i * x.sn + c * x.sc + 2LL * z * x.sd + 2LL * r * x.sh + 2LL * q * x.sw;
}

template <typename T> __global__ void k_pool3d_fwd(V5 x, V5 y, long long total)
{
    GRID_LOOP(e, total)
    {
        long long b = window_base(y, x, e);
        int at = window_first_max<T>(x, b);
        ((T *)y.p)[off5(y, e, NULL)] =
            ((const T *)x.p)[b + (at >> 2) * x.sd + ((at >> 1) & 1) * x.sh + (at & 1) * x.sw];
    }
}

template <typename T> __global__ void k_pool3d_bwd(V5 x, V5 dy, V5 dx, long long total)
{
    GRID_LOOP(e, total)
    {
        long long b = window_base(dy, x, e), bd = window_base(dy, dx, e);
        int at = window_first_max<T>(x, b);
        T g = ((const T *)dy.p)[off5(dy, e, NULL)];
        for (int j = 0; j < 8; j++)
            ((T *)dx.p)[bd + (j >> 2) * dx.sd + ((j >> 1) & 1) * dx.sh + (j & 1) * dx.sw] =
                j == at ? g : fromf<T>(0.0f);
    }
}

template <typename T> __global__ void k_mse_partial(const T *y, const T *t, long long n, double *part)
{
    __shared__ double s[kThreads];
    double acc = 0;
    GRID_LOOP(e, n)
    {
        double d = (double)tof(y[e]) - tof(t[e]);
        acc += d * d;
    }
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k /= 2) {
        if ((int)threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) part[blockIdx.x] = s[0];
}

__global__ void k_mse_sum(const double *part, int n, double *out)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        double s = 0;
        for (int i = 0; i < n; i++) s += part[i];
        *out = s;
    }
}

template <typename T> __global__ void k_mse_bwd(const T *y, const T *t, long long n, double s, T *dy)
{
    GRID_LOOP(e, n) dy[e] = fromf<T>((float)(((double)tof(y[e]) - tof(t[e])) * s));
}

/* ---- launches over the element type ----------------------------------------------- */

template <typename T> static void copy_t(Ctx *C, const t3view *s, const t3view *d)
{
    V5 a = v5(s), b = v5(d);
    long long n = elems5(a);
    if (!n) return;
    k_copy3d<T><<<blocks_for(C, n), kThreads, 0, C->s>>>(a, b, n);
    CK_LAUNCH("k_copy3d");
}
template <typename T> static void lrelu_fwd_t(Ctx *C, const t3view *x, const t3view *y, float s)
{
    V5 a = v5(x), b = v5(y);
    long long n = elems5(a);
    if (!n) return;
    k_lrelu_fwd<T><<<blocks_for(C, n), kThreads, 0, C->s>>>(a, b, s, n);
    CK_LAUNCH("k_lrelu_fwd");
}
template <typename T> static void lrelu_bwd_t(Ctx *C, const t3view *y, const t3view *dy, const t3view *dx, float s)
{
    V5 a = v5(y), g = v5(dy), b = v5(dx);
    long long n = elems5(a);
    if (!n) return;
    k_lrelu_bwd<T><<<blocks_for(C, n), kThreads, 0, C->s>>>(a, g, b, s, n);
    CK_LAUNCH("k_lrelu_bwd");
}
template <typename T> static void bias_fwd_t(Ctx *C, const t3view *y, const void *b)
{
    V5 a = v5(y);
    long long n = elems5(a);
    if (!n) return;
    k_bias3d_fwd<T><<<blocks_for(C, n), kThreads, 0, C->s>>>(a, (const T *)b, n);
    CK_LAUNCH("k_bias3d_fwd");
}
template <typename T> static void bias_bwd_t(Ctx *C, const t3view *dy, void *db)
{
    if (dy->c == 0) return;
    k_bias3d_bwd<T><<<dy->c, kThreads, 0, C->s>>>(v5(dy), (float *)db);
    CK_LAUNCH("k_bias3d_bwd");
}
template <typename T> static void pool_fwd_t(Ctx *C, const t3view *x, const t3view *y)
{
    V5 a = v5(x), b = v5(y);
    long long n = elems5(b);
    if (!n) return;
    k_pool3d_fwd<T><<<blocks_for(C, n), kThreads, 0, C->s>>>(a, b, n);
    CK_LAUNCH("k_pool3d_fwd");
}
template <typename T> static void pool_bwd_t(Ctx *C, const t3view *x, const t3view *dy, const t3view *dx)
{
    V5 a = v5(x), g = v5(dy), b = v5(dx);
    long long n = elems5(g);
    if (!n) return;
    k_pool3d_bwd<T><<<blocks_for(C, n), kThreads, 0, C->s>>>(a, g, b, n);
    CK_LAUNCH("k_pool3d_bwd");
}
template <typename T> static void mse_fwd_t(Ctx *C, const void *y, const void *t, int64_t n)
{
    k_mse_partial<T><<<kPartials, kThreads, 0, C->s>>>((const T *)y, (const T *)t, n, C->d_part);
    CK_LAUNCH("k_mse_partial");
}
/* dy = 2 (y - t) / n, times the fp16 loss scale that Adam and Lion divide
 * out (kcu_mse_grad_factor; the L1 and cross-entropy losses carry it too). */
template <typename T> static void mse_bwd_t(Ctx *C, const void *y, const void *t, int64_t n, void *dy)
{
    if (!n) return;
    double f = kcu_mse_grad_factor(policy_prec(C->prec), C->scale, n);
    k_mse_bwd<T><<<blocks_for(C, n), kThreads, 0, C->s>>>((const T *)y, (const T *)t, n, f, (T *)dy);
    CK_LAUNCH("k_mse_bwd");
}

void kcu_op_copy3d(void *c, const t3view *s, const t3view *d) { Ctx *C = ctx_of(c); DISPATCH(C, copy_t, C, s, d); }
static void op_lrelu_fwd(void *c, const t3view *x, const t3view *y, float s) { Ctx *C = ctx_of(c); DISPATCH(C, lrelu_fwd_t, C, x, y, s); }
static void op_lrelu_bwd(void *c, const t3view *y, const t3view *dy, const t3view *dx, float s)
{
    Ctx *C = ctx_of(c);
    DISPATCH(C, lrelu_bwd_t, C, y, dy, dx, s);
}
static void op_bias3d_fwd(void *c, const t3view *y, const void *b) { Ctx *C = ctx_of(c); DISPATCH(C, bias_fwd_t, C, y, b); }
static void op_bias3d_bwd(void *c, const t3view *dy, void *db) { Ctx *C = ctx_of(c); DISPATCH(C, bias_bwd_t, C, dy, db); }
static void op_pool3d_fwd(void *c, const t3view *x, const t3view *y) { Ctx *C = ctx_of(c); DISPATCH(C, pool_fwd_t, C, x, y); }
static void op_pool3d_bwd(void *c, const t3view *x, const t3view *dy, const t3view *dx)
{
    Ctx *C = ctx_of(c);
    DISPATCH(C, pool_bwd_t, C, x, dy, dx);
}

static double op_mse_fwd(void *c, const void *y, const void *t, int64_t n)
{
    Ctx *C = ctx_of(c);
    if (n == 0) return 0;
    DISPATCH(C, mse_fwd_t, C, y, t, n);
    k_mse_sum<<<1, 1, 0, C->s>>>(C->d_part, kPartials, C->d_loss);
    CK_LAUNCH("k_mse_sum");
    CK_CUDA(cudaMemcpyAsync(C->h_loss, C->d_loss, sizeof(double), cudaMemcpyDeviceToHost, C->s));
    /* the interface returns the loss: the host waits for the forward pass here */
    CK_CUDA(cudaStreamSynchronize(C->s));
    return *C->h_loss * (1.0 / (double)n);
}

static void op_mse_bwd(void *c, const void *y, const void *t, int64_t n, void *dy)
{
    Ctx *C = ctx_of(c);
    DISPATCH(C, mse_bwd_t, C, y, t, n, dy);
}

/* ---- dense layers on cuBLAS (row-major through the transposes) --------------------- */

static cudaDataType_t blas_type(const Ctx *C)
{
    return C->elem == E_F32 ? CUDA_R_32F : C->elem == E_BF16 ? CUDA_R_16BF : CUDA_R_16F;
}

/* Column-major C (m x n) = op(A) op(B), fp32 accumulation; C of type ct. */
static void gemm(Ctx *C, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const void *A, int lda,
                 const void *B, int ldb, void *Cm, cudaDataType_t ct, int ldc)
{
    if (m == 0 || n == 0) return;
    float one = 1.0f, zero = 0.0f;
    cudaDataType_t t = blas_type(C);
    CK_BLAS(cublasGemmEx(C->blas, ta, tb, m, n, k, &one, A, t, lda, B, t, ldb, &zero, Cm, ct, ldc,
                         CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

/* Row-major x [n][in], w [out][in]: in column-major terms x' = x^T (in x n),
 * w' = w^T (in x out), y' = y^T (out x n). */
static void op_dense_fwd(void *c, const void *x, const void *w, int n, int in, int out, void *y)
{
    Ctx *C = ctx_of(c); /* y' = w'^T x' */
    gemm(C, CUBLAS_OP_T, CUBLAS_OP_N, out, n, in, w, in, x, in, y, blas_type(C), out);
}

static void op_dense_bwd_data(void *c, const void *dy, const void *w, int n, int in, int out, void *dx)
{
    Ctx *C = ctx_of(c); /* dx' = w' dy' */
    gemm(C, CUBLAS_OP_N, CUBLAS_OP_N, in, n, out, w, in, dy, out, dx, blas_type(C), in);
}

static void op_dense_bwd_weights(void *c, const void *x, const void *dy, int n, int in, int out, void *dw)
{
    Ctx *C = ctx_of(c); /* dw' = x' dy'^T, straight into the fp32 gradient */
    gemm(C, CUBLAS_OP_N, CUBLAS_OP_T, in, out, n, x, in, dy, out, dw, CUDA_R_32F, in);
}

void kcu_fill_3d(kern_ops *o)
{
    kcu_fill_conv3d(o);
    o->pool3d_fwd = op_pool3d_fwd;
    o->pool3d_bwd = op_pool3d_bwd;
    o->lrelu_fwd = op_lrelu_fwd;
    o->lrelu_bwd = op_lrelu_bwd;
    o->bias3d_fwd = op_bias3d_fwd;
    o->bias3d_bwd = op_bias3d_bwd;
    o->dense_fwd = op_dense_fwd;
    o->dense_bwd_data = op_dense_bwd_data;
    o->dense_bwd_weights = op_dense_bwd_weights;
    o->mse_fwd = op_mse_fwd;
    o->mse_bwd = op_mse_bwd;
    o->copy3d = kcu_op_copy3d;
}
