/* The FLOP formula of every 3D kernel (flops.h) against the reference loops
 * counting their own operations, as test_train_flops.c does for the 2D
 * kernels: kern_ref_3d.c is compiled in with KERN_REF_COUNT, so every FL(n)
 * adds to kern_ref_flops.  Shapes: k = 1, 3, 5; odd extents; batch 1 and 3;
 * channels-last and channels-first strides with padding between samples.
 * Then the same calls through counted.c: the row gets the formula's FLOPs,
 * and dry mode counts without running. */
#define KERN_REF_COUNT 1
#include "benchmarks/train/kernels/ref/kern_ref_3d.c"

#include <stdlib.h>
#include <string.h>

#include "benchmarks/train/counted.h"
#include "benchmarks/train/kernels/flops.h"
#include "tests/unit/tap.h"

int64_t kern_ref_flops;
static kern_ops ops3;

#define COUNT(call) (kern_ref_flops = 0, (call), kern_ref_flops)

static float *bufs[64];
static int nbufs;

/* A view of n x c x d x h x w, channels last or first, with `gap` spare
 * elements after each sample; values in [-1, 1). */
static t3view mkview(int n, int c, int d, int h, int w, int last, int gap)
{
    int64_t per = (int64_t)c * d * h * w + gap;
    float *p = calloc((size_t)(n * per + 1), sizeof *p);
    if (!p || nbufs == 64) abort();
    bufs[nbufs++] = p;
    for (int64_t i = 0; i < n * per; i++) p[i] = (float)((i * 7919 % 2001) / 1000.0 - 1.0);
    t3view v = {.p = p, .n = n, .c = c, .d = d, .h = h, .w = w, .sn = per};
    if (last) v.sc = 1, v.sw = c, v.sh = (int64_t)c * w, v.sd = v.sh * h;
    else v.sw = 1, v.sh = w, v.sd = (int64_t)w * h, v.sc = v.sd * d;
    return v;
}

static void free_all(void)
{
    while (nbufs) free(bufs[--nbufs]);
}

#define EXPECT(got, want, what)                                                             \
    T_ASSERT((got) == (want), "%s: counted %lld, formula %lld", what, (long long)(got),     \
             (long long)(want))

static void test_conv3d(void)
{
    int shapes[][8] = {/* n ci co k d h w last */
                       {1, 2, 3, 3, 3, 4, 5, 1}, {3, 3, 2, 1, 2, 3, 1, 0}, {2, 1, 4, 5, 1, 2, 3, 1}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int n = shapes[s][0], ci = shapes[s][1], co = shapes[s][2], k = shapes[s][3];
        int d = shapes[s][4], h = shapes[s][5], w = shapes[s][6], last = shapes[s][7];
        t3view x = mkview(n, ci, d + k - 1, h + k - 1, w + k - 1, last, 3);
        t3view y = mkview(n, co, d, h, w, last, 0);
        t3view dy = mkview(n, co, d + k - 1, h + k - 1, w + k - 1, !last, 1);
        t3view dx = mkview(n, ci, d, h, w, last, 2);
        float *wt = calloc((size_t)co * ci * k * k * k, sizeof *wt);
        int64_t f = flops_conv3d((int64_t)n * d * h * w, ci, co, k);
        EXPECT(COUNT(ops3.conv3d_fwd(NULL, &x, wt, k, &y)), f, "conv3d_fwd");
        EXPECT(COUNT(ops3.conv3d_bwd_data(NULL, &dy, wt, k, &dx)), f, "conv3d_bwd_data");
        EXPECT(COUNT(ops3.conv3d_bwd_weights(NULL, &x, &y, k, wt)), f, "conv3d_bwd_weights");
        free(wt);
    }
    free_all();
}

static void test_elementwise(void)
{
    for (int last = 0; last < 2; last++) {
        t3view x = mkview(2, 3, 4, 6, 2, last, 5), y = mkview(2, 3, 2, 3, 1, last, 0);
        t3view dx = mkview(2, 3, 4, 6, 2, !last, 1);
        int64_t out = t3view_elems(&y), in = t3view_elems(&x);
        EXPECT(COUNT(ops3.pool3d_fwd(NULL, &x, &y)), flops_pool3d_fwd(out), "pool3d_fwd");
        EXPECT(COUNT(ops3.pool3d_bwd(NULL, &x, &y, &dx)), flops_pool3d_bwd(out), "pool3d_bwd");
        EXPECT(COUNT(ops3.lrelu_fwd(NULL, &x, &x, 0.3f)), flops_lrelu_fwd(in), "lrelu_fwd");
        EXPECT(COUNT(ops3.lrelu_bwd(NULL, &x, &dx, &dx, 0.3f)), flops_lrelu_bwd(in), "lrelu_bwd");
        float b[3] = {0.5f, -1, 2};
        EXPECT(COUNT(ops3.bias3d_fwd(NULL, &x, b)), flops_bias3d_fwd(in), "bias3d_fwd");
        EXPECT(COUNT(ops3.bias3d_bwd(NULL, &x, b)), flops_bias3d_bwd(in), "bias3d_bwd");
        EXPECT(COUNT(ops3.copy3d(NULL, &x, &dx)), 0, "copy3d");
    }
    free_all();
}

static void test_dense_mse(void)
{
    int n = 3, in = 7, out = 5;
    float *x = calloc((size_t)n * in, 4), *w = calloc((size_t)in * out, 4), *y = calloc((size_t)n * out, 4);
    float *t = calloc((size_t)n * out, 4);
    int64_t f = flops_dense(n, in, out);
    EXPECT(COUNT(ops3.dense_fwd(NULL, x, w, n, in, out, y)), f, "dense_fwd");
    EXPECT(COUNT(ops3.dense_bwd_data(NULL, y, w, n, in, out, x)), f, "dense_bwd_data");
    EXPECT(COUNT(ops3.dense_bwd_weights(NULL, x, y, n, in, out, w)), f, "dense_bwd_weights");
    EXPECT(COUNT(ops3.mse_fwd(NULL, y, t, n * out)), flops_mse_fwd(n * out), "mse_fwd");
    EXPECT(COUNT(ops3.mse_bwd(NULL, y, t, n * out, x)), flops_mse_bwd(n * out), "mse_bwd");
    free(x), free(w), free(y), free(t);
}

/* counted.c adds the formula to the (kernel, layer) row; dry mode counts
 * the same and runs nothing (the reference loop's counter stays at 0). */
static void test_counted(void)
{
    for (int dry = 0; dry < 2; dry++) {
        ktab_t tab;
        ktab_init(&tab, 32);
        kc_t kc = {.ops = &ops3, .tab = &tab, .dry = dry};
        t3view x = mkview(2, 3, 6, 5, 4, 1, 0), y = mkview(2, 4, 4, 3, 2, 1, 0);
        t3view p = mkview(2, 4, 2, 1, 1, 1, 0);
        float *wt = calloc(4 * 3 * 27, sizeof *wt);
        kern_ref_flops = 0;
        kc_conv3d_fwd(&kc, "c", &x, wt, 3, &y);
        kc_conv3d_bwd_weights(&kc, "c", &x, &y, 3, wt);
        kc_pool3d_fwd(&kc, "c", &y, &p);
        kc_lrelu_fwd(&kc, "c", &y, &y, 0.3f);
        int64_t f = 2 * flops_conv3d(2 * 4 * 3 * 2, 3, 4, 3) + flops_pool3d_fwd(2 * 4 * 2) +
                    flops_lrelu_fwd(2 * 4 * 4 * 3 * 2);
        EXPECT(ktab_total_flops(&tab), f, dry ? "dry table" : "table");
        T_ASSERT(dry ? kern_ref_flops == 0 : kern_ref_flops == f, "%s: loops counted %lld",
                 dry ? "dry mode ran kernels" : "real mode", (long long)kern_ref_flops);
        ktab_row *r = ktab_row_for(&tab, "conv3d_fwd", "c");
        T_ASSERT(r->calls == 1 && r->flops == flops_conv3d(48, 3, 4, 3), "conv3d_fwd row");
        free(wt);
        ktab_free(&tab);
        free_all();
    }
}

int main(void)
{
    kern_ref_fill_3d(&ops3);
    tap_run_("cosmo_flops_conv3d", test_conv3d);
    tap_run_("cosmo_flops_pool_lrelu_bias_copy", test_elementwise);
    tap_run_("cosmo_flops_dense_mse", test_dense_mse);
    tap_run_("cosmo_flops_counted_and_dry", test_counted);
    T_DONE();
}
