/* kern_cuda_segew.cu: the segmentation set's small kernels of the CUDA set
 * (kern.h "segmentation kernels", docs/climate.md "CUDA"; kern_cuda_seg.cu
 * puts them in the table):
 *
 *   wce_fwd / wce_bwd per-pixel weighted cross-entropy (DeepCAM's loss), per
 *                     pixel in double, block sums in double
 *   gpool / bcast     image-level pooling and its broadcast
 *
 * In fp16 the loss gradient carries the dynamic loss scale, as the L1 loss's
 * does (kern_cuda_ew.cu). */
#include "benchmarks/train/kernels/cuda/kern_cuda_impl.h"

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

void kcu_fill_segew(kern_ops *o)
{
    o->wce_fwd = op_wce_fwd;
    o->wce_bwd = op_wce_bwd;
    o->gpool_fwd = op_gpool_fwd;
    o->bcast_fwd = op_bcast_fwd;
}
