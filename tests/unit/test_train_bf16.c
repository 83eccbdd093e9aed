/* The fast CPU set in bf16 mode (kern_fast_set_bf16, --precision bf16)
 * against the fp32 reference set (kern_ref.c, kern_ref_3d.c): every kernel
 * that runs in bf16 (2D convolutions k = 1, 3, 5 forward, data and weight
 * gradient, the banded data gradient; the transposed convolution; the 3D
 * convolutions; the dense layers).
 *
 * Error norm: the relative L2 error of each output over the reference,
 *     err = ||fast - ref||_2 / ||ref||_2
 * (for a "+=" destination, of what the kernel added: out - before).
 * Bound: err < 1e-2.  Why: bf16 keeps 8 significant bits, so rounding an
 * input costs a relative error up to u = 2^-8 = 3.9e-3 (rms at most
 * u / sqrt(3)) and a product of two rounded inputs up to 2u = 7.8e-3 (rms at
 * most sqrt(2/3) u = 3.2e-3); the sum is accumulated in fp32 (~1e-7 per term,
 * negligible).  On these inputs (uniform in [-1, 1), independent signs) the
 * products' errors are independent and of mean zero, so over a reduction of
 * any length L the error of a sum grows as sqrt(L), like the sum itself: the
 * normwise error stays near one product's rms error, whatever L is (9 to
 * 600 here), and does not grow L-fold.  1e-2 (2.5 u) leaves a margin of 3
 * over that rms bound and lies above the worst case of one product (2u).
 * Measured on AMD EPYC (avx512_core_bf16): 1.7e-3 to 2.2e-3 (printed as
 * "#" lines).
 * Lower bound: err > 1e-4 (the fp32 set's own tolerance, test_train_fast.c):
 * an error that small means the kernel did not round to bf16 at all.
 *
 * On a CPU where oneDNN has neither AVX512-BF16 nor AMX every test says
 * SKIP: the runtime refuses bf16 there (tests/it/train_bf16.sh tests that
 * refusal by masking the ISA). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/rng.h"
#include "benchmarks/train/kernels/fast/kf_ctx.h"
#include "benchmarks/train/kernels/kern.h"
#include "tests/unit/tap.h"

#define TOL_BF16 1e-2
#define TOL_ROUNDED 1e-4
#define TOL_FP32 1e-4

static rng_t R;
static const kern_ops *F, *Rf;
static void *ctx; /* a fast context in bf16 mode, 1 thread */

/* every buffer of a test, freed after it (also when an assertion jumps) */
static float *pool_[64];
static int npool;

/* n floats: a copy of from, or (from NULL) uniform in [-1, 1) */
static float *buf(size_t n, const float *from)
{
    float *p = malloc(n * sizeof *p + 1);
    if (!p || npool == 64) abort();
    pool_[npool++] = p;
    for (size_t i = 0; i < n; i++) p[i] = from ? from[i] : (float)(2 * rng_uniform(&R) - 1);
    return p;
}
#define vec(n) buf((n), NULL)
#define vdup(a, n) buf((n), (a))

static void pool_free(void)
{
    while (npool) free(pool_[--npool]);
}

/* ||(a - base) - (r - base)|| / ||r - base|| (base NULL: 0) */
static double rel_l2(const float *a, const float *r, const float *base, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double b = base ? base[i] : 0, d = (double)a[i] - r[i], v = (double)r[i] - b;
        num += d * d;
        den += v * v;
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* the bf16 result within TOL_BF16 of the reference, and not fp32's own */
static void check(const char *what, const float *a, const float *r, const float *base, size_t n)
{
    double e = rel_l2(a, r, base, n);
    printf("# %s: relative L2 error %.2e\n", what, e);
    T_ASSERT(e < TOL_BF16, "%s: relative L2 error %.3g >= %g", what, e, TOL_BF16);
    T_ASSERT(e > TOL_ROUNDED, "%s: relative L2 error %.3g: not rounded to bf16", what, e);
}

static void need_bf16(void)
{
    char why[256];
    if (kern_fast_bf16_missing(why, sizeof why)) T_SKIP("%s", why);
}

/* ---- 2D: dense NCHW views with a gap between samples ----------------------- */

static tview view(float *p, int n, int c, int h, int w)
{
    return (tview){p, n, c, h, w, (int64_t)c * h * w + 3};
}
static size_t vlen(int n, int c, int h, int w) { return (size_t)n * ((size_t)c * h * w + 3); }

static void conv2d(int n, int ci, int co, int k, int h, int w)
{
    need_bf16();
    char what[96];
    size_t nx = vlen(n, ci, h, w), ny = vlen(n, co, h, w), nw = (size_t)co * ci * k * k;
    float *x = vec(nx), *wt = vec(nw), *dy = vec(ny);
    float *y = vec(ny), *y2 = vdup(y, ny);
    tview vx = view(x, n, ci, h, w), vy = view(y, n, co, h, w), vy2 = view(y2, n, co, h, w);
    tview vdy = view(dy, n, co, h, w);
    F->conv_fwd(ctx, &vx, wt, k, &vy);
    Rf->conv_fwd(NULL, &vx, wt, k, &vy2);
    snprintf(what, sizeof what, "conv_fwd k=%d ci=%d co=%d", k, ci, co);
    check(what, y, y2, NULL, ny);
    /* data gradient "+=" into a pre-filled dx */
    float *dx0 = vec(nx), *dx = vdup(dx0, nx), *dx2 = vdup(dx0, nx);
    tview vdx = view(dx, n, ci, h, w), vdx2 = view(dx2, n, ci, h, w);
    F->conv_bwd_data(ctx, &vdy, wt, k, &vdx);
    Rf->conv_bwd_data(NULL, &vdy, wt, k, &vdx2);
    snprintf(what, sizeof what, "conv_bwd_data k=%d ci=%d co=%d", k, ci, co);
    check(what, dx, dx2, dx0, nx);
    float *dw = vec(nw), *dw2 = vec(nw);
    F->conv_bwd_weights(ctx, &vx, &vdy, k, dw);
    Rf->conv_bwd_weights(NULL, &vx, &vdy, k, dw2);
    snprintf(what, sizeof what, "conv_bwd_weights k=%d ci=%d co=%d", k, ci, co);
    check(what, dw, dw2, NULL, nw);
}

static void test_conv_k3(void) { conv2d(2, 13, 16, 3, 12, 10); }
static void test_conv_k5(void) { conv2d(2, 16, 24, 5, 8, 8); }
static void test_conv_1x1(void) { conv2d(3, 20, 12, 1, 9, 7); }

/* a workspace of a few rows: sample chunks, row bands, and the data
 * gradient as a forward convolution with flipped weights (FWD_ACC) */
static void test_conv_bands(void)
{
    need_bf16();
    kern_fast_set_workspace_limit(ctx, 16 * 1024);
    conv2d(2, 16, 16, 3, 16, 16);
    kern_fast_set_workspace_limit(ctx, KF_WS_LIMIT);
}

static void test_tconv(void)
{
    need_bf16();
    int n = 2, ci = 24, co = 12, h = 6, w = 5;
    size_t nx = vlen(n, ci, h, w), ny = vlen(n, co, 2 * h, 2 * w), nw = (size_t)ci * co;
    float *x = vec(nx), *wt = vec(nw), *dy = vec(ny), *y = vec(ny), *y2 = vdup(y, ny);
    tview vx = view(x, n, ci, h, w), vy = view(y, n, co, 2 * h, 2 * w);
    tview vy2 = view(y2, n, co, 2 * h, 2 * w), vdy = view(dy, n, co, 2 * h, 2 * w);
    F->tconv_fwd(ctx, &vx, wt, &vy);
    Rf->tconv_fwd(NULL, &vx, wt, &vy2);
    check("tconv_fwd", y, y2, NULL, ny);
    float *dx0 = vec(nx), *dx = vdup(dx0, nx), *dx2 = vdup(dx0, nx);
    tview vdx = view(dx, n, ci, h, w), vdx2 = view(dx2, n, ci, h, w);
    F->tconv_bwd_data(ctx, &vdy, wt, &vdx);
    Rf->tconv_bwd_data(NULL, &vdy, wt, &vdx2);
    check("tconv_bwd_data", dx, dx2, dx0, nx);
    float *dw = vec(nw), *dw2 = vec(nw);
    F->tconv_bwd_weights(ctx, &vx, &vdy, dw);
    Rf->tconv_bwd_weights(NULL, &vx, &vdy, dw2);
    check("tconv_bwd_weights", dw, dw2, NULL, nw);
}

/* ---- 3D: channels-last views dense within a sample (cosmoflow's) ---------- */

static t3view cl(float *p, int n, int c, int d)
{
    int64_t sw = c, sh = (int64_t)c * d, sd = sh * d;
    return (t3view){p, n, c, d, d, d, sd * d, 1, sd, sh, sw};
}
static size_t cl_len(int n, int c, int d) { return (size_t)n * c * d * d * d; }

static void test_conv3d(void)
{
    need_bf16();
    int n = 2, ci = 5, co = 8, k = 3, d = 6, di = d + k - 1;
    size_t nx = cl_len(n, ci, di), ny = cl_len(n, co, d), nw = (size_t)co * ci * k * k * k;
    float *x = vec(nx), *wt = vec(nw), *y = vec(ny), *y2 = vdup(y, ny);
    t3view vx = cl(x, n, ci, di), vy = cl(y, n, co, d), vy2 = cl(y2, n, co, d);
    F->conv3d_fwd(ctx, &vx, wt, k, &vy);
    Rf->conv3d_fwd(NULL, &vx, wt, k, &vy2);
    check("conv3d_fwd", y, y2, NULL, ny);
    /* data gradient: dy carries the halo (k - 1 larger than dx) */
    int dd = d + k - 1;
    size_t ndy = cl_len(n, co, dd), ndx = cl_len(n, ci, d);
    float *dy = vec(ndy), *dx = vec(ndx), *dx2 = vec(ndx);
    t3view vdy = cl(dy, n, co, dd), vdx = cl(dx, n, ci, d), vdx2 = cl(dx2, n, ci, d);
    F->conv3d_bwd_data(ctx, &vdy, wt, k, &vdx);
    Rf->conv3d_bwd_data(NULL, &vdy, wt, k, &vdx2);
    check("conv3d_bwd_data", dx, dx2, NULL, ndx);
    float *g = vec(ny), *dw = vec(nw), *dw2 = vec(nw);
    t3view vg = cl(g, n, co, d);
    F->conv3d_bwd_weights(ctx, &vx, &vg, k, dw);
    Rf->conv3d_bwd_weights(NULL, &vx, &vg, k, dw2);
    check("conv3d_bwd_weights", dw, dw2, NULL, nw);
}

static void test_dense(void)
{
    need_bf16();
    int n = 3, in = 300, out = 17;
    size_t nx = (size_t)n * in, ny = (size_t)n * out, nw = (size_t)out * in;
    float *x = vec(nx), *wt = vec(nw), *dy = vec(ny), *y = vec(ny), *y2 = vdup(y, ny);
    F->dense_fwd(ctx, x, wt, n, in, out, y);
    Rf->dense_fwd(NULL, x, wt, n, in, out, y2);
    check("dense_fwd", y, y2, NULL, ny);
    float *dx = vec(nx), *dx2 = vec(nx);
    F->dense_bwd_data(ctx, dy, wt, n, in, out, dx);
    Rf->dense_bwd_data(NULL, dy, wt, n, in, out, dx2);
    check("dense_bwd_data", dx, dx2, NULL, nx);
    float *dw = vec(nw), *dw2 = vec(nw);
    F->dense_bwd_weights(ctx, x, dy, n, in, out, dw);
    Rf->dense_bwd_weights(NULL, x, dy, n, in, out, dw2);
    check("dense_bwd_weights", dw, dw2, NULL, nw);
}

/* bf16 off again on the same context: the cached primitives are keyed by
 * type, so the shapes above run in fp32 again (fp32's tolerance) */
static void test_back_to_fp32(void)
{
    need_bf16();
    kern_fast_set_bf16(ctx, 0);
    int n = 2, ci = 13, co = 16, k = 3, h = 12, w = 10;
    size_t nx = vlen(n, ci, h, w), ny = vlen(n, co, h, w), nw = (size_t)co * ci * k * k;
    float *x = vec(nx), *wt = vec(nw), *y = vec(ny), *y2 = vdup(y, ny);
    tview vx = view(x, n, ci, h, w), vy = view(y, n, co, h, w), vy2 = view(y2, n, co, h, w);
    F->conv_fwd(ctx, &vx, wt, k, &vy);
    Rf->conv_fwd(NULL, &vx, wt, k, &vy2);
    double e = rel_l2(y, y2, NULL, ny);
    float *a = vec(9 * 4), *a2 = vec(9 * 4);
    F->dense_fwd(ctx, x, wt, 9, 100, 4, a);
    Rf->dense_fwd(NULL, x, wt, 9, 100, 4, a2);
    double e2 = rel_l2(a, a2, NULL, 9 * 4);
    kern_fast_set_bf16(ctx, 1);
    T_ASSERT(e < TOL_FP32, "conv_fwd with bf16 off: relative L2 error %.3g", e);
    T_ASSERT(e2 < TOL_FP32, "dense_fwd with bf16 off: relative L2 error %.3g", e2);
}

static void test_dtype_names(void)
{
    static const char *const bf[] = {"conv_fwd",  "conv_bwd_data",  "conv_bwd_weights",
                                     "tconv_fwd", "conv3d_bwd_data", "dense_bwd_weights"};
    static const char *const fp[] = {"relu_fwd", "bias_bwd", "adam", "lion", "pool3d_fwd",
                                     "mse_fwd",  "copy3d"};
    void *c = kern_fast_create(1);
    for (size_t i = 0; i < sizeof bf / sizeof *bf; i++)
        T_ASSERT(!strcmp(kern_fast_kernel_dtype(c, bf[i]), "fp32"), "%s in fp32 mode", bf[i]);
    kern_fast_set_bf16(c, 1);
    for (size_t i = 0; i < sizeof bf / sizeof *bf; i++)
        T_ASSERT(!strcmp(kern_fast_kernel_dtype(c, bf[i]), "bf16"), "%s in bf16 mode", bf[i]);
    for (size_t i = 0; i < sizeof fp / sizeof *fp; i++)
        T_ASSERT(!strcmp(kern_fast_kernel_dtype(c, fp[i]), "fp32"), "%s in bf16 mode", fp[i]);
    T_ASSERT(!strcmp(kern_fast_kernel_dtype(NULL, "conv_fwd"), "fp32"), "no context");
    kern_fast_release(c);
}

int main(void)
{
    static const struct {
        const char *name;
        void (*fn)(void);
    } tests[] = {
        {"bf16_dtype_names", test_dtype_names}, {"bf16_conv_k3", test_conv_k3},
        {"bf16_conv_k5", test_conv_k5},         {"bf16_conv_1x1", test_conv_1x1},
        {"bf16_conv_bands", test_conv_bands},   {"bf16_tconv", test_tconv},
        {"bf16_conv3d", test_conv3d},           {"bf16_dense", test_dense},
        {"bf16_back_to_fp32", test_back_to_fp32},
    };
    R = rng_stream(2029, 16, 0, 0);
    F = kern_fast_ops();
    Rf = kern_ref_ops();
    ctx = kern_fast_create(1);
    kern_fast_set_bf16(ctx, 1);
    for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
        tap_run_(tests[i].name, tests[i].fn);
        pool_free(); /* also what a failed assertion left */
    }
    kern_fast_release(ctx);
    T_DONE();
}
