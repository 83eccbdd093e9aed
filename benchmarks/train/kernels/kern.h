/* kern: the kernel interface of the training runtime.  A kernel set (reference loops, the
 * fast CPU path, CUDA) is a table of function pointers with a context; the
 * network code calls kernels only through counted.h, which adds each call's
 * FLOPs and time to the step's table.
 *
 * Tensors are NCHW.  A tview is a window of channels of a larger buffer: a
 * dense block keeps [block input | new maps ...] in one buffer, and each layer
 * reads channels [0, c) of it and writes its g new maps into the next slice,
 * so concatenation costs no copy.  Inside a sample, channel ch starts at
 * p + ch*h*w and rows are w apart; samples are sstride elements apart.
 *
 * Element type: float on the CPU backends.  The CUDA backend may store
 * activations in 16 bits; it interprets p itself.  Weights and gradients are
 * flat arrays: conv weights [c_out][c_in][k][k], transposed-conv weights
 * [c_in][c_out] (1x1), biases [c_out].
 *
 * Write semantics (the network relies on them):
 *   "="  overwrites the destination;
 *   "+=" accumulates into it (data gradients: a map used by several layers
 *        sums their contributions without a separate add). */
#ifndef EXADL_TRAIN_KERN_H
#define EXADL_TRAIN_KERN_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    void *p;         /* sample 0, channel 0, row 0, column 0 */
    int n, c, h, w;
    int64_t sstride; /* elements between samples (>= c*h*w) */
} tview;

static inline int64_t tview_elems(const tview *t) { return (int64_t)t->n * t->c * t->h * t->w; }

/* A window of a 5-D tensor (samples, channels, depth, height, width) with
 * explicit strides in elements: element (i, ch, z, y, x) lies at
 * p + i*sn + ch*sc + z*sd + y*sh + x*sw.  The 3D kernels take any strides
 * (a sub-box of a halo-padded buffer is a t3view); the fast and CUDA sets
 * are fastest on channels-last views (sc = 1) dense within a sample, the
 * layout cosmoflow keeps (docs/cosmoflow.md). */
typedef struct {
    void *p;
    int n, c, d, h, w;
    int64_t sn, sc, sd, sh, sw;
} t3view;

static inline int64_t t3view_voxels(const t3view *t) { return (int64_t)t->n * t->d * t->h * t->w; }
static inline int64_t t3view_elems(const t3view *t) { return t3view_voxels(t) * t->c; }

typedef struct {
    double lr, beta1, beta2, eps;
    int64_t step;      /* 1-based Adam step (bias correction) */
    double grad_scale; /* gradients are multiplied by this first (1/ranks, 1/loss scale) */
} adam_hyper;

/* Lion (Chen et al. 2023; docs/lioncub.md): c = b1 m + (1 - b1) g,
 * w -= lr (sign(c) + weight_decay w), m = b2 m + (1 - b2) g. */
typedef struct {
    double lr, beta1, beta2, weight_decay;
    double grad_scale; /* gradients are multiplied by this first (1/ranks) */
    uint64_t tie_seed; /* lion_sign: the tie words of signs that are 0 (signpack.h) */
} lion_hyper;

/* Geometry of a 2D convolution with stride, zero padding and dilation
 * (atrous): tap (ky, kx) of output (oy, ox) reads input row
 * oy*stride - pad + ky*dil, column ox*stride - pad + kx*dil (zero outside).
 * groups (0 or 1: an ordinary convolution): the channels split into that
 * many groups, output group j reading only input group j; groups = channels
 * is the depthwise convolution of separable convolutions (Xception). */
typedef struct {
    int k, stride, pad, dil, groups;
} kern_dconv;

static inline int kern_dconv_groups(const kern_dconv *g) { return g->groups > 1 ? g->groups : 1; }

/* Output extent of a kern_dconv on an input extent (may be <= 0: no output). */
static inline int kern_dconv_out(int in, const kern_dconv *g)
{
    return (in + 2 * g->pad - g->dil * (g->k - 1) - 1) / g->stride + 1;
}

typedef struct kern_ops {
    const char *name; /* "reference", "fast", "cuda" */

    /* k x k convolution, stride 1, SAME padding (k odd), no bias:
     * y = conv(x, w); dx += conv_T(dy, w); dw = sum over samples of x (*) dy. */
    void (*conv_fwd)(void *ctx, const tview *x, const void *w, int k, const tview *y);
    void (*conv_bwd_data)(void *ctx, const tview *dy, const void *w, int k, const tview *dx);
    void (*conv_bwd_weights)(void *ctx, const tview *x, const tview *dy, int k, void *dw);

    /* 1x1 transposed convolution, stride 2 (y is 2h x 2w; odd rows and columns
     * are 0): y = ...; dx += ...; dw = ... */
    void (*tconv_fwd)(void *ctx, const tview *x, const void *w, const tview *y);
    void (*tconv_bwd_data)(void *ctx, const tview *dy, const void *w, const tview *dx);
    void (*tconv_bwd_weights)(void *ctx, const tview *x, const tview *dy, void *dw);

    /* y += b (per channel); db = sum of dy over n, h, w. */
    void (*bias_fwd)(void *ctx, const tview *y, const void *b);
    void (*bias_bwd)(void *ctx, const tview *dy, void *db);

    /* y = max(x, 0) (x and y may be the same view); dx += (x > 0 ? dy : 0). */
    void (*relu_fwd)(void *ctx, const tview *x, const tview *y);
    void (*relu_bwd)(void *ctx, const tview *x, const tview *dy, const tview *dx);

    /* 2x2 average pooling, stride 2: y = mean of each 2x2 window;
     * dx = dy / 4 spread over the window (overwrite). */
    void (*pool_fwd)(void *ctx, const tview *x, const tview *y);
    void (*pool_bwd)(void *ctx, const tview *dy, const tview *dx);

    /* L1 loss: returns mean |y - t| over all elements (accumulated in double);
     * dy = sign(y - t) / count (overwrite; 0 where y == t). */
    double (*l1_fwd)(void *ctx, const tview *y, const tview *t);
    void (*l1_bwd)(void *ctx, const tview *y, const tview *t, const tview *dy);

    /* Adam on n parameters: fp32 master weights, moments m and v; w_compute,
     * when not NULL, receives the updated weights in the compute type. */
    void (*adam)(void *ctx, float *master, void *w_compute, const void *g, float *m, float *v,
                 int64_t n, const adam_hyper *h);

    /* Lion on n parameters (fp32 master weights, moment m), the whole step
     * on the (reduced) gradient; sign(0) = 0.  w_compute as for adam. */
    void (*lion)(void *ctx, float *master, void *w_compute, const void *g, float *m, int64_t n,
                 const lion_hyper *h);
    /* The local half of a compressed Lion step (lionx.h): bits (1-bit format
     * of signpack.h, sp_words(n, 1) words, bits past n 0) = sign(b1 m +
     * (1 - b1) g), a sign 0 taking its tie bit of (h->tie_seed, word); then
     * m = b2 m + (1 - b2) g.  bits in the set's memory, like m. */
    void (*lion_sign)(void *ctx, float *m, const void *g, uint64_t *bits, int64_t n,
                      const lion_hyper *h);
    /* The agreed update applied: u = +-1 from bits (p = 1), or u = (2 c -
     * nranks) / nranks from p-bit fields c (the mean of the ranks' signs);
     * w -= lr (u + weight_decay w).  words in the set's memory. */
    void (*lion_apply)(void *ctx, float *master, void *w_compute, const uint64_t *words, int p,
                       int nranks, int64_t n, const lion_hyper *h);

    /* dst = src (same shape), dst += src, dst = 0. */
    void (*copy)(void *ctx, const tview *src, const tview *dst);
    void (*add)(void *ctx, const tview *src, const tview *dst);
    void (*zero)(void *ctx, const tview *dst);

    /* Memory and transfers.  The CPU sets share kern_host.c (malloc, memcpy). */
    size_t act_bytes;                                   /* bytes per activation element */
    void *(*alloc)(void *ctx, size_t bytes);            /* zero-filled; NULL when out of memory */
    void (*release)(void *ctx, void *p);
    void (*h2d)(void *ctx, void *dst, const void *src, size_t bytes);
    void (*d2h)(void *ctx, void *dst, const void *src, size_t bytes);
    void (*put_f32)(void *ctx, const tview *dst, const float *src); /* dense host floats -> view */
    void (*get_f32)(void *ctx, const tview *src, float *dst);       /* view -> dense host floats */
    /* w_compute = master in the compute type (no-op where they are the same buffer) */
    void (*cast_params)(void *ctx, const float *master, void *w_compute, int64_t n);
    void (*sync)(void *ctx);                            /* wait for queued device work */
    /* NULL, or called once per step before the optimizer with the whole
     * (reduced) fp32 gradient array: the CUDA set's fp16 mode checks it for
     * inf/NaN there (dynamic loss scaling skips the step on overflow). */
    void (*grad_check)(void *ctx, const float *grads, int64_t n);

    /* Per-kernel timing.  NULL: counted.c times the call with the wall clock
     * (CPU).  Otherwise start returns a token and stop adds the elapsed seconds
     * to *accum_s, at the latest when flush returns (CUDA events). */
    void *(*timer_start)(void *ctx);
    void (*timer_stop)(void *ctx, void *token, double *accum_s);
    void (*timer_flush)(void *ctx);
    /* Forget the pending timers whose accumulator lies in [lo, hi) without
     * writing to it: the table they point into goes away unflushed (a step
     * abandoned, a failed test).  ktab_free calls it. */
    void (*timer_discard)(void *ctx, const void *lo, const void *hi);

    /* ---- 3D kernels (cosmoflow; formulas in flops.h) ----------------------
     * Activations are t3views in the compute type; weights w in the compute
     * type, weight and bias gradients (dw, db) fp32, as for the 2D kernels.
     *
     * conv3d: k x k x k convolution, stride 1, no padding of its own
     * ("valid"): the caller hands in inputs that carry their halo (the
     * neighbouring ranks' voxels, or zeros at the volume's edge), so the
     * input is k-1 larger than the output in d, h and w.  Weights
     * [co][ci][k][k][k].
     *   fwd          y  = x (*) w                           x: k-1 larger than y
     *   bwd_data     dx = dy (*) w flipped, ci <-> co        dy: k-1 larger than dx
     *   bwd_weights  dw = sum over samples of x (*) dy      x: k-1 larger than dy
     * All three overwrite their output. */
    void (*conv3d_fwd)(void *ctx, const t3view *x, const void *w, int k, const t3view *y);
    void (*conv3d_bwd_data)(void *ctx, const t3view *dy, const void *w, int k, const t3view *dx);
    void (*conv3d_bwd_weights)(void *ctx, const t3view *x, const t3view *dy, int k, void *dw);
    /* 2x2x2 max pooling, stride 2 (x exactly twice y in d, h, w); backward
     * recomputes each window's maximum from x and routes dy to its first
     * maximum in (z, y, x) order, 0 elsewhere (overwrites dx). */
    void (*pool3d_fwd)(void *ctx, const t3view *x, const t3view *y);
    void (*pool3d_bwd)(void *ctx, const t3view *x, const t3view *dy, const t3view *dx);
    /* Leaky ReLU (slope > 0): y = x > 0 ? x : slope x; backward from the
     * forward's output y (same sign as its input): dx = y > 0 ? dy : slope dy.
     * Both may work in place. */
    void (*lrelu_fwd)(void *ctx, const t3view *x, const t3view *y, float slope);
    void (*lrelu_bwd)(void *ctx, const t3view *y, const t3view *dy, const t3view *dx, float slope);
    /* y += b per channel; db = sum of dy over n, d, h, w (overwrite). */
    void (*bias3d_fwd)(void *ctx, const t3view *y, const void *b);
    void (*bias3d_bwd)(void *ctx, const t3view *dy, void *db);
    /* Dense layer on row-major x [n][in], weights [out][in]: y = x w^T,
     * dx = dy w, dw = dy^T x (all overwrite). */
    void (*dense_fwd)(void *ctx, const void *x, const void *w, int n, int in, int out, void *y);
    void (*dense_bwd_data)(void *ctx, const void *dy, const void *w, int n, int in, int out,
                           void *dx);
    void (*dense_bwd_weights)(void *ctx, const void *x, const void *dy, int n, int in, int out,
                              void *dw);
    /* Locally connected layers (modelpar, docs/modelparallel.md "Kernels"):
     * npos dense layers, one per output position t, each with its own
     * weights, as one batched GEMM: x [npos][n][in], w [npos][out][in],
     * y [npos][n][out], contiguous; y_t = x_t w_t^T, dx_t = dy_t w_t,
     * dw_t = dy_t^T x_t (all overwrite; dw fp32 as dense's).  FLOPs: npos x
     * dense's (flops_lc).  The reference set loops over its dense loops, the
     * fast set over its GEMMs, the CUDA set calls cublasGemmStridedBatchedEx. */
    void (*lc_fwd)(void *ctx, const void *x, const void *w, int npos, int n, int in, int out,
                   void *y);
    void (*lc_bwd_data)(void *ctx, const void *dy, const void *w, int npos, int n, int in,
                        int out, void *dx);
    void (*lc_bwd_weights)(void *ctx, const void *x, const void *dy, int npos, int n, int in,
                           int out, void *dw);
    /* Mean squared error over count contiguous elements: returns the mean of
     * (y - t)^2 (accumulated in double); dy = 2 (y - t) / count (overwrite). */
    double (*mse_fwd)(void *ctx, const void *y, const void *t, int64_t count);
    void (*mse_bwd)(void *ctx, const void *y, const void *t, int64_t count, void *dy);
    /* dst = src, any strides (halo faces, gathers). */
    void (*copy3d)(void *ctx, const t3view *src, const t3view *dst);

    /* ---- segmentation kernels (climate, docs/climate.md; formulas in
     * flops.h) -------------------------------------------------------------
     * dconv: k x k convolution with stride, padding and dilation (kern_dconv),
     * no bias, on NCHW views; y->h = kern_dconv_out(x->h, g), same for w.
     * Weights [co][ci / groups][k][k] (both channel counts divisible by
     * groups).  All three overwrite their output:
     *   fwd          y  = x (*) w
     *   bwd_data     dx = the transpose of the forward applied to dy
     *   bwd_weights  dw = sum over samples of x (*) dy
     * All three sets have them (the CUDA set through cuDNN: cuda/
     * kern_cuda_seg.cu); a set without them leaves them NULL and counted.c
     * stops with a clear error. */
    void (*dconv_fwd)(void *ctx, const tview *x, const void *w, const kern_dconv *g,
                      const tview *y);
    void (*dconv_bwd_data)(void *ctx, const tview *dy, const void *w, const kern_dconv *g,
                           const tview *dx);
    void (*dconv_bwd_weights)(void *ctx, const tview *x, const tview *dy, const kern_dconv *g,
                              void *dw);
    /* Batch normalisation, train mode, statistics of this call's samples
     * (per rank: no reduction across ranks) per channel over n, h, w:
     *   fwd  mean, var (biased) = statistics of x; y = gamma (x - mean) /
     *        sqrt(var + eps) + beta; mean and var ([c] fp32, the set's memory)
     *        are written for the backward
     *   bwd  dx = the gradient through the normalisation (statistics
     *        included), dgamma = sum dy xhat, dbeta = sum dy (fp32, overwrite)
     * x and y (dy and dx) share one layout (the same sstride; counted.c checks);
     * they are distinct buffers (the backward reads x). */
    void (*bn_fwd)(void *ctx, const tview *x, const void *gamma, const void *beta, float eps,
                   float *mean, float *var, const tview *y);
    void (*bn_bwd)(void *ctx, const tview *x, const tview *dy, const void *gamma,
                   const float *mean, const float *var, float eps, const tview *dx, void *dgamma,
                   void *dbeta);
    /* Per-pixel weighted cross-entropy over z->c classes (DeepCAM's loss):
     * label [n][h][w] dense int32 in [0, classes), class_w [classes] fp32,
     * both in the set's memory; P = n h w pixels.
     *   fwd  returns (1/P) sum over pixels of class_w[y] (logsumexp(z) - z_y)
     *        (accumulated in double)
     *   bwd  dz = class_w[y] (softmax(z) - onehot(y)) / P (overwrite) */
    double (*wce_fwd)(void *ctx, const tview *z, const int32_t *label, const float *class_w);
    void (*wce_bwd)(void *ctx, const tview *z, const int32_t *label, const float *class_w,
                    const tview *dz);
    /* Image-level pooling and its broadcast (ASPP): y [n][c][1][1] = scale *
     * the sum of x over h, w (scale 1/(h w): the mean); bcast: y = scale * x
     * at every pixel (x [n][c][1][1]).  Each is the other's backward (the
     * mean's backward is bcast with 1/(h w), the tiling's is gpool with 1).
     * Both overwrite. */
    void (*gpool_fwd)(void *ctx, const tview *x, const tview *y, float scale);
    void (*bcast_fwd)(void *ctx, const tview *x, const tview *y, float scale);
} kern_ops;

/* Host-memory members shared by the CPU kernel sets (kern_host.c). */
void kern_host_fill(kern_ops *ops);
/* The 3D members of the reference and fast sets (ref/kern_ref_3d.c,
 * fast/kern_fast_3d.c). */
void kern_ref_fill_3d(kern_ops *ops);
void kern_fast_fill_3d(kern_ops *ops);
/* The segmentation members (dconv, bn) of the reference and fast sets
 * (ref/kern_ref_seg.c, fast/kern_fast_seg.c). */
void kern_ref_fill_seg(kern_ops *ops);
void kern_fast_fill_seg(kern_ops *ops);

/* Kernel sets.  Each returns its table; *ctx receives a context (NULL where
 * the set needs none) freed by the matching release. */
const kern_ops *kern_ref_ops(void);
const kern_ops *kern_fast_ops(void);
void *kern_fast_create(int threads);
void kern_fast_release(void *ctx);
/* Name and version of the library behind the fast path, for the record. */
const char *kern_fast_library(void);
/* The instruction set oneDNN dispatches to here ("avx512_core_bf16", ...). */
const char *kern_fast_cpu_isa(void);
/* 0 when oneDNN runs bf16 on this CPU's own instructions (AVX512-BF16 or
 * AMX); else -1 with one line naming what is missing. */
int kern_fast_bf16_missing(char *why, size_t len);
/* bf16 mode of a fast-set context (--precision bf16): convolutions and GEMMs
 * round their inputs to bf16 and accumulate in fp32 into fp32 outputs;
 * activations, weights, gradients and optimizer state stay fp32
 * (docs/stemdl-cpu-kernels.md "bf16").  Call kern_fast_bf16_missing first. */
void kern_fast_set_bf16(void *ctx, int on);
/* "bf16" or "fp32": the type a kernel (a counted row's name: conv_fwd,
 * dense_bwd_data, relu_fwd, ...) computes in under the context ctx (NULL:
 * fp32). */
const char *kern_fast_kernel_dtype(const void *ctx, const char *kernel);

#endif
