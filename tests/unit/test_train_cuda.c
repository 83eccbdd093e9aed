/* The CUDA kernel set (kern_cuda.cu) against the reference set (kern_ref.c),
 * through kern_ops, in fp32, tf32, bf16 and fp16; a whole training step of
 * the network against the reference step; the FLOPs of a CUDA step against
 * the dry step (the formulas are shared, not copied); fp16 loss scaling.
 *
 * Without a GPU every GPU test prints "SKIP: name: no CUDA GPU (...)", never
 * PASS; in a build without the CUDA path (GPU=0, the sanitizer build) one
 * SKIP line says so.  The settings checks run everywhere the path is built.
 *
 * Error norm (as test_train_fast.c): for each output, the normwise relative
 * error max |cuda - ref| / max |ref| over the window, below 1e-4 in fp32,
 * 1e-2 in tf32 and 2e-2 in bf16 and fp16; elements outside the window (other
 * channels, other samples) must come back bit for bit.  Inputs are first
 * rounded to the element type (through the device), so both sides see the
 * same numbers and the error is the kernel's own. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/stemdl_fixture.h"
#include "tests/unit/gpu_probe.h"
#include "tests/unit/tap.h"
#include "tests/unit/tap_check.h"

#if !EXADL_GPU
int main(void)
{
    printf("SKIP: train_cuda: this build has no CUDA path (GPU=0, or nvcc, cuDNN or NCCL not "
           "found): the CUDA kernels are not built, nothing to test\n");
    return 0;
}
#else

#include "benchmarks/common/check.h"
#include "benchmarks/common/rng.h"
#include "benchmarks/networks/fcdensenet/config.h"
#include "benchmarks/networks/fcdensenet/data.h"
#include "benchmarks/networks/fcdensenet/net.h"
#include "benchmarks/networks/fcdensenet/plan.h"
#include "benchmarks/networks/fcdensenet/stemdl_network.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/kernels/cuda/kern_cuda.h"
#include "benchmarks/train/kernels/kern.h"
#include "benchmarks/train/optim.h"
#include "benchmarks/train/train.h"

static rng_t R;
static int rnd(int lo, int hi) { return lo + (int)(rng_next(&R) % (uint64_t)(hi - lo + 1)); }

static const kcu_api *K;  /* the CUDA module (kcu_load) */
static int ndev;
static char nodev_why[512];

/* SKIP only where there is no GPU; CUDA that does not start where a driver
 * is (ndev < 0), or a module that does not load where a driver is, FAIL */
static void need_gpu(void)
{
    T_ASSERT(ndev >= 0, "CUDA cannot start: %s", nodev_why);
    if (ndev == 0) T_SKIP("no CUDA GPU (%s)", nodev_why);
}

static void need_module(void)
{
    T_ASSERT(K || ndev >= 0, "%s", nodev_why);
    if (!K) T_SKIP("%s", nodev_why);
}

/* ---- one context per precision, made on first use ---------------------------- */

enum { FP32, TF32, BF16, FP16, NPREC };
static const char *prec_names[NPREC] = {"fp32", "tf32", "bf16", "fp16"};
static const double tols[NPREC] = {1e-4, 1e-2, 2e-2, 2e-2};
static void *ctxs[NPREC];

typedef struct {
    int p;
    void *ctx;
    const kern_ops *ops;
    double tol;
} dev_t_;

static dev_t_ dev(int p)
{
    if (!ctxs[p]) {
        char err[256];
        /* cudnnFind for all but tf32, which exercises the heuristic choice */
        kcu_opts o = {.precision = prec_names[p], .device = 0, .algo = p == TF32 ? "heuristic" : "find",
                      .workspace_limit = (size_t)256 << 20};
        ctxs[p] = K->create(&o, err, sizeof err);
        T_ASSERT(ctxs[p], "kcu_create(%s): %s", prec_names[p], err);
    }
    dev_t_ d = {p, ctxs[p], K->ops(ctxs[p]), tols[p]};
    return d;
}

/* ---- buffers: a window of channels of a larger device buffer, and its host twin -- */

typedef struct {
    dev_t_ d;          /* a copy: a failed test leaves its frame before the pool is freed */
    float *h;          /* the whole buffer on the host (values exact in the element type) */
    void *dp;          /* the whole buffer on the device */
    size_t len;
    tview hv, dv;      /* the window, host and device */
    tview hall, dall;  /* the whole buffer */
    float *got;        /* scratch for reading the device back */
} db;

static db *pool_[128];
static int npool;

static void pool_free(void)
{
    while (npool > 0) {
        db *b = pool_[--npool];
        if (b->dp) b->d.ops->release(b->d.ctx, b->dp);
        free(b->h);
        free(b->got);
        free(b);
    }
}

static db *db_new(const dev_t_ *d, size_t len)
{
    T_ASSERT(npool < 128, "test buffer pool full");
    db *b = calloc(1, sizeof *b);
    T_ASSERT(b, "calloc");
    b->d = *d;
    b->len = len;
    b->h = malloc(len * sizeof(float) + 4);
    b->got = malloc(len * sizeof(float) + 4);
    T_ASSERT(b->h && b->got, "malloc");
    pool_[npool++] = b;
    return b;
}

/* Random values in [-1, 1), rounded to the element type by a trip through the device. */
static void db_fill(db *b)
{
    for (size_t i = 0; i < b->len; i++) b->h[i] = (float)(2 * rng_uniform(&R) - 1);
    b->d.ops->put_f32(b->d.ctx, &b->dall, b->h);
    b->d.ops->get_f32(b->d.ctx, &b->dall, b->h);
}

/* A window of c channels among pre + c + post, n samples. */
static db *mk(const dev_t_ *d, int n, int c, int h, int w)
{
    int pre = rnd(0, 2), post = rnd(0, 3), ctot = pre + c + post;
    size_t plane = (size_t)h * w, len = (size_t)n * ctot * plane;
    db *b = db_new(d, len);
    b->dp = d->ops->alloc(d->ctx, len * d->ops->act_bytes);
    T_ASSERT(b->dp, "device alloc of %zu elements", len);
    int64_t ss = (int64_t)ctot * h * w;
    b->hall = (tview){b->h, n, ctot, h, w, ss};
    b->dall = (tview){b->dp, n, ctot, h, w, ss};
    b->hv = (tview){b->h + (size_t)pre * plane, n, c, h, w, ss};
    b->dv = (tview){(char *)b->dp + (size_t)pre * plane * d->ops->act_bytes, n, c, h, w, ss};
    db_fill(b);
    return b;
}

/* A flat vector of n values in the compute type (weights, biases). */
static db *wvec(const dev_t_ *d, size_t n)
{
    db *b = db_new(d, n);
    b->dp = d->ops->alloc(d->ctx, n * d->ops->act_bytes);
    T_ASSERT(b->dp, "device alloc");
    b->hall = b->hv = (tview){b->h, 1, 1, 1, (int)n, (int64_t)n};
    b->dall = b->dv = (tview){b->dp, 1, 1, 1, (int)n, (int64_t)n};
    db_fill(b);
    return b;
}

/* A flat vector of n fp32 values (gradients, master weights, moments). */
static db *fvec(const dev_t_ *d, size_t n)
{
    db *b = db_new(d, n);
    b->dp = d->ops->alloc(d->ctx, n * sizeof(float));
    T_ASSERT(b->dp, "device alloc");
    for (size_t i = 0; i < n; i++) b->h[i] = (float)(2 * rng_uniform(&R) - 1);
    d->ops->h2d(d->ctx, b->dp, b->h, n * sizeof(float));
    return b;
}

static int in_window(const db *b, size_t i)
{
    size_t off = (size_t)((float *)b->hv.p - b->h);
    if (i < off) return 0;
    size_t j = i - off, s = j / (size_t)b->hv.sstride, r = j % (size_t)b->hv.sstride;
    return s < (size_t)b->hv.n && r < (size_t)b->hv.c * b->hv.h * b->hv.w;
}

static double norm_err(const float *a, const float *ref, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double dd = fabs((double)a[i] - ref[i]);
        if (dd > num || isnan(dd)) num = isnan(dd) ? INFINITY : dd;
        if (fabs(ref[i]) > den) den = fabs(ref[i]);
    }
    return den > 0 ? num / den : num;
}

/* The device's window against the host's (where the reference wrote); the
 * rest of the buffer must be untouched. */
static void cmp_db(const char *what, db *b)
{
    b->d.ops->get_f32(b->d.ctx, &b->dall, b->got);
    double num = 0, den = 0;
    for (size_t i = 0; i < b->len; i++) {
        if (in_window(b, i)) {
            double dd = fabs((double)b->got[i] - b->h[i]);
            if (dd > num || isnan(dd)) num = isnan(dd) ? INFINITY : dd;
            if (fabs(b->h[i]) > den) den = fabs(b->h[i]);
        } else {
            T_ASSERT(b->got[i] == b->h[i], "%s (%s): element %zu outside the window changed (%g -> %g)",
                     what, prec_names[b->d.p], i, b->h[i], b->got[i]);
        }
    }
    double err = den > 0 ? num / den : num;
    T_ASSERT(err < b->d.tol, "%s (%s): relative error %.3g (max |diff| %.3g, max |ref| %.3g) n=%d c=%d h=%d w=%d",
             what, prec_names[b->d.p], err, num, den, b->hv.n, b->hv.c, b->hv.h, b->hv.w);
}

/* An fp32 device vector against host values. */
static void cmp_fvec(const char *what, const db *b, const float *ref, double tol)
{
    b->d.ops->d2h(b->d.ctx, b->got, b->dp, b->len * sizeof(float));
    double err = norm_err(b->got, ref, b->len);
    T_ASSERT(err < tol, "%s (%s): relative error %.3g over %zu values", what, prec_names[b->d.p], err, b->len);
}

static const kern_ops *Rf;

/* ---- convolutions -------------------------------------------------------------- */

static void conv_case(const dev_t_ *d, int n, int ci, int co, int k, int h, int w)
{
    char what[128];
    db *x = mk(d, n, ci, h, w), *y = mk(d, n, co, h, w), *dy = mk(d, n, co, h, w), *dx = mk(d, n, ci, h, w);
    size_t nw = (size_t)co * ci * k * k;
    db *wt = wvec(d, nw);
    d->ops->conv_fwd(d->ctx, &x->dv, wt->dp, k, &y->dv);
    Rf->conv_fwd(NULL, &x->hv, wt->h, k, &y->hv);
    snprintf(what, sizeof what, "conv_fwd k=%d ci=%d co=%d", k, ci, co);
    cmp_db(what, y);
    d->ops->conv_bwd_data(d->ctx, &dy->dv, wt->dp, k, &dx->dv);
    Rf->conv_bwd_data(NULL, &dy->hv, wt->h, k, &dx->hv);
    snprintf(what, sizeof what, "conv_bwd_data k=%d ci=%d co=%d", k, ci, co);
    cmp_db(what, dx);
    db *dw = fvec(d, nw);
    d->ops->conv_bwd_weights(d->ctx, &x->dv, &dy->dv, k, dw->dp);
    Rf->conv_bwd_weights(NULL, &x->hv, &dy->hv, k, dw->h);
    snprintf(what, sizeof what, "conv_bwd_weights k=%d ci=%d co=%d n=%d h=%d w=%d", k, ci, co, n, h, w);
    cmp_fvec(what, dw, dw->h, d->tol);
}

static void tconv_case(const dev_t_ *d, int n, int ci, int co, int h, int w)
{
    db *x = mk(d, n, ci, h, w), *y = mk(d, n, co, 2 * h, 2 * w), *dy = mk(d, n, co, 2 * h, 2 * w),
       *dx = mk(d, n, ci, h, w);
    db *wt = wvec(d, (size_t)ci * co);
    d->ops->tconv_fwd(d->ctx, &x->dv, wt->dp, &y->dv);
    Rf->tconv_fwd(NULL, &x->hv, wt->h, &y->hv);
    cmp_db("tconv_fwd", y);
    d->ops->tconv_bwd_data(d->ctx, &dy->dv, wt->dp, &dx->dv);
    Rf->tconv_bwd_data(NULL, &dy->hv, wt->h, &dx->hv);
    cmp_db("tconv_bwd_data", dx);
    db *dw = fvec(d, (size_t)ci * co);
    d->ops->tconv_bwd_weights(d->ctx, &x->dv, &dy->dv, dw->dp);
    Rf->tconv_bwd_weights(NULL, &x->hv, &dy->hv, dw->h);
    cmp_fvec("tconv_bwd_weights", dw, dw->h, d->tol);
}

/* Random odd shapes: channel counts 1..21, images 1x1 to 13x13 (kernels wider
 * than the image), batch 1 and 3, k = 1, 3, 5. */
static void conv_sweep(int p, int cases)
{
    need_gpu();
    dev_t_ d = dev(p);
    for (int t = 0; t < cases; t++) {
        int k = (int[]){1, 3, 5}[t % 3];
        int n = t % 2 ? 3 : 1, ci = rnd(1, 21), co = rnd(1, 21);
        int h = t % 5 == 4 ? rnd(1, 3) : rnd(4, 13), w = t % 5 == 4 ? rnd(1, 3) : rnd(4, 13);
        conv_case(&d, n, ci, co, k, h, w);
        tconv_case(&d, n, ci, co, h, w);
        pool_free();
    }
    /* a wider case near the network's shapes, channel counts multiples of 8 */
    conv_case(&d, 1, 64, 32, 5, 24, 20);
    tconv_case(&d, 1, 48, 40, 12, 10);
    pool_free();
}

static void test_conv_fp32(void) { conv_sweep(FP32, 12); }
static void test_conv_tf32(void) { conv_sweep(TF32, 6); }
static void test_conv_bf16(void) { conv_sweep(BF16, 12); }
static void test_conv_fp16(void) { conv_sweep(FP16, 6); }

/* Views beyond cuDNN's 32-bit indexing go in sample chunks (kern_cuda_conv.cu,
 * kern_cuda_policy.h).  With the limit lowered (EXADL_CUDNN_MAX_ELEMS, read
 * by kcu_create) small convolutions are chunked, 1 or 2 samples a call, and
 * agree with the reference; the filter gradient sums the chunks. */
static void *chunk_ctxs[NPREC];

static void chunk_case(int p)
{
    need_gpu();
    if (!chunk_ctxs[p]) {
        char err[256];
        setenv("EXADL_CUDNN_MAX_ELEMS", "3000", 1);
        kcu_opts o = {.precision = prec_names[p], .device = 0, .algo = "find", .workspace_limit = (size_t)64 << 20};
        chunk_ctxs[p] = K->create(&o, err, sizeof err);
        unsetenv("EXADL_CUDNN_MAX_ELEMS");
        T_ASSERT(chunk_ctxs[p], "kcu_create(%s, chunked): %s", prec_names[p], err);
    }
    dev_t_ d = {p, chunk_ctxs[p], K->ops(chunk_ctxs[p]), tols[p]};
    conv_case(&d, 5, 8, 12, 3, 10, 10);
    tconv_case(&d, 5, 8, 6, 6, 5);
    pool_free();
    kcu_conv_choice cc;
    int chunked = 0;
    for (int i = 0; K->conv_choice_get(d.ctx, i, &cc) == 0; i++) chunked |= cc.n < 5;
    T_ASSERT(chunked, "no convolution problem with fewer than 5 samples: nothing was chunked");
}

static void test_conv_chunked_fp32(void) { chunk_case(FP32); }
static void test_conv_chunked_bf16(void) { chunk_case(BF16); }

/* fp32 convolutions use FMA math only (no TF32), tf32 ones tensor-op or
 * default math (TF32); an fp32 context leaves NVIDIA_TF32_OVERRIDE alone, so
 * a tf32 context in the same process still gets TF32. */
static const char *tf32_env_at_start;

static void test_math_per_precision(void)
{
    need_gpu();
    dev_t_ f = dev(FP32), t = dev(TF32);
    const char *env = getenv("NVIDIA_TF32_OVERRIDE");
    T_ASSERT((env == NULL) == (tf32_env_at_start == NULL) && (!env || !strcmp(env, tf32_env_at_start)),
             "NVIDIA_TF32_OVERRIDE changed by the fp32 context: %s", env ? env : "(unset)");
    /* the contexts have chosen algorithms in the convolution tests; one more each */
    conv_case(&f, 1, 16, 16, 3, 8, 8);
    conv_case(&t, 1, 16, 16, 3, 8, 8);
    pool_free();
    kcu_conv_choice cc;
    int nf = 0, nt = 0;
    for (int i = 0; K->conv_choice_get(f.ctx, i, &cc) == 0; i++, nf++)
        T_ASSERT(!strcmp(cc.math, "fma"), "fp32 %s problem %d chose %s math", cc.op, i, cc.math);
    for (int i = 0; K->conv_choice_get(t.ctx, i, &cc) == 0; i++, nt++)
        T_ASSERT(!strcmp(cc.math, "tensor_op") || !strcmp(cc.math, "default"), "tf32 %s problem %d chose %s math",
                 cc.op, i, cc.math);
    T_ASSERT(nf > 0 && nt > 0, "%d fp32 and %d tf32 choices", nf, nt);
}

/* ---- element-wise kernels ----------------------------------------------------------- */

static void elementwise(int p)
{
    need_gpu();
    dev_t_ D = dev(p);
    const dev_t_ *d = &D;
    for (int t = 0; t < 6; t++) {
        int n = t % 2 ? 3 : 1, c = rnd(1, 19), h = 2 * rnd(1, 9), w = 2 * rnd(1, 9);
        if (t == 5) c = 16, h = 32, w = 32; /* the vectorised path */
        db *x = mk(d, n, c, h, w), *a = mk(d, n, c, h, w);
        db *bias = wvec(d, (size_t)c);
        d->ops->bias_fwd(d->ctx, &a->dv, bias->dp);
        Rf->bias_fwd(NULL, &a->hv, bias->h);
        cmp_db("bias_fwd", a);
        db *dbias = fvec(d, (size_t)c);
        d->ops->bias_bwd(d->ctx, &x->dv, dbias->dp);
        Rf->bias_bwd(NULL, &x->hv, dbias->h);
        cmp_fvec("bias_bwd", dbias, dbias->h, d->tol);

        d->ops->relu_fwd(d->ctx, &x->dv, &a->dv);
        Rf->relu_fwd(NULL, &x->hv, &a->hv);
        cmp_db("relu_fwd", a);
        db *xi = mk(d, n, c, h, w); /* in place: x and y the same view */
        d->ops->relu_fwd(d->ctx, &xi->dv, &xi->dv);
        Rf->relu_fwd(NULL, &xi->hv, &xi->hv);
        cmp_db("relu_fwd in place", xi);
        db *g = mk(d, n, c, h, w);
        d->ops->relu_bwd(d->ctx, &x->dv, &g->dv, &a->dv); /* "+=" into what a holds */
        Rf->relu_bwd(NULL, &x->hv, &g->hv, &a->hv);
        cmp_db("relu_bwd", a);

        db *pl = mk(d, n, c, h / 2, w / 2);
        d->ops->pool_fwd(d->ctx, &x->dv, &pl->dv);
        Rf->pool_fwd(NULL, &x->hv, &pl->hv);
        cmp_db("pool_fwd", pl);
        d->ops->pool_bwd(d->ctx, &pl->dv, &a->dv);
        Rf->pool_bwd(NULL, &pl->hv, &a->hv);
        cmp_db("pool_bwd", a);

        db *tg = mk(d, n, c, h, w);
        double l1 = d->ops->l1_fwd(d->ctx, &x->dv, &tg->dv), l2 = Rf->l1_fwd(NULL, &x->hv, &tg->hv);
        T_ASSERT(fabs(l1 - l2) <= 1e-6 * fabs(l2), "l1_fwd (%s) %.9g vs %.9g", prec_names[p], l1, l2);
        d->ops->l1_bwd(d->ctx, &x->dv, &tg->dv, &a->dv);
        Rf->l1_bwd(NULL, &x->hv, &tg->hv, &a->hv);
        cmp_db("l1_bwd", a);
        d->ops->l1_bwd(d->ctx, &x->dv, &x->dv, &a->dv); /* y == t: the gradient is 0 */
        Rf->l1_bwd(NULL, &x->hv, &x->hv, &a->hv);
        cmp_db("l1_bwd y == t", a);

        d->ops->copy(d->ctx, &x->dv, &a->dv);
        Rf->copy(NULL, &x->hv, &a->hv);
        cmp_db("copy", a);
        d->ops->add(d->ctx, &g->dv, &a->dv);
        Rf->add(NULL, &g->hv, &a->hv);
        cmp_db("add", a);
        d->ops->zero(d->ctx, &a->dv);
        Rf->zero(NULL, &a->hv);
        cmp_db("zero", a);
        pool_free();
    }
}

static void test_elementwise_fp32(void) { elementwise(FP32); }
static void test_elementwise_bf16(void) { elementwise(BF16); }
static void test_elementwise_fp16(void) { elementwise(FP16); }

/* Adam on fp32 master weights; the compute copy in the compute type. */
static void adam_case(int p)
{
    need_gpu();
    dev_t_ D = dev(p);
    const dev_t_ *d = &D;
    size_t n = 100003;
    db *w = fvec(d, n), *g = fvec(d, n), *m = fvec(d, n), *v = fvec(d, n), *wc = wvec(d, n);
    for (size_t i = 0; i < n; i++) v->h[i] = fabsf(v->h[i]);
    d->ops->h2d(d->ctx, v->dp, v->h, n * sizeof(float));
    for (int step = 1; step <= 3; step++) {
        adam_hyper hp = {1e-3, 0.9, 0.999, 1e-8, step, 0.5};
        d->ops->adam(d->ctx, w->dp, d->ops->act_bytes == 4 ? NULL : wc->dp, g->dp, m->dp, v->dp,
                     (int64_t)n, &hp);
        Rf->adam(NULL, w->h, NULL, g->h, m->h, v->h, (int64_t)n, &hp);
    }
    cmp_fvec("adam w", w, w->h, 1e-5);
    cmp_fvec("adam m", m, m->h, 1e-5);
    cmp_fvec("adam v", v, v->h, 1e-5);
    if (d->ops->act_bytes != 4) {
        d->ops->get_f32(d->ctx, &wc->dall, wc->got);
        double err = norm_err(wc->got, w->h, n);
        T_ASSERT(err < d->tol, "adam w_compute (%s): relative error %.3g", prec_names[p], err);
    }
    pool_free();
}

static void test_adam_fp32(void) { adam_case(FP32); }
static void test_adam_bf16(void) { adam_case(BF16); }

/* put_f32 / get_f32 round trip: exact in fp32, within half an ulp in 16 bits
 * (2^-8 of the value in bf16, 2^-11 in fp16, plus fp16's subnormal step). */
static void test_transfers(void)
{
    need_gpu();
    for (int p = 0; p < NPREC; p++) {
        dev_t_ d = dev(p);
        db *b = mk(&d, 2, 5, 7, 9);
        float *src = malloc(b->len * sizeof(float));
        T_ASSERT(src, "malloc");
        for (size_t i = 0; i < b->len; i++) src[i] = (float)(2 * rng_uniform(&R) - 1);
        d.ops->put_f32(d.ctx, &b->dall, src);
        d.ops->get_f32(d.ctx, &b->dall, b->got);
        double half_ulp = d.ops->act_bytes == 4 ? 0 : (p == BF16 ? 0x1p-8 : 0x1p-11);
        for (size_t i = 0; i < b->len; i++)
            if (fabs((double)b->got[i] - src[i]) > half_ulp * fabs(src[i]) + 1e-7 * (p == FP16)) {
                free(src);
                T_ASSERT(0, "%s: element %zu: put %.9g, got %.9g", prec_names[p], i, src[i], b->got[i]);
            }
        free(src);
        pool_free();
    }
}

/* ---- the whole network ----------------------------------------------------------------- */

typedef struct {
    plan_t plan;
    net_t *net;
    optim_t *opt;
    ktab_t tab;
    kc_t kc;
    float *in, *tg;
    const kern_ops *ops;
    void *ctx;
} rig_t;

static rig_t rigs_[2];
static int nrigs;

static void rig_close(rig_t *r)
{
    optim_free(r->opt);
    if (r->net) net_free(r->net);
    ktab_free(&r->tab);
    plan_free(&r->plan);
    free(r->in);
    free(r->tg);
    memset(r, 0, sizeof *r);
}

static void rigs_free(void)
{
    while (nrigs > 0) rig_close(&rigs_[--nrigs]);
}

static rig_t *rig_open(const cfg_t *c, const kern_ops *ops, void *ctx)
{
    T_ASSERT(nrigs < 2, "rig pool full");
    rig_t *r = &rigs_[nrigs++];
    memset(r, 0, sizeof *r);
    char err[256];
    plan_build(&r->plan, c);
    ktab_init(&r->tab, 1024);
    r->ops = ops;
    r->ctx = ctx;
    r->net = net_create(&r->plan, ops, ctx, c->run.batch, 0, err, sizeof err);
    T_ASSERT(r->net, "%s", err);
    r->opt = optim_create(&stemdl_network, &r->plan, r->net, ops, ctx, 0, err, sizeof err);
    T_ASSERT(r->opt, "%s", err);
    net_init_params(r->net, 7);
    r->kc = (kc_t){.ops = ops, .ctx = ctx, .tab = &r->tab, .timing = 1};
    size_t ni = (size_t)c->run.batch * c->c_in * c->height * c->width;
    size_t nt = (size_t)c->run.batch * c->c_out * c->height * c->width;
    r->in = XMALLOC(ni * sizeof(float), "input");
    r->tg = XMALLOC(nt * sizeof(float), "target");
    data_generate(c, 11, 0, 0, c->run.batch, r->in, r->tg);
    return r;
}

/* One full step (forward, backward, Adam) from the same weights on the
 * reference set and the CUDA set: the loss, every layer's gradient and the
 * updated weights agree.  16-bit precisions round the input, the weights and
 * every activation: their bound is looser (2e-2 on the loss, 5e-2 on a
 * layer's gradient). */
static void step_case(int p)
{
    need_gpu();
    dev_t_ d = dev(p);
    cfg_t c;
    small_cfg(&c);
    rig_t *a = rig_open(&c, Rf, NULL), *b = rig_open(&c, d.ops, d.ctx);
    int64_t np = a->plan.params;
    double tl = p == FP32 ? 1e-5 : d.tol, tg = p == FP32 ? 1e-4 : (p == TF32 ? 1e-2 : 5e-2);
    adam_hyper h = {.lr = 1e-3, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .step = 1, .grad_scale = 1};
    double la = net_forward(a->net, &a->kc, a->in, a->tg), lb = net_forward(b->net, &b->kc, b->in, b->tg);
    T_ASSERT(fabs(la - lb) <= tl * fabs(la), "%s: loss %.9g (reference) vs %.9g (cuda)", prec_names[p], la, lb);
    net_backward(a->net, &a->kc, NULL, NULL);
    net_backward(b->net, &b->kc, NULL, NULL);
    const float *ga = net_grads(a->net);
    float *gb = XMALLOC((size_t)np * sizeof *gb, "gradients");
    d.ops->d2h(d.ctx, gb, net_grads(b->net), (size_t)np * sizeof *gb);
    /* fp16: the gradients carry the loss scale */
    kcu_stats st;
    K->get_stats(d.ctx, &st);
    double unscale = p == FP16 ? 1.0 / st.scale_final : 1.0;
    for (int li = 0; li < a->plan.n; li++) {
        const plan_layer *l = &a->plan.layers[li];
        int64_t cnt = l->weights + (l->bias ? l->c_out : 0);
        double dmax = 0, gmax = 0;
        for (int64_t j = l->off_w; j < l->off_w + cnt; j++) {
            double dd = fabs((double)ga[j] - gb[j] * unscale);
            if (dd > dmax || isnan(dd)) dmax = isnan(dd) ? INFINITY : dd;
            if (fabs(ga[j]) > gmax) gmax = fabs(ga[j]);
        }
        if (!(dmax <= tg * gmax + 1e-12)) free(gb);
        T_ASSERT(dmax <= tg * gmax + 1e-12, "%s: layer %s: gradients differ by %.3g (max |g| %.3g)",
                 prec_names[p], l->name, dmax, gmax);
    }
    free(gb);
    optim_step(a->opt, &a->kc, &h);
    optim_step(b->opt, &b->kc, &h);
    d.ops->sync(d.ctx);
    float *wa = XMALLOC((size_t)np * sizeof *wa, "wa"), *wb = XMALLOC((size_t)np * sizeof *wb, "wb");
    net_get_params(a->net, wa);
    net_get_params(b->net, wb);
    /* Adam's first step moves a weight by at most lr: in fp32 the updates
     * agree to 1% of that; in 16 bits a gradient near 0 may change sign, so
     * at most 2% of the weights may differ by more than 0.1 lr */
    double dmax = 0;
    int64_t far = 0;
    for (int64_t j = 0; j < np; j++) {
        double dd = fabs((double)wa[j] - wb[j]);
        if (dd > dmax || isnan(dd)) dmax = isnan(dd) ? INFINITY : dd;
        if (dd > 0.1 * h.lr) far++;
    }
    free(wa);
    free(wb);
    if (p == FP32) {
        T_ASSERT(dmax <= 1e-2 * h.lr, "fp32: updated weights differ by %.3g", dmax);
    } else {
        T_ASSERT(dmax <= 2.01 * h.lr, "%s: updated weights differ by %.3g (more than 2 lr)", prec_names[p], dmax);
        T_ASSERT(far <= np / 50, "%s: %lld of %lld updated weights differ by more than 0.1 lr",
                 prec_names[p], (long long)far, (long long)np);
    }
    d.ops->timer_flush(d.ctx);
    rigs_free();
}

static void test_step_fp32(void) { step_case(FP32); }
static void test_step_tf32(void) { step_case(TF32); }
static void test_step_bf16(void) { step_case(BF16); }
static void test_step_fp16(void) { step_case(FP16); }

/* The counted table of a CUDA step is the dry step's, row for row (the same
 * flops.h formulas through counted.c), and every kernel row has a time. */
static void test_step_counts_match_dry_step(void)
{
    need_gpu();
    dev_t_ d = dev(BF16);
    cfg_t c;
    small_cfg(&c);
    plan_t p;
    plan_build(&p, &c);
    ktab_t dry;
    int64_t dry_flops = train_dry_flops(&stemdl_network, &p, c.run.batch, &dry);
    rig_t *r = rig_open(&c, d.ops, d.ctx);
    adam_hyper h = {.lr = 1e-3, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .step = 1, .grad_scale = 1};
    net_forward(r->net, &r->kc, r->in, r->tg);
    net_backward(r->net, &r->kc, NULL, NULL);
    optim_step(r->opt, &r->kc, &h);
    d.ops->sync(d.ctx);
    d.ops->timer_flush(d.ctx);
    int64_t real = ktab_total_flops(&r->tab);
    int rows = r->tab.n, dry_rows = dry.n;
    int missing = -1, untimed = -1;
    for (int i = 0; i < dry.n; i++) {
        ktab_row *x = ktab_row_for(&r->tab, dry.rows[i].kernel, dry.rows[i].layer);
        if (x->calls != dry.rows[i].calls || x->flops != dry.rows[i].flops) missing = i;
        if (x->calls > 0 && !(x->time_s > 0) && strcmp(x->kernel, "copy") && strcmp(x->kernel, "zero"))
            untimed = i;
    }
    char miss[96] = "", unt[96] = "";
    if (missing >= 0) snprintf(miss, sizeof miss, "%s/%s", dry.rows[missing].kernel, dry.rows[missing].layer);
    if (untimed >= 0) snprintf(unt, sizeof unt, "%s/%s", dry.rows[untimed].kernel, dry.rows[untimed].layer);
    ktab_free(&dry);
    plan_free(&p);
    rigs_free();
    T_ASSERT(real == dry_flops, "cuda step %lld FLOPs, dry step %lld", (long long)real, (long long)dry_flops);
    T_ASSERT(rows == dry_rows, "cuda step %d table rows, dry step %d", rows, dry_rows);
    T_ASSERT(missing < 0, "row %s differs from the dry step", miss);
    T_ASSERT(untimed < 0, "row %s has no time", unt);
}

/* fp16: an inf in the gradient skips the step (weights unchanged), halves
 * the scale; a clean step then updates. */
static void test_fp16_loss_scaling(void)
{
    need_gpu();
    dev_t_ d = dev(FP16);
    cfg_t c;
    small_cfg(&c);
    rig_t *r = rig_open(&c, d.ops, d.ctx);
    int64_t np = r->plan.params;
    float *w0 = XMALLOC((size_t)np * sizeof(float), "w0"), *w1 = XMALLOC((size_t)np * sizeof(float), "w1");
    kcu_stats s0, s1, s2;
    K->get_stats(d.ctx, &s0);
    net_get_params(r->net, w0);
    net_forward(r->net, &r->kc, r->in, r->tg);
    net_backward(r->net, &r->kc, NULL, NULL);
    float inf = INFINITY;
    d.ops->h2d(d.ctx, (float *)net_grads(r->net) + np / 2, &inf, sizeof inf);
    adam_hyper h = {.lr = 1e-3, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .step = 1, .grad_scale = 1};
    optim_step(r->opt, &r->kc, &h);
    d.ops->sync(d.ctx);
    net_get_params(r->net, w1);
    K->get_stats(d.ctx, &s1);
    int same = !memcmp(w0, w1, (size_t)np * sizeof(float));
    net_forward(r->net, &r->kc, r->in, r->tg);
    net_backward(r->net, &r->kc, NULL, NULL);
    h.step = 2;
    optim_step(r->opt, &r->kc, &h);
    d.ops->sync(d.ctx);
    d.ops->timer_flush(d.ctx);
    net_get_params(r->net, w1);
    K->get_stats(d.ctx, &s2);
    int moved = memcmp(w0, w1, (size_t)np * sizeof(float)) != 0;
    free(w0);
    free(w1);
    rigs_free();
    T_ASSERT(s1.loss_scaling == 1, "fp16 without loss scaling");
    T_ASSERT(same, "a step with an inf gradient changed the weights");
    T_ASSERT(s1.skipped_steps == s0.skipped_steps + 1, "skipped steps %lld -> %lld", (long long)s0.skipped_steps,
             (long long)s1.skipped_steps);
    T_ASSERT(s1.scale_final == 0.5 * s0.scale_final, "scale %g -> %g after an overflow", s0.scale_final, s1.scale_final);
    T_ASSERT(moved, "the clean step after the skipped one did not update");
    T_ASSERT(s2.skipped_steps == s1.skipped_steps && s2.checked_steps == s1.checked_steps + 1,
             "clean step: skipped %lld, checked %lld", (long long)s2.skipped_steps, (long long)s2.checked_steps);
}

/* A kernel table freed before its timers were flushed (a step abandoned, a
 * failed test): its timers are dropped (ktab_free -> timer_discard), another
 * table's still get their times. */
static void test_timers_of_a_freed_table(void)
{
    need_gpu();
    dev_t_ d = dev(BF16);
    ktab_t a, b;
    ktab_init(&a, 8);
    ktab_init(&b, 8);
    kc_t ka = {.ops = d.ops, .ctx = d.ctx, .tab = &a, .timing = 1}, kb = {.ops = d.ops, .ctx = d.ctx, .tab = &b, .timing = 1};
    db *x = mk(&d, 2, 8, 64, 64), *y = mk(&d, 2, 8, 64, 64);
    kc_relu_fwd(&ka, "a", &x->dv, &y->dv);
    kc_relu_fwd(&kb, "b", &x->dv, &y->dv);
    kc_relu_fwd(&ka, "a", &x->dv, &y->dv);
    ktab_free(&a);
    d.ops->sync(d.ctx);
    d.ops->timer_flush(d.ctx);
    double tb = b.rows[0].time_s;
    ktab_free(&b);
    T_ASSERT(tb > 0, "the live table's kernel got no time");
}

/* The gradient transport's device times (one GPU, no NCCL): a gradient is
 * ready when the device has made it, not when the host queued the work. */
static void test_gradient_ready_is_device_time(void)
{
    need_gpu();
    dev_t_ d = dev(BF16);
    db *x = mk(&d, 4, 64, 128, 128), *y = mk(&d, 4, 64, 128, 128);
    db *wt = wvec(&d, (size_t)64 * 64 * 9);
    ktab_t t;
    ktab_init(&t, 8);
    kc_t kc = {.ops = d.ops, .ctx = d.ctx, .tab = &t, .timing = 1};
    kc_conv_fwd(&kc, "c", &x->dv, wt->dp, 3, &y->dv); /* chooses its algorithm outside the timing */
    d.ops->sync(d.ctx);
    d.ops->timer_flush(d.ctx);
    ktab_reset(&t);
    K->gs_prepare(d.ctx, 2, 0);
    K->gs_begin(d.ctx);
    for (int i = 0; i < 20; i++) kc_conv_fwd(&kc, "c", &x->dv, wt->dp, 3, &y->dv);
    K->gs_mark(d.ctx, 1);
    d.ops->sync(d.ctx);
    d.ops->timer_flush(d.ctx);
    double ready[2], st[1], en[1], busy = t.rows[0].time_s;
    int n = K->gs_settle(d.ctx, ready, 2, st, en, 1);
    ktab_free(&t);
    pool_free();
    T_ASSERT(n == 0, "%d reductions without NCCL", n);
    T_ASSERT(isnan(ready[0]), "slot 0 was not marked but has a time %g", ready[0]);
    T_ASSERT(ready[1] >= 0.9 * busy, "gradient ready %.6f s after the step's start, but the device worked %.6f s "
             "before making it", ready[1], busy);
}

/* The peak probe returns a plausible rate (1 TFLOP/s to 10 PFLOP/s) for each type. */
static void test_peak_probe(void)
{
    need_gpu();
    dev_t_ d = dev(BF16);
    const char *types[] = {"bf16", "fp16", "tf32", "fp32"};
    for (int i = 0; i < 4; i++) {
        double f = K->gemm_peak(d.ctx, types[i], 4096, 1, 3);
        T_ASSERT(f > 1e12 && f < 1e16, "%s GEMM peak %.3g FLOP/s", types[i], f);
    }
    T_ASSERT(K->gemm_peak(d.ctx, "fp8", 256, 0, 1) == 0, "an unknown type must give 0");
}

/* ---- settings: checked before any device is touched (these run without a GPU) ------ */

static void test_bad_settings_refused(void)
{
    need_module();
    char err[256] = "";
    kcu_opts o = {.precision = "fp8", .device = 0};
    T_ASSERT(K->create(&o, err, sizeof err) == NULL, "precision fp8 accepted");
    T_ASSERT(strstr(err, "fp32, tf32, bf16 or fp16"), "message: %s", err);
    o.precision = "bf16";
    o.algo = "fastest";
    err[0] = 0;
    T_ASSERT(K->create(&o, err, sizeof err) == NULL, "algo 'fastest' accepted");
    T_ASSERT(strstr(err, "find or heuristic"), "message: %s", err);
    o.algo = "find";
    setenv("EXADL_CUDNN_WS_MB", "lots", 1);
    err[0] = 0;
    void *ctx = K->create(&o, err, sizeof err);
    unsetenv("EXADL_CUDNN_WS_MB");
    T_ASSERT(ctx == NULL, "EXADL_CUDNN_WS_MB=lots accepted");
    T_ASSERT(strstr(err, "EXADL_CUDNN_WS_MB=lots"), "message: %s", err);
}

/* Without a GPU the device count says why (0); CUDA that cannot start is an
 * error (-1), never "no GPU"; with a GPU it is positive. */
static void test_device_count_reason(void)
{
    need_module();
    char why[512] = "";
    int n = K->device_count(why, sizeof why);
    T_ASSERT(n >= 0, "CUDA cannot start: %s", why);
    if (n == 0) {
        T_ASSERT(!strncmp(why, "cudaGetDeviceCount: ", 20), "reason '%s'", why);
    } else {
        kcu_device_info info;
        K->device_describe(0, &info);
        T_ASSERT(info.model[0] && info.cc_major >= 5 && info.memory_bytes > 0, "device 0 described as '%s'",
                 info.model);
    }
}

static void run(const char *name, void (*fn)(void))
{
    tap_run_(name, fn);
    pool_free();
    rigs_free();
}

int main(void)
{
    check_set_program("test_train_cuda");
    tap_catch_checks(); /* a CUDA error fails its test, the next tests run */
    R = rng_stream(2025, 5, 0, 0);
    tf32_env_at_start = getenv("NVIDIA_TF32_OVERRIDE");
    Rf = kern_ref_ops();
    K = kcu_load(nodev_why, sizeof nodev_why);
    if (K) {
        ndev = K->device_count(nodev_why, sizeof nodev_why);
    } else {
        /* the module needs the CUDA libraries: without them there is no GPU
         * to test, unless nvidia-smi -L lists one (gpu_probe.h) */
        ndev = gpu_probe_unloaded(nodev_why);
    }
    run("bad_settings_refused", test_bad_settings_refused);
    run("device_count_reason", test_device_count_reason);
    run("transfers", test_transfers);
    run("conv_fp32", test_conv_fp32);
    run("conv_tf32", test_conv_tf32);
    run("conv_bf16", test_conv_bf16);
    run("conv_fp16", test_conv_fp16);
    run("conv_chunked_fp32", test_conv_chunked_fp32);
    run("conv_chunked_bf16", test_conv_chunked_bf16);
    run("math_per_precision", test_math_per_precision);
    run("elementwise_fp32", test_elementwise_fp32);
    run("elementwise_bf16", test_elementwise_bf16);
    run("elementwise_fp16", test_elementwise_fp16);
    run("adam_fp32", test_adam_fp32);
    run("adam_bf16", test_adam_bf16);
    run("step_fp32", test_step_fp32);
    run("step_tf32", test_step_tf32);
    run("step_bf16", test_step_bf16);
    run("step_fp16", test_step_fp16);
    run("step_counts_match_dry_step", test_step_counts_match_dry_step);
    run("fp16_loss_scaling", test_fp16_loss_scaling);
    run("peak_probe", test_peak_probe);
    run("timers_of_a_freed_table", test_timers_of_a_freed_table);
    run("gradient_ready_is_device_time", test_gradient_ready_is_device_time);
    for (int p = 0; p < NPREC; p++) {
        if (ctxs[p]) K->release(ctxs[p]);
        if (chunk_ctxs[p]) K->release(chunk_ctxs[p]);
    }
    T_DONE();
}
#endif
