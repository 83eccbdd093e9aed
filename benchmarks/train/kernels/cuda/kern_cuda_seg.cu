/* kern_cuda_seg.cu: the segmentation kernels of the CUDA set (kern.h
 * "segmentation kernels", docs/climate.md "CUDA"), but the dilated and
 * grouped convolutions, which share kern_cuda_conv.cu's cuDNN machinery:
 *
 *   bn_fwd / bn_bwd   cudnnBatchNormalizationForwardTraining / Backward,
 *                     CUDNN_BATCHNORM_SPATIAL (per channel over n, h, w), the
 *                     statistics of this call's samples (per rank, as the CPU
 *                     sets); no running averages (factor 0, NULL: the
 *                     interface has none, as the reference set's)
 *   wce_fwd / wce_bwd per-pixel weighted cross-entropy, small kernels
 *   gpool / bcast     image-level pooling and its broadcast, small kernels
 *
 * Batch norm's statistics follow the reference set exactly: the forward
 * hands back mean and the biased variance; cuDNN saves the mean and
 * 1/sqrt(var + eps), so the variance is recovered as 1/inv^2 - eps (in
 * double), and the backward turns it back into cuDNN's saved inverse
 * (same eps): the round trip returns cuDNN's own value to within fp32
 * rounding.  cuDNN's legacy batch norm wants packed NCHW tensors; a channel
 * window (sstride > c h w) or a misaligned one goes through a dense aligned
 * copy.  Its scale, bias and statistics are fp32 for every data type, in
 * aligned slots of a scratch buffer (bf16/fp16 gamma and beta widened into
 * them; the network's arrays lie at any float offset).  In fp16 the loss
 * gradient carries the dynamic loss scale, as the L1 loss's does
 * (kern_cuda_ew.cu). */
#include "benchmarks/train/kernels/cuda/kern_cuda_impl.h"

struct CudaSeg {
    void *buf[3];    /* dense stand-ins for windowed views */
    size_t bytes[3];
    void *par;       /* the per-channel fp32 arrays, aligned (ParSlot) */
    size_t par_bytes;
};

static CudaSeg *seg_of(Ctx *C)
{
    if (!C->seg) C->seg = new CudaSeg();
    return C->seg;
}

void kcu_release_seg(Ctx *C)
{
    CudaSeg *S = C->seg;
    if (!S) return;
    for (int i = 0; i < 3; i++) kcu_dev_free(C, S->buf[i]);
    kcu_dev_free(C, S->par);
    delete S;
    C->seg = NULL;
}

/* ---- batch normalisation through cuDNN ---------------------------------------- */

/* Packed and 16-byte aligned (the alignment kern_cuda_conv.cu gives cuDNN). */
static bool dense_view(const tview *t)
{
    return ((uintptr_t)t->p % 16) == 0 && (t->n <= 1 || t->sstride == (int64_t)t->c * t->h * t->w);
}

/* t itself when packed and aligned, else a packed copy in stand-in `which`
 * (holding t's values when copy_in). */
static tview packed(Ctx *C, const tview *t, int which, bool copy_in)
{
    if (dense_view(t)) return *t;
    CudaSeg *S = seg_of(C);
    tview d = *t;
    size_t len = (size_t)t->c * t->h * t->w;
    d.sstride = (int64_t)len;
    kcu_ensure(C, &S->buf[which], &S->bytes[which], len * (size_t)t->n * C->esz, "batch-norm stand-in");
    d.p = S->buf[which];
    if (copy_in)
        kcu_copy_rows(C, d.p, len * C->esz, t->p, (size_t)t->sstride * C->esz, len * C->esz, (size_t)t->n,
                      cudaMemcpyDeviceToDevice);
    return d;
}

static void unpack(Ctx *C, const tview *d, const tview *t)
{
    if (d->p == t->p) return;
    size_t len = (size_t)t->c * t->h * t->w;
    kcu_copy_rows(C, t->p, (size_t)t->sstride * C->esz, d->p, len * C->esz, len * C->esz, (size_t)t->n,
                  cudaMemcpyDeviceToDevice);
}

/* The data descriptor (packed NCHW) and the derived 1 x c x 1 x 1 one. */
struct BnDesc {
    cudnnTensorDescriptor_t x, p;
    BnDesc(Ctx *C, const tview *t)
    {
        CK_DNN(cudnnCreateTensorDescriptor(&x));
        CK_DNN(cudnnCreateTensorDescriptor(&p));
        CK_DNN(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, C->dt, t->n, t->c, t->h, t->w));
        CK_DNN(cudnnDeriveBNTensorDescriptor(p, x, CUDNN_BATCHNORM_SPATIAL));
    }
    ~BnDesc()
    {
        CK_DNN(cudnnDestroyTensorDescriptor(p));
        CK_DNN(cudnnDestroyTensorDescriptor(x));
    }
};

__global__ void k_inv_to_var(const float *inv, float eps, float *var, int c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= c) return;
    double r = inv[i];
    double v = 1.0 / (r * r) - (double)eps;
    var[i] = (float)(v > 0 ? v : 0);
}

__global__ void k_var_to_inv(const float *var, float eps, float *inv, int c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= c) return;
    inv[i] = (float)(1.0 / sqrt((double)var[i] + (double)eps));
}

/* The per-channel arrays cuDNN reads and writes, each in its own 16-byte
 * aligned slot of one scratch buffer: the network's gamma, beta, statistics
 * and parameter gradients lie at any float offset of its flat arrays, so
 * they are copied in and out (c floats each: nothing next to a map). */
enum ParSlot { PS_GAMMA, PS_BETA, PS_INV, PS_MEAN, PS_DGAMMA, PS_DBETA, PS_COUNT };

static float *bn_slots(Ctx *C, int c, int64_t *stride)
{
    CudaSeg *S = seg_of(C);
    *stride = ((int64_t)c + 3) / 4 * 4;
    kcu_ensure(C, &S->par, &S->par_bytes, (size_t)(PS_COUNT * *stride) * sizeof(float), "batch-norm parameters");
    return (float *)S->par;
}

/* n values in the compute type (gamma, beta) into an fp32 slot */
static void param_in(Ctx *C, const void *src, float *dst, int n)
{
    if (C->elem == E_F32)
        CK_CUDA(cudaMemcpyAsync(dst, src, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice, C->s));
    else
        kcu_to_f32(C, src, dst, n);
}

static void copy_f32(Ctx *C, float *dst, const float *src, int n)
{
    CK_CUDA(cudaMemcpyAsync(dst, src, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice, C->s));
}

static void check_bn(const tview *a, const tview *b, const float *mean, const float *var, float eps)
{
    CHECK(a->n == b->n && a->c == b->c && a->h == b->h && a->w == b->w,
          "batch norm: shapes %dx%dx%dx%d and %dx%dx%dx%d differ", a->n, a->c, a->h, a->w, b->n, b->c, b->h,
          b->w);
    CHECK(mean && var, "batch norm: the CUDA set needs device buffers for the statistics");
    CHECK(eps >= CUDNN_BN_MIN_EPSILON, "batch norm: epsilon %g below cuDNN's minimum %g", (double)eps,
          (double)CUDNN_BN_MIN_EPSILON);
}

static void op_bn_fwd(void *c, const tview *x, const void *gamma, const void *beta, float eps, float *mean,
                      float *var, const tview *y)
{
    Ctx *C = ctx_of(c);
    check_bn(x, y, mean, var, eps);
    if (tview_elems(x) == 0) return;
    int nc = x->c;
    int64_t st;
    float *P = bn_slots(C, nc, &st);
    param_in(C, gamma, P + PS_GAMMA * st, nc);
    param_in(C, beta, P + PS_BETA * st, nc);
    tview X = packed(C, x, 0, true), Y = packed(C, y, 1, false);
    BnDesc d(C, &X);
    float one = 1.0f, zero = 0.0f;
    CK_DNN(cudnnBatchNormalizationForwardTraining(C->dnn, CUDNN_BATCHNORM_SPATIAL, &one, &zero, d.x, X.p, d.x, Y.p,
                                                  d.p, P + PS_GAMMA * st, P + PS_BETA * st, 0.0, NULL, NULL,
                                                  (double)eps, P + PS_MEAN * st, P + PS_INV * st));
    copy_f32(C, mean, P + PS_MEAN * st, nc);
    k_inv_to_var<<<(nc + kThreads - 1) / kThreads, kThreads, 0, C->s>>>(P + PS_INV * st, eps, var, nc);
    CK_LAUNCH("k_inv_to_var");
    unpack(C, &Y, y);
}

static void op_bn_bwd(void *c, const tview *x, const tview *dy, const void *gamma, const float *mean,
                      const float *var, float eps, const tview *dx, void *dgamma, void *dbeta)
{
    Ctx *C = ctx_of(c);
    check_bn(x, dy, mean, var, eps);
    check_bn(x, dx, mean, var, eps);
    if (tview_elems(x) == 0) return;
    int nc = x->c;
    int64_t st;
    float *P = bn_slots(C, nc, &st);
    param_in(C, gamma, P + PS_GAMMA * st, nc);
    copy_f32(C, P + PS_MEAN * st, mean, nc);
    k_var_to_inv<<<(nc + kThreads - 1) / kThreads, kThreads, 0, C->s>>>(var, eps, P + PS_INV * st, nc);
    CK_LAUNCH("k_var_to_inv");
    tview X = packed(C, x, 0, true), DY = packed(C, dy, 1, true), DX = packed(C, dx, 2, false);
    BnDesc d(C, &X);
    float one = 1.0f, zero = 0.0f;
    CK_DNN(cudnnBatchNormalizationBackward(C->dnn, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, d.x, X.p,
                                           d.x, DY.p, d.x, DX.p, d.p, P + PS_GAMMA * st, P + PS_DGAMMA * st,
                                           P + PS_DBETA * st, (double)eps, P + PS_MEAN * st, P + PS_INV * st));
    copy_f32(C, (float *)dgamma, P + PS_DGAMMA * st, nc);
    copy_f32(C, (float *)dbeta, P + PS_DBETA * st, nc);
    unpack(C, &DX, dx);
}

/* ---- weighted cross-entropy ----------------------------------------------------------- */

/* A view's element (sample s, channel ch, pixel i of the plane). */
template <typename T> __device__ __forceinline__ const T *at(const char *p, int64_t ss, int64_t hw, int64_t s,
                                                           int ch, int64_t i)
{
    return (const T *)p + s * ss + ch * hw + i;
}

/* Sum of a block's doubles into out[blockIdx.x]. */
__device__ void block_sum(double v, double *out)
{
    __shared__ double sh[kThreads];
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int o = kThreads / 2; o > 0; o >>= 1) {
        if ((int)threadIdx.x < o) sh[threadIdx.x] += sh[threadIdx.x + o];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = sh[0];
}

/* Each block: its pixels' class_w[y] (logsumexp(z) - z_y), in double. */
template <typename T>
__global__ void k_wce_partial(const char *z, int64_t ss, int ncls, int64_t hw, int64_t pixels,
                              const int32_t *label, const float *cw, double *part)
{
    double acc = 0;
    for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < pixels;
         p += (int64_t)gridDim.x * blockDim.x) {
        int64_t s = p / hw, i = p % hw;
        double m = tof(*at<T>(z, ss, hw, s, 0, i)), sum = 0;
        for (int ch = 1; ch < ncls; ch++) m = fmax(m, (double)tof(*at<T>(z, ss, hw, s, ch, i)));
        for (int ch = 0; ch < ncls; ch++) sum += exp((double)tof(*at<T>(z, ss, hw, s, ch, i)) - m);
        int l = label[p];
        acc += (double)cw[l] * (m + log(sum) - (double)tof(*at<T>(z, ss, hw, s, l, i)));
    }
    block_sum(acc, part);
}

__global__ void k_sum_parts(const double *part, int n, double *out)
{
    double v = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) v += part[i];
    block_sum(v, out);
}

/* dz = class_w[y] (softmax(z) - onehot(y)) / P */
template <typename T>
__global__ void k_wce_grad(const char *z, int64_t zss, char *dz, int64_t dss, int ncls, int64_t hw,
                           int64_t pixels, const int32_t *label, const float *cw, double inv_p)
{
    for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < pixels;
         p += (int64_t)gridDim.x * blockDim.x) {
        int64_t s = p / hw, i = p % hw;
        double m = tof(*at<T>(z, zss, hw, s, 0, i)), sum = 0;
        for (int ch = 1; ch < ncls; ch++) m = fmax(m, (double)tof(*at<T>(z, zss, hw, s, ch, i)));
        for (int ch = 0; ch < ncls; ch++) sum += exp((double)tof(*at<T>(z, zss, hw, s, ch, i)) - m);
        int l = label[p];
        double k = (double)cw[l] * inv_p;
        for (int ch = 0; ch < ncls; ch++) {
            double g = exp((double)tof(*at<T>(z, zss, hw, s, ch, i)) - m) / sum * k;
            ((T *)dz)[s * dss + ch * hw + i] = fromf<T>((float)(ch == l ? g - k : g));
        }
    }
}

template <typename T> static void wce_partial_t(Ctx *C, const tview *z, const int32_t *label, const float *cw)
{
    int64_t hw = (int64_t)z->h * z->w;
    k_wce_partial<T><<<kPartials, kThreads, 0, C->s>>>((const char *)z->p, z->sstride, z->c, hw, hw * z->n, label,
                                                       cw, C->d_part);
    CK_LAUNCH("k_wce_partial");
}

template <typename T>
static void wce_grad_t(Ctx *C, const tview *z, const int32_t *label, const float *cw, const tview *dz)
{
    int64_t hw = (int64_t)z->h * z->w, pixels = hw * z->n;
    /* fp16: the loss gradient carries the loss scale (dynamic loss scaling,
     * as kcu_op_l1_bwd's); the optimizer divides it out */
    double scale = loss_grad_scale(C);
    k_wce_grad<T><<<blocks_for(C, pixels), kThreads, 0, C->s>>>((const char *)z->p, z->sstride, (char *)dz->p,
                                                                dz->sstride, z->c, hw, pixels, label, cw,
                                                                scale / (double)pixels);
    CK_LAUNCH("k_wce_grad");
}

static void check_wce(const tview *z)
{
    CHECK(z->c >= 1, "weighted cross-entropy: %d classes", z->c);
}

static double op_wce_fwd(void *c, const tview *z, const int32_t *label, const float *class_w)
{
    Ctx *C = ctx_of(c);
    check_wce(z);
    int64_t pixels = (int64_t)z->n * z->h * z->w;
    if (pixels == 0) return 0.0;
    DISPATCH(C, wce_partial_t, C, z, label, class_w);
    k_sum_parts<<<1, kThreads, 0, C->s>>>(C->d_part, kPartials, C->d_loss);
    CK_LAUNCH("k_sum_parts");
    CK_CUDA(cudaMemcpyAsync(C->h_loss, C->d_loss, sizeof(double), cudaMemcpyDeviceToHost, C->s));
    /* the interface returns the loss: the host waits for the forward pass here */
    CK_CUDA(cudaStreamSynchronize(C->s));
    return *C->h_loss * (1.0 / (double)pixels);
}

static void op_wce_bwd(void *c, const tview *z, const int32_t *label, const float *class_w, const tview *dz)
{
    Ctx *C = ctx_of(c);
    check_wce(z);
    CHECK(dz->n == z->n && dz->c == z->c && dz->h == z->h && dz->w == z->w,
          "weighted cross-entropy: logits %dx%dx%dx%d, gradient %dx%dx%dx%d", z->n, z->c, z->h, z->w, dz->n, dz->c,
          dz->h, dz->w);
    if ((int64_t)z->n * z->h * z->w == 0) return;
    DISPATCH(C, wce_grad_t, C, z, label, class_w, dz);
}

/* ---- image-level pooling and its broadcast ----------------------------------------------- */

/* One block per (sample, channel): y = scale * the plane's sum (in double). */
template <typename T>
__global__ void k_gpool(const char *x, int64_t xss, int c, int64_t hw, char *y, int64_t yss, float scale)
{
    int s = blockIdx.x / c, ch = blockIdx.x % c;
    const T *p = (const T *)x + s * xss + ch * hw;
    double v = 0;
    for (int64_t i = threadIdx.x; i < hw; i += blockDim.x) v += tof(p[i]);
    __shared__ double sh[kThreads];
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int o = kThreads / 2; o > 0; o >>= 1) {
        if ((int)threadIdx.x < o) sh[threadIdx.x] += sh[threadIdx.x + o];
        __syncthreads();
    }
    if (threadIdx.x == 0) ((T *)y)[s * yss + ch] = fromf<T>((float)(sh[0] * scale));
}

/* y = scale * x at every pixel of the plane. */
template <typename T>
__global__ void k_bcast(const char *x, int64_t xss, int c, int64_t hw, char *y, int64_t yss, int64_t total,
                        float scale)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t plane = e / hw, i = e % hw, s = plane / c, ch = plane % c;
        float v = tof(((const T *)x)[s * xss + ch]);
        ((T *)y)[s * yss + ch * hw + i] = fromf<T>(v * scale);
    }
}

template <typename T> static void gpool_t(Ctx *C, const tview *x, const tview *y, float scale)
{
    unsigned planes = (unsigned)((int64_t)x->n * x->c);
    k_gpool<T><<<planes, kThreads, 0, C->s>>>((const char *)x->p, x->sstride, x->c, (int64_t)x->h * x->w,
                                              (char *)y->p, y->sstride, scale);
    CK_LAUNCH("k_gpool");
}

template <typename T> static void bcast_t(Ctx *C, const tview *x, const tview *y, float scale)
{
    int64_t hw = (int64_t)y->h * y->w, total = tview_elems(y);
    k_bcast<T><<<blocks_for(C, total), kThreads, 0, C->s>>>((const char *)x->p, x->sstride, y->c, hw, (char *)y->p,
                                                            y->sstride, total, scale);
    CK_LAUNCH("k_bcast");
}

static void check_pool(const tview *big, const tview *one, const char *what)
{
    CHECK(big->n == one->n && big->c == one->c && one->h == 1 && one->w == 1,
          "%s: %dx%dx%dx%d and %dx%dx%dx%d (the pooled view is n x c x 1 x 1)", what, big->n, big->c, big->h,
          big->w, one->n, one->c, one->h, one->w);
    CHECK((int64_t)big->n * big->c <= INT32_MAX, "%s: %d x %d planes", what, big->n, big->c);
}

static void op_gpool_fwd(void *c, const tview *x, const tview *y, float scale)
{
    Ctx *C = ctx_of(c);
    check_pool(x, y, "image pooling");
    if ((int64_t)x->n * x->c == 0) return;
    DISPATCH(C, gpool_t, C, x, y, scale);
}

static void op_bcast_fwd(void *c, const tview *x, const tview *y, float scale)
{
    Ctx *C = ctx_of(c);
    check_pool(y, x, "broadcast");
    if (tview_elems(y) == 0) return;
    DISPATCH(C, bcast_t, C, x, y, scale);
}

void kcu_fill_seg(kern_ops *o)
{
    o->dconv_fwd = kcu_op_dconv_fwd;
    o->dconv_bwd_data = kcu_op_dconv_bwd_data;
    o->dconv_bwd_weights = kcu_op_dconv_bwd_weights;
    o->bn_fwd = op_bn_fwd;
    o->bn_bwd = op_bn_bwd;
    o->wce_fwd = op_wce_fwd;
    o->wce_bwd = op_wce_bwd;
    o->gpool_fwd = op_gpool_fwd;
    o->bcast_fwd = op_bcast_fwd;
}
