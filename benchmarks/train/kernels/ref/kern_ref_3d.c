/* The 3D kernels of the reference set (kern.h, "3D kernels"): plain loops
 * over the strided views, written to be obviously right, accumulating in
 * double.  They are the ground truth of the fast and CUDA sets' 3D kernels.
 *
 * Every floating-point operation is marked with FL(n), as in kern_ref.c:
 * tests/unit/test_cosmo_flops.c compiles this file with KERN_REF_COUNT so
 * that each loop counts its own operations against flops.h. */
#include <string.h>

#include "benchmarks/train/kernels/kern.h"
#include "benchmarks/train/kernels/ref/kern_ref_count.h"

static inline float *e3(const t3view *t, int i, int c, int z, int y, int x)
{
    return (float *)t->p + i * t->sn + c * t->sc + z * t->sd + y * t->sh + x * t->sw;
}

static inline const float *w3(const float *w, int c_in, int k, int co, int ci, int a, int b, int c)
{
    return w + ((((int64_t)co * c_in + ci) * k + a) * k + b) * k + c;
}

/* y[o] = sum over ci and taps t of x[o + t] w[t] */
static void ref_conv3d_fwd(void *ctx, const t3view *x, const void *wv, int k, const t3view *y)
{
    (void)ctx;
    const float *w = wv;
    for (int i = 0; i < y->n; i++)
        for (int co = 0; co < y->c; co++)
            for (int z = 0; z < y->d; z++)
                for (int r = 0; r < y->h; r++)
                    for (int q = 0; q < y->w; q++) {
                        double acc = 0;
                        for (int ci = 0; ci < x->c; ci++)
                            for (int a = 0; a < k; a++)
                                for (int b = 0; b < k; b++)
                                    for (int c = 0; c < k; c++) {
                                        acc += (double)*e3(x, i, ci, z + a, r + b, q + c) *
                                               *w3(w, x->c, k, co, ci, a, b, c);
                                        FL(2);
                                    }
                        *e3(y, i, co, z, r, q) = (float)acc;
                    }
}

/* dx[o] = sum over co and taps t of dy[o + k-1 - t] w[t]: the transpose of
 * the forward, with dy carrying a halo of k-1 in all. */
static void ref_conv3d_bwd_data(void *ctx, const t3view *dy, const void *wv, int k,
                                const t3view *dx)
{
    (void)ctx;
    const float *w = wv;
    int m = k - 1;
    for (int i = 0; i < dx->n; i++)
        for (int ci = 0; ci < dx->c; ci++)
            for (int z = 0; z < dx->d; z++)
                for (int r = 0; r < dx->h; r++)
                    for (int q = 0; q < dx->w; q++) {
                        double acc = 0;
                        for (int co = 0; co < dy->c; co++)
                            for (int a = 0; a < k; a++)
                                for (int b = 0; b < k; b++)
                                    for (int c = 0; c < k; c++) {
                                        acc += (double)*e3(dy, i, co, z + m - a, r + m - b,
                                                           q + m - c) *
                                               *w3(w, dx->c, k, co, ci, a, b, c);
                                        FL(2);
                                    }
                        *e3(dx, i, ci, z, r, q) = (float)acc;
                    }
}

/* dw[co][ci][t] = sum over samples and outputs o of x[o + t] dy[o] */
static void ref_conv3d_bwd_weights(void *ctx, const t3view *x, const t3view *dy, int k, void *dwv)
{
    (void)ctx;
    float *dw = dwv;
    for (int co = 0; co < dy->c; co++)
        for (int ci = 0; ci < x->c; ci++)
            for (int a = 0; a < k; a++)
                for (int b = 0; b < k; b++)
                    for (int c = 0; c < k; c++) {
                        double acc = 0;
                        for (int i = 0; i < dy->n; i++)
                            for (int z = 0; z < dy->d; z++)
                                for (int r = 0; r < dy->h; r++)
                                    for (int q = 0; q < dy->w; q++) {
                                        acc += (double)*e3(x, i, ci, z + a, r + b, q + c) *
                                               *e3(dy, i, co, z, r, q);
                                        FL(2);
                                    }
                        dw[((((int64_t)co * x->c + ci) * k + a) * k + b) * k + c] = (float)acc;
                    }
}

/* The first maximum of the 2x2x2 window at output (z, r, q), in (z, y, x)
 * order: 7 compares.  *at receives its offset inside the window (0..7). */
static float window_max(const t3view *x, int i, int c, int z, int r, int q, int *at)
{
    float m = *e3(x, i, c, 2 * z, 2 * r, 2 * q);
    *at = 0;
    for (int j = 1; j < 8; j++) {
        float v = *e3(x, i, c, 2 * z + (j >> 2), 2 * r + ((j >> 1) & 1), 2 * q + (j & 1));
        FL(1);
        if (v > m) m = v, *at = j;
    }
    return m;
}

static void ref_pool3d_fwd(void *ctx, const t3view *x, const t3view *y)
{
    (void)ctx;
    int at;
    for (int i = 0; i < y->n; i++)
        for (int c = 0; c < y->c; c++)
            for (int z = 0; z < y->d; z++)
                for (int r = 0; r < y->h; r++)
                    for (int q = 0; q < y->w; q++)
                        *e3(y, i, c, z, r, q) = window_max(x, i, c, z, r, q, &at);
}

static void ref_pool3d_bwd(void *ctx, const t3view *x, const t3view *dy, const t3view *dx)
{
    (void)ctx;
    int at;
    for (int i = 0; i < dy->n; i++)
        for (int c = 0; c < dy->c; c++)
            for (int z = 0; z < dy->d; z++)
                for (int r = 0; r < dy->h; r++)
                    for (int q = 0; q < dy->w; q++) {
                        (void)window_max(x, i, c, z, r, q, &at);
                        float g = *e3(dy, i, c, z, r, q);
                        for (int j = 0; j < 8; j++)
                            *e3(dx, i, c, 2 * z + (j >> 2), 2 * r + ((j >> 1) & 1),
                                2 * q + (j & 1)) = j == at ? g : 0.0f;
                    }
}

/* Loop over every element of a view: the body (variadic: commas allowed)
 * sees i, c, z, r, q. */
#define EACH(T, ...)                                               \
    for (int i = 0; i < (T)->n; i++)                               \
        for (int c = 0; c < (T)->c; c++)                           \
            for (int z = 0; z < (T)->d; z++)                       \
                for (int r = 0; r < (T)->h; r++)                   \
                    for (int q = 0; q < (T)->w; q++) { __VA_ARGS__; }

static void ref_lrelu_fwd(void *ctx, const t3view *x, const t3view *y, float slope)
{
    (void)ctx;
    EACH(x, {
        float v = *e3(x, i, c, z, r, q), m = slope * v;
        FL(2);
        *e3(y, i, c, z, r, q) = v > 0 ? v : m;
    })
}

static void ref_lrelu_bwd(void *ctx, const t3view *y, const t3view *dy, const t3view *dx,
                          float slope)
{
    (void)ctx;
    EACH(y, {
        float g = *e3(dy, i, c, z, r, q), m = slope * g;
        FL(2);
        *e3(dx, i, c, z, r, q) = *e3(y, i, c, z, r, q) > 0 ? g : m;
    })
}

static void ref_bias3d_fwd(void *ctx, const t3view *y, const void *bv)
{
    (void)ctx;
    const float *b = bv;
    EACH(y, {
        *e3(y, i, c, z, r, q) += b[c];
        FL(1);
    })
}

static void ref_bias3d_bwd(void *ctx, const t3view *dy, void *dbv)
{
    (void)ctx;
    float *db = dbv;
    for (int c = 0; c < dy->c; c++) {
        double acc = 0;
        for (int i = 0; i < dy->n; i++)
            for (int z = 0; z < dy->d; z++)
                for (int r = 0; r < dy->h; r++)
                    for (int q = 0; q < dy->w; q++) {
                        acc += *e3(dy, i, c, z, r, q);
                        FL(1);
                    }
        db[c] = (float)acc;
    }
}

static void ref_dense_fwd(void *ctx, const void *xv, const void *wv, int n, int in, int out,
                          void *yv)
{
    (void)ctx;
    const float *x = xv, *w = wv;
    float *y = yv;
    for (int i = 0; i < n; i++)
        for (int o = 0; o < out; o++) {
            double acc = 0;
            for (int j = 0; j < in; j++) {
                acc += (double)x[(int64_t)i * in + j] * w[(int64_t)o * in + j];
                FL(2);
            }
            y[(int64_t)i * out + o] = (float)acc;
        }
}

static void ref_dense_bwd_data(void *ctx, const void *dyv, const void *wv, int n, int in, int out,
                               void *dxv)
{
    (void)ctx;
    const float *dy = dyv, *w = wv;
    float *dx = dxv;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < in; j++) {
            double acc = 0;
            for (int o = 0; o < out; o++) {
                acc += (double)dy[(int64_t)i * out + o] * w[(int64_t)o * in + j];
                FL(2);
            }
            dx[(int64_t)i * in + j] = (float)acc;
        }
}

static void ref_dense_bwd_weights(void *ctx, const void *xv, const void *dyv, int n, int in,
                                  int out, void *dwv)
{
    (void)ctx;
    const float *x = xv, *dy = dyv;
    float *dw = dwv;
    for (int o = 0; o < out; o++)
        for (int j = 0; j < in; j++) {
            double acc = 0;
            for (int i = 0; i < n; i++) {
                acc += (double)dy[(int64_t)i * out + o] * x[(int64_t)i * in + j];
                FL(2);
            }
            dw[(int64_t)o * in + j] = (float)acc;
        }
}

static double ref_mse_fwd(void *ctx, const void *yv, const void *tv, int64_t count)
{
    (void)ctx;
    const float *y = yv, *t = tv;
    double sum = 0;
    for (int64_t i = 0; i < count; i++) {
        double d = (double)y[i] - t[i];
        sum += d * d;
        FL(3);
    }
    FL(1);
    return count > 0 ? sum * (1.0 / (double)count) : 0.0;
}

static void ref_mse_bwd(void *ctx, const void *yv, const void *tv, int64_t count, void *dyv)
{
    (void)ctx;
    const float *y = yv, *t = tv;
    float *dy = dyv;
    double s = count > 0 ? 2.0 / (double)count : 0.0;
    for (int64_t i = 0; i < count; i++) {
        dy[i] = (float)(((double)y[i] - t[i]) * s);
        FL(2);
    }
}

static void ref_copy3d(void *ctx, const t3view *src, const t3view *dst)
{
    (void)ctx;
    EACH(src, *e3(dst, i, c, z, r, q) = *e3(src, i, c, z, r, q))
}

/* Locally connected layers: the dense loops, position by position. */
static void ref_lc_fwd(void *ctx, const void *x, const void *w, int npos, int n, int in, int out,
                       void *y)
{
    for (int64_t t = 0; t < npos; t++)
        ref_dense_fwd(ctx, (const float *)x + t * n * in, (const float *)w + t * out * in, n, in,
                      out, (float *)y + t * n * out);
}

static void ref_lc_bwd_data(void *ctx, const void *dy, const void *w, int npos, int n, int in,
                            int out, void *dx)
{
    for (int64_t t = 0; t < npos; t++)
        ref_dense_bwd_data(ctx, (const float *)dy + t * n * out, (const float *)w + t * out * in,
                           n, in, out, (float *)dx + t * n * in);
}

static void ref_lc_bwd_weights(void *ctx, const void *x, const void *dy, int npos, int n, int in,
                               int out, void *dw)
{
    for (int64_t t = 0; t < npos; t++)
        ref_dense_bwd_weights(ctx, (const float *)x + t * n * in, (const float *)dy + t * n * out,
                              n, in, out, (float *)dw + t * out * in);
}

void kern_ref_fill_3d(kern_ops *o)
{
    o->conv3d_fwd = ref_conv3d_fwd;
    o->conv3d_bwd_data = ref_conv3d_bwd_data;
    o->conv3d_bwd_weights = ref_conv3d_bwd_weights;
    o->pool3d_fwd = ref_pool3d_fwd;
    o->pool3d_bwd = ref_pool3d_bwd;
    o->lrelu_fwd = ref_lrelu_fwd;
    o->lrelu_bwd = ref_lrelu_bwd;
    o->bias3d_fwd = ref_bias3d_fwd;
    o->bias3d_bwd = ref_bias3d_bwd;
    o->lc_fwd = ref_lc_fwd;
    o->lc_bwd_data = ref_lc_bwd_data;
    o->lc_bwd_weights = ref_lc_bwd_weights;
    o->dense_fwd = ref_dense_fwd;
    o->dense_bwd_data = ref_dense_bwd_data;
    o->dense_bwd_weights = ref_dense_bwd_weights;
    o->mse_fwd = ref_mse_fwd;
    o->mse_bwd = ref_mse_bwd;
    o->copy3d = ref_copy3d;
}
