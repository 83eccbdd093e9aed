/* Every backward kernel of the reference set against central finite
 * differences of its forward kernel, plus the forward kernels against
 * independent formulations (so that a forward and a backward that are wrong
 * the same way do not pass), the write semantics of kern.h ("=" or "+="),
 * and one Adam step against PyTorch's update computed in double.
 *
 * The objective is L = sum(r .* y) for a random r (the L1 loss is itself the
 * scalar).  Its analytic gradient is the backward kernel fed dy = r.
 *
 * Why the finite differences can be tight: every kernel here is linear or
 * piecewise linear (ReLU and L1 away from their kinks: inputs are kept at
 * least 0.1 from them and the step is 0.05), so a central difference has no
 * truncation error at all; what is left is rounding.  L is summed in double;
 * the forward outputs are rounded to fp32 (relative 6e-8) and only the ~k*k*c
 * outputs a perturbed input touches change, so the difference quotient is
 * good to ~1e-6 relative.  The step actually taken is (float)(x+h) -
 * (float)(x-h), not 2h.  Tolerance: |analytic - fd| <= 1e-4 * (1 + |fd|),
 * a hundred times the rounding and far below the O(0.1..1) error of a
 * transposed index, a wrong tap or a padding off by one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/rng.h"
#include "benchmarks/train/kernels/kern.h"
#include "tests/unit/train_fixture.h"
#include "tests/unit/tap.h"

#define TOL 1e-4

static const kern_ops *K;

/* ---- buffers ----------------------------------------------------------- */

static uint64_t seed_counter;

/* Uniform in [lo, hi), with |value| >= away (0: anything). */
static void fill(float *p, size_t n, double lo, double hi, double away)
{
    rng_t r = rng_stream(11, ++seed_counter, n, 0);
    for (size_t i = 0; i < n; i++) {
        double v;
        do v = lo + (hi - lo) * rng_uniform(&r);
        while (fabs(v) < away);
        p[i] = (float)v;
    }
}

typedef struct {
    tview v;
    float *base;
    size_t len;
} tens;

/* Channels [c0, c0 + c) of a buffer with ctot channels per sample, every
 * element of the buffer random (the guard channels too). */
static tens tnew(int n, int c, int h, int w, int c0, int ctot)
{
    tens t;
    t.len = (size_t)n * ctot * h * w;
    t.base = talloc(t.len);
    fill(t.base, t.len, -1, 1, 0);
    t.v = (tview){t.base + (size_t)c0 * h * w, n, c, h, w, (int64_t)ctot * h * w};
    return t;
}
static tens dense(int n, int c, int h, int w) { return tnew(n, c, h, w, 0, c); }

static float *E(const tview *t, int n, int c, int y, int x)
{
    return (float *)t->p + (int64_t)n * t->sstride + ((int64_t)c * t->h + y) * t->w + x;
}

/* Visit the elements of a view in order: idx 0..elems-1 -> pointer. */
static float *nth(const tview *t, int64_t i)
{
    int x = (int)(i % t->w);
    i /= t->w;
    int y = (int)(i % t->h);
    i /= t->h;
    int c = (int)(i % t->c);
    int n = (int)(i / t->c);
    return E(t, n, c, y, x);
}

static double dot(const tview *a, const tview *b)
{
    double s = 0;
    for (int64_t i = 0; i < tview_elems(a); i++) s += (double)*nth(a, i) * *nth(b, i);
    return s;
}

static void put(const tview *dst, const tview *src)
{
    for (int64_t i = 0; i < tview_elems(dst); i++) *nth(dst, i) = *nth(src, i);
}

/* Elements outside the view are the guard: check them against a copy. */
static int in_view(const tens *t, size_t off)
{
    size_t per = (size_t)t->v.sstride, plane = (size_t)t->v.h * t->v.w;
    size_t c0 = (size_t)((float *)t->v.p - t->base) / plane;
    size_t ch = (off % per) / plane;
    return off / per < (size_t)t->v.n && ch >= c0 && ch < c0 + (size_t)t->v.c;
}

static float *snapshot(const tens *t)
{
    float *s = talloc(t->len);
    memcpy(s, t->base, t->len * sizeof *s);
    return s;
}

static void check_guard(const tens *t, const float *snap, const char *what)
{
    for (size_t i = 0; i < t->len; i++)
        if (!in_view(t, i))
            T_ASSERT(memcmp(&t->base[i], &snap[i], sizeof(float)) == 0,
                     "%s wrote outside its channel window (element %zu)", what, i);
}

static void near(double got, double want, double tol, const char *what, long long i)
{
    T_ASSERT(fabs(got - want) <= tol * (1 + fabs(want)),
             "%s [%lld]: analytic %.9g, finite difference %.9g (diff %.3g)", what, i, got, want,
             fabs(got - want));
}

/* Central difference of f with respect to *p, with step h. */
typedef double (*objective)(void *ctx);
static double central(float *p, double h, objective f, void *ctx)
{
    float keep = *p;
    float up = (float)(keep + h), dn = (float)(keep - h);
    *p = up;
    double lp = f(ctx);
    *p = dn;
    double lm = f(ctx);
    *p = keep;
    return (lp - lm) / ((double)up - (double)dn);
}

/* ---- convolution ----------------------------------------------------------- */

typedef struct {
    tens x, y, r;
    float *w;
    int k;
} conv_case;

static double conv_obj(void *v)
{
    conv_case *c = v;
    K->conv_fwd(NULL, &c->x.v, c->w, c->k, &c->y.v);
    return dot(&c->y.v, &c->r.v);
}

/* x: n x ci x h x w (a window of ci + 3 channels when windowed), y likewise. */
static conv_case conv_setup(int n, int ci, int co, int h, int w, int k, int windowed)
{
    conv_case c;
    c.k = k;
    c.x = windowed ? tnew(n, ci, h, w, 1, ci + 3) : dense(n, ci, h, w);
    c.y = windowed ? tnew(n, co, h, w, 2, co + 2) : dense(n, co, h, w);
    c.r = dense(n, co, h, w);
    c.w = talloc((size_t)k * k * ci * co);
    fill(c.w, (size_t)k * k * ci * co, -1, 1, 0);
    return c;
}

static void conv_grad_case(int n, int ci, int co, int h, int w, int k, int windowed)
{
    char what[128];
    snprintf(what, sizeof what, "conv k=%d n=%d %dx%dx%d->%d%s", k, n, ci, h, w, co,
             windowed ? " windowed" : "");
    conv_case c = conv_setup(n, ci, co, h, w, k, windowed);

    /* data gradient, accumulated onto a pre-filled dx ("+=") */
    tens dx = windowed ? tnew(n, ci, h, w, 2, ci + 4) : dense(n, ci, h, w);
    float *dx0 = snapshot(&dx);
    K->conv_bwd_data(NULL, &c.r.v, c.w, k, &dx.v);
    check_guard(&dx, dx0, what);
    for (int64_t i = 0; i < tview_elems(&c.x.v); i++) {
        double fd = central(nth(&c.x.v, i), 1.0, conv_obj, &c);
        double pre = dx0[nth(&dx.v, i) - dx.base];
        near((double)*nth(&dx.v, i) - pre, fd, TOL, what, i);
    }

    /* weight gradient, overwriting a dw full of NaN ("=") */
    size_t nw = (size_t)k * k * ci * co;
    float *dw = talloc(nw);
    for (size_t i = 0; i < nw; i++) dw[i] = NAN;
    K->conv_bwd_weights(NULL, &c.x.v, &c.r.v, k, dw);
    for (size_t i = 0; i < nw; i++) {
        double fd = central(&c.w[i], 1.0, conv_obj, &c);
        near(dw[i], fd, TOL, what, (long long)i);
    }
}

static void test_conv_grad(void)
{
    /* SAME padding, odd sizes, channels that are not multiples of 8 */
    for (int k = 1; k <= 5; k += 2) conv_grad_case(2, 5, 3, 7, 5, k, 0);
    conv_grad_case(1, 3, 4, 6, 4, 3, 0); /* even sizes */
    conv_grad_case(2, 3, 2, 5, 3, 5, 1); /* channel windows, kernel wider than the image */
    conv_grad_case(1, 2, 3, 2, 3, 5, 1);
}

/* Forward conv against an independent formulation: copy x into an explicitly
 * zero-padded image, then y[co][i][j] = sum w[co][ci][a][b] * pad[ci][i+a][j+b]
 * (cross-correlation, as cuDNN and oneDNN compute it). */
static void test_conv_fwd(void)
{
    for (int k = 1; k <= 5; k += 2) {
        const int n = 2, ci = 3, co = 4, h = 5, w = 6, p = k / 2, hp = h + 2 * p, wp = w + 2 * p;
        conv_case c = conv_setup(n, ci, co, h, w, k, 1);
        float *y0 = snapshot(&c.y);
        K->conv_fwd(NULL, &c.x.v, c.w, k, &c.y.v);
        check_guard(&c.y, y0, "conv_fwd");
        double *pad = calloc((size_t)ci * hp * wp, sizeof *pad);
        for (int s = 0; s < n; s++) {
            memset(pad, 0, (size_t)ci * hp * wp * sizeof *pad);
            for (int a = 0; a < ci; a++)
                for (int i = 0; i < h; i++)
                    for (int j = 0; j < w; j++)
                        pad[((size_t)a * hp + i + p) * wp + j + p] = *E(&c.x.v, s, a, i, j);
            for (int o = 0; o < co; o++)
                for (int i = 0; i < h; i++)
                    for (int j = 0; j < w; j++) {
                        double acc = 0;
                        for (int a = 0; a < ci; a++)
                            for (int u = 0; u < k; u++)
                                for (int v = 0; v < k; v++)
                                    acc += (double)c.w[((o * ci + a) * k + u) * k + v] *
                                           pad[((size_t)a * hp + i + u) * wp + j + v];
                        double got = *E(&c.y.v, s, o, i, j);
                        if (fabs(got - acc) > 1e-5 * (1 + fabs(acc))) {
                            free(pad);
                            T_ASSERT(0, "conv_fwd k=%d y[%d][%d][%d][%d] = %g, want %g", k, s, o,
                                     i, j, got, acc);
                        }
                    }
        }
        free(pad);
    }
    /* by hand: a single 1 at tap (0, 0) of a 3x3 kernel shifts the image down
     * and right by one: y[i][j] = x[i-1][j-1], zero on the first row/column */
    tens x = dense(1, 1, 3, 4), y = dense(1, 1, 3, 4);
    float wk[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0};
    K->conv_fwd(NULL, &x.v, wk, 3, &y.v);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            float want = i && j ? *E(&x.v, 0, 0, i - 1, j - 1) : 0.0f;
            T_ASSERT(*E(&y.v, 0, 0, i, j) == want, "shift kernel: y[%d][%d] = %g, want %g", i, j,
                     *E(&y.v, 0, 0, i, j), want);
        }
}

/* ---- transposed convolution ------------------------------------------------ */

typedef struct {
    tens x, y, r;
    float *w;
} tconv_case;

static double tconv_obj(void *v)
{
    tconv_case *c = v;
    K->tconv_fwd(NULL, &c->x.v, c->w, &c->y.v);
    return dot(&c->y.v, &c->r.v);
}

static void tconv_case_run(int n, int ci, int co, int h, int w, int windowed)
{
    char what[128];
    snprintf(what, sizeof what, "tconv n=%d %dx%dx%d->%d%s", n, ci, h, w, co,
             windowed ? " windowed" : "");
    tconv_case c;
    c.x = windowed ? tnew(n, ci, h, w, 1, ci + 2) : dense(n, ci, h, w);
    c.y = windowed ? tnew(n, co, 2 * h, 2 * w, 3, co + 3) : dense(n, co, 2 * h, 2 * w);
    c.r = dense(n, co, 2 * h, 2 * w);
    c.w = talloc((size_t)ci * co);
    fill(c.w, (size_t)ci * co, -1, 1, 0);

    /* forward by hand: y[co][2i][2j] = sum_ci w[ci][co] x[ci][i][j], odd positions 0,
     * overwriting what was there */
    float *y0 = snapshot(&c.y);
    K->tconv_fwd(NULL, &c.x.v, c.w, &c.y.v);
    check_guard(&c.y, y0, what);
    for (int s = 0; s < n; s++)
        for (int o = 0; o < co; o++)
            for (int i = 0; i < 2 * h; i++)
                for (int j = 0; j < 2 * w; j++) {
                    double want = 0;
                    if (i % 2 == 0 && j % 2 == 0)
                        for (int a = 0; a < ci; a++)
                            want += (double)c.w[a * co + o] * *E(&c.x.v, s, a, i / 2, j / 2);
                    near(*E(&c.y.v, s, o, i, j), want, 1e-6, "tconv_fwd", (long long)i * 100 + j);
                }

    tens dx = windowed ? tnew(n, ci, h, w, 2, ci + 2) : dense(n, ci, h, w);
    float *dx0 = snapshot(&dx);
    K->tconv_bwd_data(NULL, &c.r.v, c.w, &dx.v);
    check_guard(&dx, dx0, what);
    for (int64_t i = 0; i < tview_elems(&c.x.v); i++) {
        double fd = central(nth(&c.x.v, i), 1.0, tconv_obj, &c);
        double pre = dx0[nth(&dx.v, i) - dx.base];
        near((double)*nth(&dx.v, i) - pre, fd, TOL, what, i);
    }
    float *dw = talloc((size_t)ci * co);
    for (int i = 0; i < ci * co; i++) dw[i] = NAN;
    K->tconv_bwd_weights(NULL, &c.x.v, &c.r.v, dw);
    for (int i = 0; i < ci * co; i++) near(dw[i], central(&c.w[i], 1.0, tconv_obj, &c), TOL, what, i);
}

static void test_tconv_grad(void)
{
    tconv_case_run(2, 5, 3, 3, 4, 0);
    tconv_case_run(1, 3, 7, 2, 3, 1); /* c_in != c_out catches [c_in][c_out] vs [c_out][c_in] */
}

/* ---- bias ------------------------------------------------------------------- */

typedef struct {
    tens y0, y, r;
    float *b;
} bias_case;

static double bias_obj(void *v)
{
    bias_case *c = v;
    put(&c->y.v, &c->y0.v);
    K->bias_fwd(NULL, &c->y.v, c->b);
    return dot(&c->y.v, &c->r.v);
}

static void test_bias(void)
{
    const int n = 2, ch = 5, h = 3, w = 7;
    bias_case c = {dense(n, ch, h, w), tnew(n, ch, h, w, 1, ch + 2), dense(n, ch, h, w), NULL};
    c.b = talloc(ch);
    fill(c.b, ch, -1, 1, 0);
    /* forward: y += b[c], a pure add onto what y held */
    float *ysnap = snapshot(&c.y);
    bias_obj(&c);
    check_guard(&c.y, ysnap, "bias_fwd");
    for (int64_t i = 0; i < tview_elems(&c.y.v); i++) {
        int chan = (int)((i / (h * w)) % ch);
        T_ASSERT(*nth(&c.y.v, i) == (float)(*nth(&c.y0.v, i) + c.b[chan]), "bias_fwd [%lld]",
                 (long long)i);
    }
    float db[5];
    for (int i = 0; i < ch; i++) db[i] = NAN; /* "=" */
    K->bias_bwd(NULL, &c.r.v, db);
    for (int i = 0; i < ch; i++) near(db[i], central(&c.b[i], 1.0, bias_obj, &c), TOL, "bias_bwd", i);
}

/* ---- ReLU --------------------------------------------------------------------- */

typedef struct {
    tens x, y, r;
} ew_case;

static double relu_obj(void *v)
{
    ew_case *c = v;
    K->relu_fwd(NULL, &c->x.v, &c->y.v);
    return dot(&c->y.v, &c->r.v);
}

static void test_relu(void)
{
    const int n = 2, ch = 3, h = 5, w = 3;
    ew_case c = {tnew(n, ch, h, w, 1, ch + 1), tnew(n, ch, h, w, 0, ch + 2), dense(n, ch, h, w)};
    fill(c.x.base, c.x.len, -1, 1, 0.1); /* away from the kink at 0 */
    float *y0 = snapshot(&c.y);
    relu_obj(&c);
    check_guard(&c.y, y0, "relu_fwd");
    for (int64_t i = 0; i < tview_elems(&c.x.v); i++) {
        float xv = *nth(&c.x.v, i);
        T_ASSERT(*nth(&c.y.v, i) == (xv > 0 ? xv : 0), "relu_fwd [%lld]", (long long)i);
    }
    tens dx = tnew(n, ch, h, w, 2, ch + 2);
    float *dx0 = snapshot(&dx);
    K->relu_bwd(NULL, &c.x.v, &c.r.v, &dx.v); /* "+=" */
    check_guard(&dx, dx0, "relu_bwd");
    for (int64_t i = 0; i < tview_elems(&c.x.v); i++) {
        double fd = central(nth(&c.x.v, i), 0.05, relu_obj, &c);
        near((double)*nth(&dx.v, i) - dx0[nth(&dx.v, i) - dx.base], fd, TOL, "relu_bwd", i);
    }
    /* in place (x and y the same view), as the network runs it */
    tens z = dense(1, 2, 3, 3);
    fill(z.base, z.len, -1, 1, 0.1);
    float *z0 = snapshot(&z);
    K->relu_fwd(NULL, &z.v, &z.v);
    for (size_t i = 0; i < z.len; i++)
        T_ASSERT(z.base[i] == (z0[i] > 0 ? z0[i] : 0), "relu_fwd in place [%zu]", i);
}

/* ---- average pooling ------------------------------------------------------------ */

static double pool_obj(void *v)
{
    ew_case *c = v;
    K->pool_fwd(NULL, &c->x.v, &c->y.v);
    return dot(&c->y.v, &c->r.v);
}

static void test_pool(void)
{
    const int n = 2, ch = 3, h = 3, w = 5; /* output size; odd */
    ew_case c = {tnew(n, ch, 2 * h, 2 * w, 1, ch + 1), tnew(n, ch, h, w, 2, ch + 2),
                 dense(n, ch, h, w)};
    float *y0 = snapshot(&c.y);
    pool_obj(&c);
    check_guard(&c.y, y0, "pool_fwd");
    for (int s = 0; s < n; s++)
        for (int a = 0; a < ch; a++)
            for (int i = 0; i < h; i++)
                for (int j = 0; j < w; j++) {
                    double want = 0.25 * ((double)*E(&c.x.v, s, a, 2 * i, 2 * j) +
                                          *E(&c.x.v, s, a, 2 * i + 1, 2 * j) +
                                          *E(&c.x.v, s, a, 2 * i, 2 * j + 1) +
                                          *E(&c.x.v, s, a, 2 * i + 1, 2 * j + 1));
                    near(*E(&c.y.v, s, a, i, j), want, 1e-6, "pool_fwd", i * 100 + j);
                }
    tens dx = tnew(n, ch, 2 * h, 2 * w, 0, ch + 1);
    for (size_t i = 0; i < dx.len; i++)
        if (in_view(&dx, i)) dx.base[i] = NAN; /* "=" */
    float *dx0 = snapshot(&dx);
    K->pool_bwd(NULL, &c.r.v, &dx.v);
    check_guard(&dx, dx0, "pool_bwd");
    for (int64_t i = 0; i < tview_elems(&c.x.v); i++)
        near(*nth(&dx.v, i), central(nth(&c.x.v, i), 1.0, pool_obj, &c), TOL, "pool_bwd", i);
}

/* ---- L1 loss -------------------------------------------------------------------- */

typedef struct {
    tens y, t;
} l1_case;

static double l1_obj(void *v)
{
    l1_case *c = v;
    return K->l1_fwd(NULL, &c->y.v, &c->t.v);
}

static void test_l1(void)
{
    const int n = 2, ch = 2, h = 3, w = 5;
    l1_case c = {tnew(n, ch, h, w, 1, ch + 1), dense(n, ch, h, w)};
    /* keep y - t away from 0: y = t + d with |d| >= 0.1 */
    float *d = talloc(c.t.len);
    fill(d, c.t.len, -1, 1, 0.1);
    for (int64_t i = 0; i < tview_elems(&c.y.v); i++) *nth(&c.y.v, i) = *nth(&c.t.v, i) + d[i];
    double want = 0;
    for (int64_t i = 0; i < tview_elems(&c.y.v); i++)
        want += fabs((double)*nth(&c.y.v, i) - *nth(&c.t.v, i));
    want /= (double)tview_elems(&c.y.v);
    double got = l1_obj(&c);
    T_ASSERT(fabs(got - want) <= 1e-12 * want, "l1_fwd %.17g, want %.17g", got, want);

    tens dy = tnew(n, ch, h, w, 0, ch + 2);
    for (size_t i = 0; i < dy.len; i++)
        if (in_view(&dy, i)) dy.base[i] = NAN; /* "=" */
    float *dy0 = snapshot(&dy);
    K->l1_bwd(NULL, &c.y.v, &c.t.v, &dy.v);
    check_guard(&dy, dy0, "l1_bwd");
    for (int64_t i = 0; i < tview_elems(&c.y.v); i++)
        near(*nth(&dy.v, i), central(nth(&c.y.v, i), 0.05, l1_obj, &c), TOL, "l1_bwd", i);
    /* where y == t the gradient is 0 */
    put(&c.y.v, &c.t.v);
    K->l1_bwd(NULL, &c.y.v, &c.t.v, &dy.v);
    for (int64_t i = 0; i < tview_elems(&dy.v); i++)
        T_ASSERT(*nth(&dy.v, i) == 0, "l1_bwd at y == t: %g", *nth(&dy.v, i));
    T_ASSERT(l1_obj(&c) == 0, "l1_fwd of y == t");
}

/* ---- add, copy, zero -------------------------------------------------------------- */

static void test_add_copy_zero(void)
{
    const int n = 2, ch = 3, h = 2, w = 3;
    tens src = tnew(n, ch, h, w, 1, ch + 2), dst = tnew(n, ch, h, w, 2, ch + 3);
    float *d0 = snapshot(&dst);
    K->add(NULL, &src.v, &dst.v); /* "+=" */
    check_guard(&dst, d0, "add");
    for (int64_t i = 0; i < tview_elems(&src.v); i++)
        T_ASSERT(*nth(&dst.v, i) == d0[nth(&dst.v, i) - dst.base] + *nth(&src.v, i), "add [%lld]",
                 (long long)i);
    K->copy(NULL, &src.v, &dst.v);
    check_guard(&dst, d0, "copy");
    for (int64_t i = 0; i < tview_elems(&src.v); i++)
        T_ASSERT(*nth(&dst.v, i) == *nth(&src.v, i), "copy [%lld]", (long long)i);
    K->zero(NULL, &dst.v);
    check_guard(&dst, d0, "zero");
    for (int64_t i = 0; i < tview_elems(&dst.v); i++)
        T_ASSERT(*nth(&dst.v, i) == 0, "zero [%lld]", (long long)i);
}

/* ---- Adam ------------------------------------------------------------------------- */

/* One step of torch.optim.Adam (no weight decay, no amsgrad), in double:
 *   g *= scale; m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
 *   w -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps). */
static void adam_ref(double *w, double *m, double *v, double g, const adam_hyper *h)
{
    g *= h->grad_scale;
    *m = h->beta1 * *m + (1 - h->beta1) * g;
    *v = h->beta2 * *v + (1 - h->beta2) * g * g;
    double mhat = *m / (1 - pow(h->beta1, (double)h->step));
    double vhat = *v / (1 - pow(h->beta2, (double)h->step));
    *w -= h->lr * mhat / (sqrt(vhat) + h->eps);
}

static void adam_case(int64_t step, double gscale, double grad_scale, int fresh)
{
    enum { N = 64 };
    adam_hyper hp = {1e-2, 0.9, 0.999, 1e-8, step, grad_scale};
    float w[N], g[N], m[N], v[N], wc[N], w0[N], m0[N], v0[N];
    rng_t r = rng_stream(5, (uint64_t)step, (uint64_t)(gscale * 1e12), 0);
    for (int i = 0; i < N; i++) {
        w[i] = (float)(2 * rng_uniform(&r) - 1);
        g[i] = (float)(gscale * (2 * rng_uniform(&r) - 1));
        m[i] = fresh ? 0 : (float)(gscale * (2 * rng_uniform(&r) - 1));
        v[i] = fresh ? 0 : (float)(gscale * gscale * rng_uniform(&r));
        wc[i] = NAN;
    }
    memcpy(w0, w, sizeof w);
    memcpy(m0, m, sizeof m);
    memcpy(v0, v, sizeof v);
    K->adam(NULL, w, wc, g, m, v, N, &hp);
    for (int i = 0; i < N; i++) {
        double rw = w0[i], rm = m0[i], rv = v0[i];
        adam_ref(&rw, &rm, &rv, g[i], &hp);
        /* moments: fp32 arithmetic, a few ulps of the terms summed */
        double gs = fabs(g[i] * grad_scale);
        T_ASSERT(fabs(m[i] - rm) <= 1e-6 * (fabs(m0[i]) + gs), "m[%d] %.9g, want %.9g", i, m[i], rm);
        T_ASSERT(fabs(v[i] - rv) <= 1e-6 * (v0[i] + gs * gs), "v[%d] %.9g, want %.9g", i, v[i], rv);
        /* the weight, against the closed form applied to the kernel's own
         * moments (so their rounding does not count twice): its own ulp plus
         * 1e-5 of the update (lr_t and eps_t are rounded to fp32).  Using eps
         * instead of the folded eps_t, or a missing bias correction, moves the
         * update by more than 3% in one of the cases below */
        double bc1 = 1 - pow(hp.beta1, (double)step), bc2 = 1 - pow(hp.beta2, (double)step);
        double upd = hp.lr * (m[i] / bc1) / (sqrt(v[i] / bc2) + hp.eps);
        double want = w0[i] - upd;
        T_ASSERT(fabs(w[i] - want) <= 2.5e-7 * fabs(want) + 1e-5 * fabs(upd),
                 "step %lld, |g| ~ %g: w[%d] %.9g, want %.9g (update %.3g)", (long long)step,
                 gscale, i, w[i], want, upd);
        /* and the whole step in double, to the moments' rounding */
        T_ASSERT(fabs(w[i] - rw) <= 2.5e-7 * fabs(rw) + 1e-4 * fabs(rw - w0[i]) + 1e-9,
                 "w[%d] %.9g, double-precision Adam %.9g", i, w[i], rw);
        T_ASSERT(wc[i] == w[i], "w_compute[%d] %g != master %g", i, wc[i], w[i]);
    }
}

static void test_adam(void)
{
    adam_case(1, 1.0, 1.0, 1);
    adam_case(1, 1e-8, 1.0, 1);  /* gradients comparable to eps */
    adam_case(7, 0.3, 0.5, 0);   /* moments from earlier steps, gradient scaling */
    adam_case(7, 3e-8, 0.25, 0);
    adam_case(1000, 1.0, 1.0, 0); /* bias corrections near 1 */
}

int main(void)
{
    K = kern_ref_ops();
    T_RUN(test_conv_fwd);
    arena_free();
    T_RUN(test_conv_grad);
    arena_free();
    T_RUN(test_tconv_grad);
    arena_free();
    T_RUN(test_bias);
    arena_free();
    T_RUN(test_relu);
    arena_free();
    T_RUN(test_pool);
    arena_free();
    T_RUN(test_l1);
    arena_free();
    T_RUN(test_add_copy_zero);
    arena_free();
    T_RUN(test_adam);
    T_DONE();
}
