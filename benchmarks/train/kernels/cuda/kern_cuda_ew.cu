/* kern_cuda_ew.cu: the CUDA set's own kernels (everything but the
 * convolutions): ReLU, bias, pooling, the L1 loss, Adam, element-wise add,
 * dtype conversions, the fp16 overflow check. */
#include <algorithm>
#include <cmath>

#include "benchmarks/train/kernels/cuda/kern_cuda_impl.h"
#include "benchmarks/train/kernels/kern_hyper.h"

static void check_grid(int n, int c)
{
    CHECK(n >= 1 && n <= 65535 && c >= 0 && c <= 65535,
          "tensor of %d samples x %d channels: the CUDA kernels take at most 65535 of each", n, c);
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

/* The conversions for the other files of the set (kern_cuda_impl.h). */
void kcu_from_f32(Ctx *C, const float *src, void *dst, int64_t n) { DISPATCH(C, from_f32_t, C, src, dst, n); }
void kcu_to_f32(Ctx *C, const void *src, float *dst, int64_t n) { DISPATCH(C, to_f32_t, C, src, dst, n); }

/* ---- kern_ops: the simple kernels ----------------------------------------------- */

void kcu_op_relu_fwd(void *c, const tview *x, const tview *y) { Ctx *C = ctx_of(c); DISPATCH(C, relu_fwd_t, C, x, y); }
void kcu_op_relu_bwd(void *c, const tview *x, const tview *dy, const tview *dx) { Ctx *C = ctx_of(c); DISPATCH(C, relu_bwd_t, C, x, dy, dx); }
void kcu_op_add(void *c, const tview *src, const tview *dst) { Ctx *C = ctx_of(c); DISPATCH(C, add_t, C, src, dst); }
void kcu_op_bias_fwd(void *c, const tview *y, const void *b) { Ctx *C = ctx_of(c); DISPATCH(C, bias_fwd_t, C, y, b); }
void kcu_op_bias_bwd(void *c, const tview *dy, void *db) { Ctx *C = ctx_of(c); DISPATCH(C, bias_bwd_t, C, dy, db); }
void kcu_op_pool_fwd(void *c, const tview *x, const tview *y) { Ctx *C = ctx_of(c); DISPATCH(C, pool_fwd_t, C, x, y); }
void kcu_op_pool_bwd(void *c, const tview *dy, const tview *dx) { Ctx *C = ctx_of(c); DISPATCH(C, pool_bwd_t, C, dy, dx); }

double kcu_op_l1_fwd(void *c, const tview *y, const tview *t)
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

void kcu_op_l1_bwd(void *c, const tview *y, const tview *t, const tview *dy)
{
    Ctx *C = ctx_of(c);
    /* fp16: the loss gradient carries the loss scale (dynamic loss scaling) */
    float s = (float)(loss_grad_scale(C) / (double)tview_elems(y));
    DISPATCH(C, l1_bwd_t, C, y, t, dy, s);
}

void kcu_op_adam(void *c, float *master, void *w_compute, const void *g, float *m, float *v,
                 int64_t n, const adam_hyper *h)
{
    Ctx *C = ctx_of(c);
    if (n <= 0) return;
    double scale = C->prec == P_FP16 ? C->scale : 1.0;
    /* a step skipped for overflow does not advance Adam's step count (as PyTorch's GradScaler) */
    int64_t step = h->step - (C->prec == P_FP16 ? C->skipped : 0);
    if (step < 1) step = 1;
    const kern_adam_f32 f = kern_hyper_adam(h, step);
    const float lr_t = f.lr_t, eps_t = f.eps_t;
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
void kcu_op_grad_check(void *c, const float *grads, int64_t n)
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
