/* kern_cuda_seg.cu: the segmentation kernels of the CUDA set (kern.h
 * "segmentation kernels", docs/climate.md "CUDA"), but the dilated and
 * grouped convolutions, which share kern_cuda_conv.cu's cuDNN machinery:
 *
 *   bn_fwd / bn_bwd   cudnnBatchNormalizationForwardTraining / Backward,
 *                     CUDNN_BATCHNORM_SPATIAL (per channel over n, h, w), the
 *                     statistics of this call's samples (per rank, as the CPU
 *                     sets); no running averages (factor 0, NULL: the
 *                     interface has none, as the reference set's)
 *   wce_fwd / wce_bwd per-pixel weighted cross-entropy, and
 *   gpool / bcast     image-level pooling and its broadcast: small kernels,
 *                     kern_cuda_segew.cu's (this file fills the table)
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
 * them; the network's arrays lie at any float offset). */
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

void kcu_fill_seg(kern_ops *o)
{
    o->dconv_fwd = kcu_op_dconv_fwd;
    o->dconv_bwd_data = kcu_op_dconv_bwd_data;
    o->dconv_bwd_weights = kcu_op_dconv_bwd_weights;
    o->bn_fwd = op_bn_fwd;
    o->bn_bwd = op_bn_bwd;
    kcu_fill_segew(o);
}
