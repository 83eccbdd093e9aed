/* The 3D kernels: the reference loops against finite differences (each
 * backward kernel is the derivative of its forward one), and the fast set
 * against the reference loops on views of every shape the network and the
 * fast path's branches meet (tests/unit/cosmo_kcheck.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/rng.h"
#include "benchmarks/train/kernels/kern.h"
#include "tests/unit/cosmo_kcheck.h"
#include "tests/unit/tap.h"

static const kern_ops *R;

/* ---- finite differences on the reference set ------------------------------------
 * L(x, w) = sum r . f(x, w) (in double); its derivative along a random
 * direction v by central differences must equal <grad, v> from the backward
 * kernel.  Convolutions and dense layers are linear, so the difference is
 * exact up to rounding; pooling and leaky ReLU are piecewise linear and the
 * step is far below the gaps between values. */

static double dot(const float *a, const float *b, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += (double)a[i] * b[i];
    return s;
}

static t3view dense_view(float *p, int n, int c, int d, int h, int w)
{
    t3view v = {.p = p, .n = n, .c = c, .d = d, .h = h, .w = w, .sc = 1, .sw = c};
    v.sh = (int64_t)c * w, v.sd = v.sh * h, v.sn = v.sd * d;
    return v;
}

static void close_enough(const char *what, double fd, double an)
{
    T_ASSERT(fabs(fd - an) <= 1e-3 * fabs(an) + 1e-6, "%s: finite difference %.9g, backward %.9g", what,
             fd, an);
}

static void test_fd_conv3d(void)
{
    int n = 2, ci = 3, co = 2, k = 3, E = 3, X = E + k - 1;
    int64_t nx = (int64_t)n * ci * X * X * X, ny = (int64_t)n * co * E * E * E, nw = co * ci * 27;
    float *x = kc_rand(nx, 1), *w = kc_rand(nw, 2), *r = kc_rand(ny, 3), *y = malloc(ny * 4);
    float *vx = kc_rand(nx, 4), *vw = kc_rand(nw, 5), *t = malloc(nx * 4), *tw = malloc(nw * 4);
    t3view Vx = dense_view(x, n, ci, X, X, X), Vy = dense_view(y, n, co, E, E, E);
    double e = 1e-2;
    /* d/dx: bwd_data of r padded by k-1 */
    int P = E + 2 * (k - 1);
    float *rp = calloc((size_t)n * co * P * P * P, 4), *gx = malloc(nx * 4), *gw = malloc(nw * 4);
    for (int i = 0; i < n; i++)
        for (int c = 0; c < co; c++)
            for (int z = 0; z < E; z++)
                for (int yy = 0; yy < E; yy++)
                    for (int xx = 0; xx < E; xx++)
                        rp[((((int64_t)i * P + z + 2) * P + yy + 2) * P + xx + 2) * co + c] =
                            r[((((int64_t)i * E + z) * E + yy) * E + xx) * co + c];
    t3view Vrp = dense_view(rp, n, co, P, P, P), Vgx = dense_view(gx, n, ci, X, X, X);
    t3view Vr = dense_view(r, n, co, E, E, E);
    R->conv3d_bwd_data(NULL, &Vrp, w, k, &Vgx);
    R->conv3d_bwd_weights(NULL, &Vx, &Vr, k, gw);
    double lp, lm;
    t3view Vt = dense_view(t, n, ci, X, X, X);
    for (int64_t i = 0; i < nx; i++) t[i] = (float)(x[i] + e * vx[i]);
    R->conv3d_fwd(NULL, &Vt, w, k, &Vy), lp = dot(r, y, ny);
    for (int64_t i = 0; i < nx; i++) t[i] = (float)(x[i] - e * vx[i]);
    R->conv3d_fwd(NULL, &Vt, w, k, &Vy), lm = dot(r, y, ny);
    close_enough("conv3d_bwd_data", (lp - lm) / (2 * e), dot(gx, vx, nx));
    for (int64_t i = 0; i < nw; i++) tw[i] = (float)(w[i] + e * vw[i]);
    R->conv3d_fwd(NULL, &Vx, tw, k, &Vy), lp = dot(r, y, ny);
    for (int64_t i = 0; i < nw; i++) tw[i] = (float)(w[i] - e * vw[i]);
    R->conv3d_fwd(NULL, &Vx, tw, k, &Vy), lm = dot(r, y, ny);
    close_enough("conv3d_bwd_weights", (lp - lm) / (2 * e), dot(gw, vw, nw));
    free(x), free(w), free(r), free(y), free(vx), free(vw), free(t), free(tw), free(rp), free(gx), free(gw);
}

static void test_fd_pool_lrelu_bias(void)
{
    int n = 2, c = 3, E = 4;
    int64_t nx = (int64_t)n * c * E * E * E, ny = nx / 8;
    float *x = kc_rand(nx, 7), *v = kc_rand(nx, 8), *r = kc_rand(ny, 9), *r2 = kc_rand(nx, 10);
    float *y = malloc(nx * 4), *t = malloc(nx * 4), *g = malloc(nx * 4), *y2 = malloc(nx * 4);
    t3view Vx = dense_view(x, n, c, E, E, E), Vt = dense_view(t, n, c, E, E, E);
    t3view Vy = dense_view(y, n, c, E / 2, E / 2, E / 2), Vr = dense_view(r, n, c, E / 2, E / 2, E / 2);
    t3view Vg = dense_view(g, n, c, E, E, E), Vy2 = dense_view(y2, n, c, E, E, E);
    t3view Vr2 = dense_view(r2, n, c, E, E, E);
    double e = 1e-4, lp, lm;
    /* max-pool */
    R->pool3d_bwd(NULL, &Vx, &Vr, &Vg);
    for (int64_t i = 0; i < nx; i++) t[i] = (float)(x[i] + e * v[i]);
    R->pool3d_fwd(NULL, &Vt, &Vy), lp = dot(r, y, ny);
    for (int64_t i = 0; i < nx; i++) t[i] = (float)(x[i] - e * v[i]);
    R->pool3d_fwd(NULL, &Vt, &Vy), lm = dot(r, y, ny);
    close_enough("pool3d_bwd", (lp - lm) / (2 * e), dot(g, v, nx));
    /* leaky ReLU: backward from the forward's output */
    R->lrelu_fwd(NULL, &Vx, &Vy2, 0.3f);
    R->lrelu_bwd(NULL, &Vy2, &Vr2, &Vg, 0.3f);
    for (int64_t i = 0; i < nx; i++) t[i] = (float)(x[i] + e * v[i]);
    R->lrelu_fwd(NULL, &Vt, &Vy2, 0.3f), lp = dot(r2, y2, nx);
    for (int64_t i = 0; i < nx; i++) t[i] = (float)(x[i] - e * v[i]);
    R->lrelu_fwd(NULL, &Vt, &Vy2, 0.3f), lm = dot(r2, y2, nx);
    close_enough("lrelu_bwd", (lp - lm) / (2 * e), dot(g, v, nx));
    /* bias: L = r . (x + b) */
    float b[3] = {0.1f, -0.2f, 0.3f}, vb[3] = {0.5f, 0.25f, -1}, db[3], tb[3];
    R->bias3d_bwd(NULL, &Vr2, db);
    double an = db[0] * vb[0] + db[1] * vb[1] + db[2] * vb[2];
    for (int s = 0; s < 2; s++) {
        memcpy(t, x, nx * 4);
        for (int j = 0; j < 3; j++) tb[j] = (float)(b[j] + (s ? -e : e) * vb[j]);
        R->bias3d_fwd(NULL, &Vt, tb);
        *(s ? &lm : &lp) = dot(r2, t, nx);
    }
    close_enough("bias3d_bwd", (lp - lm) / (2 * e), an);
    free(x), free(v), free(r), free(r2), free(y), free(t), free(g), free(y2);
}

static void test_fd_dense_mse(void)
{
    int n = 3, in = 5, out = 4;
    float *x = kc_rand(n * in, 1), *w = kc_rand(in * out, 2), *tg = kc_rand(n * out, 3);
    float *vx = kc_rand(n * in, 4), *vw = kc_rand(in * out, 5), *y = malloc(n * out * 4);
    float *dy = malloc(n * out * 4), *dx = malloc(n * in * 4), *dw = malloc(in * out * 4);
    float *t = malloc(n * in * 4), *tw = malloc(in * out * 4);
    /* L = mse(x w^T, tg): mse_bwd then the two backward kernels */
    R->dense_fwd(NULL, x, w, n, in, out, y);
    R->mse_bwd(NULL, y, tg, n * out, dy);
    R->dense_bwd_data(NULL, dy, w, n, in, out, dx);
    R->dense_bwd_weights(NULL, x, dy, n, in, out, dw);
    double e = 1e-3, lp, lm;
    for (int i = 0; i < n * in; i++) t[i] = (float)(x[i] + e * vx[i]);
    R->dense_fwd(NULL, t, w, n, in, out, y), lp = R->mse_fwd(NULL, y, tg, n * out);
    for (int i = 0; i < n * in; i++) t[i] = (float)(x[i] - e * vx[i]);
    R->dense_fwd(NULL, t, w, n, in, out, y), lm = R->mse_fwd(NULL, y, tg, n * out);
    close_enough("dense_bwd_data + mse_bwd", (lp - lm) / (2 * e), dot(dx, vx, n * in));
    for (int i = 0; i < in * out; i++) tw[i] = (float)(w[i] + e * vw[i]);
    R->dense_fwd(NULL, x, tw, n, in, out, y), lp = R->mse_fwd(NULL, y, tg, n * out);
    for (int i = 0; i < in * out; i++) tw[i] = (float)(w[i] - e * vw[i]);
    R->dense_fwd(NULL, x, tw, n, in, out, y), lm = R->mse_fwd(NULL, y, tg, n * out);
    close_enough("dense_bwd_weights + mse_bwd", (lp - lm) / (2 * e), dot(dw, vw, in * out));
    free(x), free(w), free(tg), free(vx), free(vw), free(y), free(dy), free(dx), free(dw), free(t), free(tw);
}

/* A delta kernel shifts: y(z, y, x) = x(z + a, y + b, x + c) for the tap
 * (a, b, c): the halo convention in one line. */
static void test_valid_convention(void)
{
    int E = 3, k = 3, X = E + 2;
    float *x = kc_rand(X * X * X, 9), y[27], w[27] = {0};
    w[(2 * 3 + 0) * 3 + 1] = 1; /* tap (2, 0, 1) */
    t3view Vx = dense_view(x, 1, 1, X, X, X), Vy = dense_view(y, 1, 1, E, E, E);
    R->conv3d_fwd(NULL, &Vx, w, k, &Vy);
    for (int z = 0; z < E; z++)
        for (int yy = 0; yy < E; yy++)
            for (int xx = 0; xx < E; xx++)
                T_ASSERT(y[(z * E + yy) * E + xx] == x[((z + 2) * X + yy) * X + xx + 1],
                         "tap (2,0,1) at (%d,%d,%d)", z, yy, xx);
    free(x);
}

/* ---- the fast set against the reference ----------------------------------------- */

static kset_t REF, FAST;

static void test_fast_conv(void)
{
    /* the network's first layer (4 channels in), a deeper one, odd shapes,
     * k = 1 and 5, every view kind; batch 2 with gaps takes the per-sample path */
    kc_conv(&REF, &FAST, 1, 4, 32, 3, 6, 5, 7, KC_LAST);
    kc_conv(&REF, &FAST, 2, 16, 32, 3, 4, 4, 4, KC_LAST);
    kc_conv(&REF, &FAST, 2, 5, 3, 3, 3, 4, 5, KC_GAP);
    kc_conv(&REF, &FAST, 2, 3, 4, 5, 2, 3, 3, KC_FIRST);
    kc_conv(&REF, &FAST, 1, 6, 5, 1, 3, 2, 4, KC_SUBBOX);
    kc_conv(&REF, &FAST, 1, 7, 9, 3, 1, 2, 3, KC_SUBBOX);
}

static void test_fast_elementwise(void)
{
    for (int kind = 0; kind < 4; kind++) kc_elementwise(&REF, &FAST, 2, 5, 4, 6, 2, kind);
    kc_elementwise(&REF, &FAST, 1, 32, 8, 8, 8, KC_LAST);
}

static void test_fast_dense(void)
{
    kc_dense(&REF, &FAST, 1, 64, 16);
    kc_dense(&REF, &FAST, 3, 37, 5);
}

int main(void)
{
    R = kern_ref_ops();
    REF = (kset_t){kern_ref_ops(), NULL, 0};
    FAST = (kset_t){kern_fast_ops(), kern_fast_create(2), 1e-5};
    tap_run_("cosmo_kernels_fd_conv3d", test_fd_conv3d);
    tap_run_("cosmo_kernels_fd_pool_lrelu_bias", test_fd_pool_lrelu_bias);
    tap_run_("cosmo_kernels_fd_dense_mse", test_fd_dense_mse);
    tap_run_("cosmo_kernels_valid_convention", test_valid_convention);
    tap_run_("cosmo_kernels_fast_conv3d", test_fast_conv);
    tap_run_("cosmo_kernels_fast_pool_lrelu_bias", test_fast_elementwise);
    tap_run_("cosmo_kernels_fast_dense_mse", test_fast_dense);
    kern_fast_release(FAST.ctx);
    return tap_failed_ ? 1 : 0;
}
