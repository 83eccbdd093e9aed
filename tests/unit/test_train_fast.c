/* The fast CPU kernel set (kern_fast*.c, oneDNN) against the reference set
 * (kern_ref.c): forward and every gradient of every kernel.
 *
 * Error norm: for each output buffer, the normwise relative error over the
 * view's elements,
 *     err = max_i |fast_i - ref_i| / max_i |ref_i|      (i over the window),
 * must be below 1e-4 (fp32; the reference accumulates in double).  Elements
 * of the buffer outside the window (other channels, the gap between samples)
 * must be left bit-for-bit as they were.
 *
 * Shapes are random: batch 1 and 3; channel counts 1..21 (mostly not
 * multiples of 8); odd, even and tiny image sizes (kernels wider than the
 * image); k = 1, 3, 5; every tensor a window of channels of a larger buffer
 * with a gap between samples (sstride > c*h*w); "+=" destinations pre-filled
 * with random values.  Every convolution runs with the default workspace, with
 * a limit that splits the batch into chunks, and with one that leaves one
 * output row per band, and on 1 and 2 threads. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/rng.h"
#include "benchmarks/train/kernels/fast/kf_ctx.h"
#include "benchmarks/train/kernels/kern.h"
#include "tests/unit/tap.h"

#define TOL 1e-4

static rng_t R;
static int rnd(int lo, int hi) { return lo + (int)(rng_next(&R) % (uint64_t)(hi - lo + 1)); }

/* A window of c channels among ctot, samples `gap` floats further apart than
 * ctot*h*w, filled with uniform numbers in [-1, 1). */
typedef struct {
    float *buf;
    size_t len;
    tview v;
} tb;

static tb *pool_[64];
static int npool;

static tb *mk(int n, int c, int h, int w)
{
    tb *t = calloc(1, sizeof *t);
    if (!t) abort();
    int pre = rnd(0, 2), post = rnd(0, 2), gap = rnd(1, 7);
    int64_t ss = (int64_t)(pre + c + post) * h * w + gap;
    t->len = (size_t)(n * ss);
    t->buf = malloc(t->len * sizeof(float) + 1);
    if (!t->buf || npool == 64) abort();
    for (size_t i = 0; i < t->len; i++) t->buf[i] = (float)(2 * rng_uniform(&R) - 1);
    t->v = (tview){t->buf + (size_t)pre * h * w, n, c, h, w, ss};
    pool_[npool++] = t;
    return t;
}

/* A copy of t (same window in a new buffer). */
static tb *dup(const tb *t)
{
    tb *d = calloc(1, sizeof *d);
    if (!d || npool == 64) abort();
    *d = *t;
    d->buf = malloc(t->len * sizeof(float) + 1);
    if (!d->buf) abort();
    memcpy(d->buf, t->buf, t->len * sizeof(float));
    d->v.p = d->buf + ((float *)t->v.p - t->buf);
    pool_[npool++] = d;
    return d;
}

static float *vec(size_t n)
{
    tb *t = calloc(1, sizeof *t);
    if (!t || npool == 64) abort();
    t->len = n;
    t->buf = malloc(n * sizeof(float) + 1);
    if (!t->buf) abort();
    for (size_t i = 0; i < n; i++) t->buf[i] = (float)(2 * rng_uniform(&R) - 1);
    pool_[npool++] = t;
    return t->buf;
}

static float *vdup(const float *a, size_t n)
{
    float *b = vec(n);
    memcpy(b, a, n * sizeof *b);
    return b;
}

static void pool_free(void)
{
    while (npool > 0) {
        free(pool_[--npool]->buf);
        free(pool_[npool]);
    }
}

static int in_window(const tb *t, size_t i)
{
    size_t off = (size_t)((float *)t->v.p - t->buf);
    if (i < off) return 0;
    size_t j = i - off, s = j / (size_t)t->v.sstride, r = j % (size_t)t->v.sstride;
    return s < (size_t)t->v.n && r < (size_t)t->v.c * t->v.h * t->v.w;
}

/* fast (a) against reference (b): the error norm of the header, and the
 * outside of the window untouched (equal in both, which started equal). */
static void cmp_tb(const char *what, const tb *a, const tb *b)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < a->len; i++) {
        if (in_window(a, i)) {
            double d = fabs((double)a->buf[i] - b->buf[i]);
            num = d > num ? d : num;
            den = fabs(b->buf[i]) > den ? fabs(b->buf[i]) : den;
        } else {
            T_ASSERT(a->buf[i] == b->buf[i], "%s: element %zu outside the window changed", what, i);
        }
    }
    double err = den > 0 ? num / den : num;
    T_ASSERT(err < TOL, "%s: relative error %.3g (max |diff| %.3g, max |ref| %.3g) n=%d c=%d h=%d w=%d",
             what, err, num, den, a->v.n, a->v.c, a->v.h, a->v.w);
}

static void cmp_vec(const char *what, const float *a, const float *b, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        num = d > num ? d : num;
        den = fabs(b[i]) > den ? fabs(b[i]) : den;
    }
    double err = den > 0 ? num / den : num;
    T_ASSERT(err < TOL, "%s: relative error %.3g over %zu values", what, err, n);
}

static const kern_ops *F, *Rf;
static void *ctx1, *ctx2;

/* ---- convolutions ---------------------------------------------------------- */

static void conv_case(void *ctx, int n, int ci, int co, int k, int h, int w)
{
    char what[96];
    tb *x = mk(n, ci, h, w), *y = mk(n, co, h, w), *dy = mk(n, co, h, w), *dx = mk(n, ci, h, w);
    float *wt = vec((size_t)co * ci * k * k);
    /* forward: y = conv(x, w), over a destination full of garbage */
    tb *y2 = dup(y);
    F->conv_fwd(ctx, &x->v, wt, k, &y->v);
    Rf->conv_fwd(NULL, &x->v, wt, k, &y2->v);
    snprintf(what, sizeof what, "conv_fwd k=%d ci=%d co=%d", k, ci, co);
    cmp_tb(what, y, y2);
    /* data gradient: dx += conv_T(dy, w) into a pre-filled dx */
    tb *dx2 = dup(dx);
    F->conv_bwd_data(ctx, &dy->v, wt, k, &dx->v);
    Rf->conv_bwd_data(NULL, &dy->v, wt, k, &dx2->v);
    snprintf(what, sizeof what, "conv_bwd_data k=%d ci=%d co=%d", k, ci, co);
    cmp_tb(what, dx, dx2);
    /* weight gradient: dw = sum x (*) dy, over garbage */
    size_t nw = (size_t)co * ci * k * k;
    float *dw = vec(nw), *dw2 = vdup(dw, nw);
    F->conv_bwd_weights(ctx, &x->v, &dy->v, k, dw);
    Rf->conv_bwd_weights(NULL, &x->v, &dy->v, k, dw2);
    snprintf(what, sizeof what, "conv_bwd_weights k=%d ci=%d co=%d n=%d h=%d w=%d", k, ci, co, n,
             h, w);
    cmp_vec(what, dw, dw2, nw);
}

static void tconv_case(void *ctx, int n, int ci, int co, int h, int w)
{
    tb *x = mk(n, ci, h, w), *y = mk(n, co, 2 * h, 2 * w), *dy = mk(n, co, 2 * h, 2 * w),
       *dx = mk(n, ci, h, w);
    float *wt = vec((size_t)ci * co);
    tb *y2 = dup(y);
    F->tconv_fwd(ctx, &x->v, wt, &y->v);
    Rf->tconv_fwd(NULL, &x->v, wt, &y2->v);
    cmp_tb("tconv_fwd", y, y2);
    tb *dx2 = dup(dx);
    F->tconv_bwd_data(ctx, &dy->v, wt, &dx->v);
    Rf->tconv_bwd_data(NULL, &dy->v, wt, &dx2->v);
    cmp_tb("tconv_bwd_data", dx, dx2);
    float *dw = vec((size_t)ci * co), *dw2 = vdup(dw, (size_t)ci * co);
    F->tconv_bwd_weights(ctx, &x->v, &dy->v, dw);
    Rf->tconv_bwd_weights(NULL, &x->v, &dy->v, dw2);
    cmp_vec("tconv_bwd_weights", dw, dw2, (size_t)ci * co);
}

/* Random shapes, each with every workspace limit.  limit 0 = default. */
static void conv_sweep(void *ctx, int cases)
{
    static const size_t limits[] = {0, 40000, 1};
    for (int t = 0; t < cases; t++) {
        int k = (int[]){1, 3, 5}[t % 3];
        int n = t % 2 ? 3 : 1, ci = rnd(1, 21), co = rnd(1, 21);
        int h = t % 5 == 4 ? rnd(1, 3) : rnd(4, 13), w = t % 5 == 4 ? rnd(1, 3) : rnd(4, 13);
        for (size_t l = 0; l < sizeof limits / sizeof *limits; l++) {
            kern_fast_set_workspace_limit(ctx, limits[l] ? limits[l] : KF_WS_LIMIT);
            conv_case(ctx, n, ci, co, k, h, w);
            tconv_case(ctx, n, ci, co, h, w);
            pool_free();
        }
    }
    kern_fast_set_workspace_limit(ctx, KF_WS_LIMIT);
}

static void test_conv_one_thread(void) { conv_sweep(ctx1, 15); }
static void test_conv_two_threads(void) { conv_sweep(ctx2, 6); }

/* A wider case near the network's shapes: 5x5, 64 maps out, 8 rows per band. */
static void test_conv_wide(void)
{
    conv_case(ctx1, 1, 37, 64, 5, 16, 16);
    kern_fast_set_workspace_limit(ctx1, 200000);
    conv_case(ctx1, 3, 37, 64, 5, 16, 16);
    tconv_case(ctx1, 3, 37, 64, 16, 16);
    kern_fast_set_workspace_limit(ctx1, KF_WS_LIMIT);
}

/* ---- element-wise kernels -------------------------------------------------- */

static void test_elementwise(void)
{
    for (int t = 0; t < 8; t++) {
        int n = t % 2 ? 3 : 1, c = rnd(1, 19), h = 2 * rnd(1, 7), w = 2 * rnd(1, 7);
        tb *x = mk(n, c, h, w), *a = mk(n, c, h, w), *b = dup(a);
        float *bias = vec((size_t)c);
        F->bias_fwd(NULL, &a->v, bias);
        Rf->bias_fwd(NULL, &b->v, bias);
        cmp_tb("bias_fwd", a, b);
        float *db = vec((size_t)c), *db2 = vdup(db, (size_t)c);
        F->bias_bwd(NULL, &x->v, db);
        Rf->bias_bwd(NULL, &x->v, db2);
        cmp_vec("bias_bwd", db, db2, (size_t)c);

        F->relu_fwd(NULL, &x->v, &a->v);
        Rf->relu_fwd(NULL, &x->v, &b->v);
        cmp_tb("relu_fwd", a, b);
        tb *xi = dup(x), *xi2 = dup(x); /* in place: x and y the same view */
        F->relu_fwd(NULL, &xi->v, &xi->v);
        Rf->relu_fwd(NULL, &xi2->v, &xi2->v);
        cmp_tb("relu_fwd in place", xi, xi2);
        tb *g = mk(n, c, h, w);
        F->relu_bwd(NULL, &x->v, &g->v, &a->v); /* "+=" into what a holds */
        Rf->relu_bwd(NULL, &x->v, &g->v, &b->v);
        cmp_tb("relu_bwd", a, b);

        tb *p = mk(n, c, h / 2, w / 2), *p2 = dup(p);
        F->pool_fwd(NULL, &x->v, &p->v);
        Rf->pool_fwd(NULL, &x->v, &p2->v);
        cmp_tb("pool_fwd", p, p2);
        F->pool_bwd(NULL, &p->v, &a->v);
        Rf->pool_bwd(NULL, &p->v, &b->v);
        cmp_tb("pool_bwd", a, b);

        tb *tg = mk(n, c, h, w);
        double l1 = F->l1_fwd(NULL, &x->v, &tg->v), l2 = Rf->l1_fwd(NULL, &x->v, &tg->v);
        T_ASSERT(fabs(l1 - l2) <= TOL * fabs(l2), "l1_fwd %.9g vs %.9g", l1, l2);
        F->l1_bwd(NULL, &x->v, &tg->v, &a->v);
        Rf->l1_bwd(NULL, &x->v, &tg->v, &b->v);
        cmp_tb("l1_bwd", a, b);
        /* y == t in places: the gradient must be 0 there */
        tb *same = dup(x);
        F->l1_bwd(NULL, &x->v, &same->v, &a->v);
        Rf->l1_bwd(NULL, &x->v, &same->v, &b->v);
        cmp_tb("l1_bwd y == t", a, b);

        F->copy(NULL, &x->v, &a->v);
        Rf->copy(NULL, &x->v, &b->v);
        cmp_tb("copy", a, b);
        F->add(NULL, &g->v, &a->v);
        Rf->add(NULL, &g->v, &b->v);
        cmp_tb("add", a, b);
        F->zero(NULL, &a->v);
        Rf->zero(NULL, &b->v);
        cmp_tb("zero", a, b);
        pool_free();
    }
}

static void test_adam(void)
{
    size_t n = 1001;
    float *w = vec(n), *g = vec(n), *m = vec(n), *v = vec(n), *wc = vec(n);
    for (size_t i = 0; i < n; i++) v[i] = fabsf(v[i]);
    float *w2 = vdup(w, n), *m2 = vdup(m, n), *v2 = vdup(v, n), *wc2 = vdup(wc, n);
    for (int step = 1; step <= 3; step++) {
        adam_hyper hp = {1e-3, 0.9, 0.999, 1e-8, step, 0.5};
        F->adam(NULL, w, wc, g, m, v, (int64_t)n, &hp);
        Rf->adam(NULL, w2, wc2, g, m2, v2, (int64_t)n, &hp);
    }
    cmp_vec("adam w", w, w2, n);
    cmp_vec("adam m", m, m2, n);
    cmp_vec("adam v", v, v2, n);
    cmp_vec("adam w_compute", wc, wc2, n);
    pool_free();
}

/* The same number bit for bit, or both NaN (a NaN's payload and sign are
 * not numerics: scalar and packed code may pick either operand's). */
static void cmp_bits(const char *what, const char *ctxname, const float *a, const float *b,
                     size_t n)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(a[i]) && isnan(b[i])) continue;
        if (memcmp(&a[i], &b[i], sizeof a[i]) && !bad++) first = i;
    }
    T_ASSERT(bad == 0, "%s (%s): %zu of %zu values differ in their bits (first at %zu: %a, reference %a)",
             what, ctxname, bad, n, first, (double)a[first], (double)b[first]);
}

/* Uniform numbers in [-1, 1) with every 5th value from a list of edge
 * floats: zeros of both signs, the smallest and largest denormals, the
 * smallest normal, the largest float, infinities, NaN, ties of bf16 rounding
 * (the low 16 bits 0x8000) and values just beside them. */
static float *edge_vec(size_t n)
{
    static const uint32_t edges[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu,
                                     0x00800000u, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u,
                                     0xff800000u, 0x7fc00000u, 0x3f808000u, 0xbf818000u,
                                     0x3f807fffu, 0x3f808001u, 0x3f800000u, 0x42c80000u};
    float *x = vec(n);
    for (size_t i = 0; i < n; i += 5)
        memcpy(&x[i], &edges[(i / 5) % (sizeof edges / sizeof *edges)], sizeof x[i]);
    return x;
}

/* ReLU, zero and Adam: the fast loops (vectorised, over OpenMP threads in blocks
 * of 2^16; module.mk, kern_fast.c) give the reference's floats bit for bit,
 * edge values included, with no context (one thread), one and two threads,
 * over lengths that end inside a block. */
static void test_elementwise_bits(void)
{
    const size_t n = 3 * ((size_t)1 << 16) + 37;
    void *ctxs[] = {NULL, ctx1, ctx2};
    const char *names[] = {"no context", "1 thread", "2 threads"};
    for (int k = 0; k < 3; k++) {
        float *x = edge_vec(n), *y = vec(n), *y2 = vdup(y, n), *g = edge_vec(n);
        float *d = edge_vec(n), *d2 = vdup(d, n);
        tview xv = {x, 2, 1, 1, (int)(n / 2), (int64_t)(n / 2)}, yv = xv, y2v = xv, gv = xv;
        tview dv = xv, d2v = xv;
        yv.p = y, y2v.p = y2, gv.p = g, dv.p = d, d2v.p = d2;
        F->relu_fwd(ctxs[k], &xv, &yv);
        Rf->relu_fwd(NULL, &xv, &y2v);
        cmp_bits("relu_fwd", names[k], y, y2, n);
        F->relu_bwd(ctxs[k], &xv, &gv, &dv);
        Rf->relu_bwd(NULL, &xv, &gv, &d2v);
        cmp_bits("relu_bwd", names[k], d, d2, n);
        F->zero(ctxs[k], &dv);
        Rf->zero(NULL, &d2v);
        cmp_bits("zero", names[k], d, d2, n);

        float *w = edge_vec(n), *m = edge_vec(n), *v = edge_vec(n);
        for (size_t i = 0; i < n; i++) v[i] = fabsf(v[i]);
        float *w2 = vdup(w, n), *m2 = vdup(m, n), *v2 = vdup(v, n);
        for (int step = 1; step <= 2; step++) {
            adam_hyper hp = {1e-3, 0.9, 0.999, 1e-8, step, 0.5};
            F->adam(ctxs[k], w, NULL, g, m, v, (int64_t)n, &hp);
            Rf->adam(NULL, w2, NULL, g, m2, v2, (int64_t)n, &hp);
        }
        cmp_bits("adam w", names[k], w, w2, n);
        cmp_bits("adam m", names[k], m, m2, n);
        cmp_bits("adam v", names[k], v, v2, n);
        pool_free();
    }
}

static void test_library(void)
{
    const char *s = kern_fast_library();
    T_ASSERT(s && !strncmp(s, "oneDNN ", 7), "kern_fast_library() = '%s'", s ? s : "(null)");
    T_ASSERT(!strcmp(F->name, "fast"), "name '%s'", F->name);
}

/* A failed assertion jumps out of a test: free what it left. */
static void run(const char *name, void (*fn)(void))
{
    tap_run_(name, fn);
    pool_free();
}

int main(void)
{
    R = rng_stream(2024, 5, 0, 0);
    F = kern_fast_ops();
    Rf = kern_ref_ops();
    ctx1 = kern_fast_create(1);
    ctx2 = kern_fast_create(2);
    run("library", test_library);
    run("conv_one_thread", test_conv_one_thread);
    run("conv_two_threads", test_conv_two_threads);
    run("conv_wide", test_conv_wide);
    run("elementwise", test_elementwise);
    run("adam", test_adam);
    run("elementwise_bits", test_elementwise_bits);
    kern_fast_release(ctx1);
    kern_fast_release(ctx2);
    T_DONE();
}
