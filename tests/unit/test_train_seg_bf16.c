/* The fast set's dilated and grouped convolutions (fast/kern_fast_seg.c)
 * in bf16 mode (kern_fast_set_bf16, climate --precision bf16) against the
 * fp32 reference set (ref/kern_ref_seg.c): forward, data gradient, weight
 * gradient, on test_train_seg_fast.c's 12 shapes (stride 2, atrous rates 2,
 * 4, 6, 1x1, 7x7, odd channel counts, depthwise with stride 1 and 2 and
 * rate 2, 3 groups), 1 thread.
 *
 * Error norm, as test_train_bf16.c: the relative L2 error of each output,
 * err = ||fast - ref||_2 / ||ref||_2.  Bounds:
 *  - against the reference on the fp32 inputs: err < 1e-2 (bf16 keeps 8
 *    bits: rounding both inputs of a product costs up to 2u = 7.8e-3, rms
 *    at most 3.2e-3, and on independent inputs the normwise error stays near
 *    one product's whatever the reduction length; test_train_bf16.c gives
 *    the argument), and err > 1e-4: an error that small means the inputs
 *    were not rounded to bf16 at all;
 *  - against the reference on the inputs rounded to bf16 first (round to
 *    nearest even): err < 1e-4, so what is left is fp32 accumulation: the
 *    kernel rounds its inputs and nothing else;
 *  - kern_fast_kernel_dtype names the dconv rows bf16 and batch norm, the
 *    loss and pooling fp32.
 * Every test says SKIP where oneDNN has neither AVX512-BF16 nor AMX (the
 * runtime refuses bf16 there: tests/it/climate_bf16.sh). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/rng.h"
#include "benchmarks/train/kernels/kern.h"
#include "tests/unit/tap.h"

#define TOL_BF16 1e-2
#define TOL_ROUNDED 1e-4

static rng_t R;
static const kern_ops *F, *Rf;
static void *ctx;
static double worst[3], least[3] = {1, 1, 1}, worst_rounded;

static float bf16r(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    u += 0x7FFFu + ((u >> 16) & 1u); /* to nearest, ties to even (finite inputs) */
    u &= 0xFFFF0000u;
    memcpy(&x, &u, sizeof x);
    return x;
}

static float *rnd(size_t n)
{
    float *p = malloc(n * sizeof *p + 1);
    if (!p) abort();
    for (size_t i = 0; i < n; i++) p[i] = (float)(2 * rng_uniform(&R) - 1);
    return p;
}

static float *rounded(const float *a, size_t n)
{
    float *p = malloc(n * sizeof *p + 1);
    if (!p) abort();
    for (size_t i = 0; i < n; i++) p[i] = bf16r(a[i]);
    return p;
}

static double l2err(const float *f, const float *r, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)f[i] - r[i];
        num += d * d, den += (double)r[i] * r[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* n ci co k stride pad dil H W groups (test_train_seg_fast.c's) */
static const int shapes[][10] = {
    {2, 5, 7, 3, 1, 1, 1, 9, 10, 1},    {1, 3, 9, 3, 2, 1, 1, 13, 16, 1},
    {2, 6, 5, 3, 1, 2, 2, 11, 9, 1},    {1, 4, 6, 3, 1, 4, 4, 12, 13, 1},
    {2, 3, 4, 3, 1, 6, 6, 10, 14, 1},   {3, 9, 3, 1, 1, 0, 1, 7, 5, 1},
    {1, 16, 8, 1, 2, 0, 1, 8, 9, 1},    {2, 2, 3, 7, 2, 3, 1, 15, 12, 1},
    {1, 17, 19, 3, 1, 1, 1, 6, 6, 1},   {2, 13, 13, 3, 1, 2, 2, 9, 11, 13},
    {1, 16, 16, 3, 2, 1, 1, 10, 9, 16}, {2, 6, 9, 3, 1, 1, 1, 7, 8, 3}};

static tview dense(float *p, int n, int c, int h, int w)
{
    return (tview){p, n, c, h, w, (int64_t)c * h * w};
}

/* pass 0 fwd, 1 bwd_data, 2 bwd_weights: out = fast bf16, r = reference on
 * fp32 inputs, rr = reference on rounded inputs */
static void run(int pass, const int *s)
{
    kern_dconv g = {s[3], s[4], s[5], s[6], s[9]};
    int n = s[0], ci = s[1], co = s[2], H = s[7], W = s[8];
    int ho = kern_dconv_out(H, &g), wo = kern_dconv_out(W, &g), G = kern_dconv_groups(&g);
    size_t nx = (size_t)n * ci * H * W, ny = (size_t)n * co * ho * wo,
           nw = (size_t)co * (ci / G) * g.k * g.k;
    /* the pass's two inputs a, b and its output (nout elements) */
    size_t na = pass == 1 ? ny : nx, nb = pass == 2 ? ny : nw, no = pass == 0 ? ny : pass == 1 ? nx : nw;
    float *a = rnd(na), *b = rnd(nb), *ar = rounded(a, na), *br = rounded(b, nb);
    float *o = calloc(no + 1, sizeof *o), *r = calloc(no + 1, sizeof *r), *rr = calloc(no + 1, sizeof *rr);
    if (!o || !r || !rr) abort();
    const kern_ops *sets[3] = {F, Rf, Rf};
    void *ctxs[3] = {ctx, NULL, NULL};
    float *ins[3][2] = {{a, b}, {a, b}, {ar, br}}, *outs[3] = {o, r, rr};
    for (int k = 0; k < 3; k++) {
        const kern_ops *S = sets[k];
        if (pass == 0) {
            tview x = dense(ins[k][0], n, ci, H, W), y = dense(outs[k], n, co, ho, wo);
            S->dconv_fwd(ctxs[k], &x, ins[k][1], &g, &y);
        } else if (pass == 1) {
            tview dy = dense(ins[k][0], n, co, ho, wo), dx = dense(outs[k], n, ci, H, W);
            S->dconv_bwd_data(ctxs[k], &dy, ins[k][1], &g, &dx);
        } else {
            tview x = dense(ins[k][0], n, ci, H, W), dy = dense(ins[k][1], n, co, ho, wo);
            S->dconv_bwd_weights(ctxs[k], &x, &dy, &g, outs[k]);
        }
    }
    double e = l2err(o, r, no), er = l2err(o, rr, no);
    worst[pass] = fmax(worst[pass], e), least[pass] = fmin(least[pass], e);
    worst_rounded = fmax(worst_rounded, er);
    free(a), free(b), free(ar), free(br), free(o), free(r), free(rr);
    static const char *name[3] = {"dconv_fwd", "dconv_bwd_data", "dconv_bwd_weights"};
    T_ASSERT(e < TOL_BF16 && e > 1e-4,
             "%s, shape %d %d %d k%d s%d p%d d%d %dx%d g%d: error %.2e against fp32 (want 1e-4 .. 1e-2)",
             name[pass], n, ci, co, g.k, g.stride, g.pad, g.dil, H, W, G, e);
    T_ASSERT(er < TOL_ROUNDED, "%s, shape %d %d %d k%d g%d: error %.2e against the rounded inputs",
             name[pass], n, ci, co, g.k, G, er);
}

static void need_bf16(void)
{
    char why[256];
    if (kern_fast_bf16_missing(why, sizeof why)) T_SKIP("%s", why);
}

static void test_dconv(void)
{
    need_bf16();
    for (int pass = 0; pass < 3; pass++)
        for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) run(pass, shapes[i]);
    printf("# bf16 against fp32: fwd %.2e .. %.2e, bwd_data %.2e .. %.2e, bwd_weights %.2e .. "
           "%.2e; against rounded inputs at most %.2e\n",
           least[0], worst[0], least[1], worst[1], least[2], worst[2], worst_rounded);
}

static void test_dtypes(void)
{
    need_bf16();
    const char *bf[] = {"dconv_fwd", "dconv_bwd_data", "dconv_bwd_weights"};
    const char *fp[] = {"bn_fwd", "bn_bwd", "wce_fwd", "wce_bwd", "gpool_fwd", "bcast_fwd"};
    for (size_t i = 0; i < 3; i++)
        T_ASSERT(!strcmp(kern_fast_kernel_dtype(ctx, bf[i]), "bf16"), "%s not bf16", bf[i]);
    for (size_t i = 0; i < sizeof fp / sizeof *fp; i++)
        T_ASSERT(!strcmp(kern_fast_kernel_dtype(ctx, fp[i]), "fp32"), "%s not fp32", fp[i]);
}

int main(void)
{
    R = rng_stream(29, 33, 0, 0);
    F = kern_fast_ops(), Rf = kern_ref_ops();
    ctx = kern_fast_create(1);
    kern_fast_set_bf16(ctx, 1);
    T_RUN(test_dconv);
    T_RUN(test_dtypes);
    kern_fast_release(ctx);
    T_DONE();
}
