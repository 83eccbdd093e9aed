/* The 3D kernels of the fast CPU set besides the convolutions
 * (kern_fast_conv3d.c): pooling, leaky ReLU, bias, copies as loops over the
 * views shared out over OpenMP threads (this file is compiled with -fopenmp:
 * the same OpenMP runtime and thread count as oneDNN's kernels), dense
 * layers on oneDNN's sgemm, the loss as plain loops.
 *
 * The loops run channels innermost: on the channels-last views cosmoflow
 * keeps, that is the contiguous direction, so they vectorise.  They compute
 * what kern_ref_3d.c computes element by element in float (pooling, leaky
 * ReLU, bias, copies: bit-identical), and sum in double like the reference. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/train/kernels/fast/kern_fast_conv3d.h"
#include "benchmarks/train/kernels/fast/kf_ctx.h"
#include "benchmarks/train/kernels/kern.h"

static inline float *row(const t3view *t, int i, int z, int y)
{
    return (float *)t->p + i * t->sn + z * t->sd + y * t->sh;
}

/* Every (sample, plane) pair on the context's threads; the body (the
 * variadic part, commas allowed) sees i, z. */
#define PLANES(C, T, ...)                                                 \
    do {                                                                  \
        kf_threads(C);                                                    \
        int np_ = (T)->n * (T)->d;                                        \
        _Pragma("omp parallel for schedule(static)")                      \
        for (int ip_ = 0; ip_ < np_; ip_++) {                             \
            int i = ip_ / (T)->d, z = ip_ % (T)->d;                       \
            __VA_ARGS__;                                                  \
        }                                                                 \
    } while (0)

void kf3_copy(const kf_ctx *c, const t3view *s, const t3view *d)
{
    PLANES(c, s, {
        for (int y = 0; y < s->h; y++) {
            const float *a = row(s, i, z, y);
            float *b = row(d, i, z, y);
            for (int x = 0; x < s->w; x++)
                for (int ch = 0; ch < s->c; ch++) b[x * d->sw + ch * d->sc] = a[x * s->sw + ch * s->sc];
        }
    });
}

static void fast_copy3d(void *ctx, const t3view *s, const t3view *d) { kf3_copy(ctx, s, d); }

static void fast_pool3d_fwd(void *ctx, const t3view *x, const t3view *y)
{
    const kf_ctx *c = ctx;
    PLANES(c, y, {
        for (int r = 0; r < y->h; r++) {
            float *out = row(y, i, z, r);
            for (int q = 0; q < y->w; q++) {
                float *o = out + q * y->sw;
                const float *b = row(x, i, 2 * z, 2 * r) + 2 * q * x->sw;
                for (int ch = 0; ch < y->c; ch++) o[ch * y->sc] = b[ch * x->sc];
                for (int j = 1; j < 8; j++) {
                    const float *p = b + (j >> 2) * x->sd + ((j >> 1) & 1) * x->sh + (j & 1) * x->sw;
                    for (int ch = 0; ch < y->c; ch++) {
                        float v = p[ch * x->sc], m = o[ch * y->sc];
                        o[ch * y->sc] = v > m ? v : m;
                    }
                }
            }
        }
    });
}

static void fast_pool3d_bwd(void *ctx, const t3view *x, const t3view *dy, const t3view *dx)
{
    const kf_ctx *c = ctx;
    int64_t ox[8], od[8];
    for (int j = 0; j < 8; j++) {
        ox[j] = (j >> 2) * x->sd + ((j >> 1) & 1) * x->sh + (j & 1) * x->sw;
        od[j] = (j >> 2) * dx->sd + ((j >> 1) & 1) * dx->sh + (j & 1) * dx->sw;
    }
    PLANES(c, dy, {
        for (int r = 0; r < dy->h; r++)
            for (int q = 0; q < dy->w; q++) {
                const float *b = row(x, i, 2 * z, 2 * r) + 2 * q * x->sw;
                float *db = row(dx, i, 2 * z, 2 * r) + 2 * q * dx->sw;
                const float *g = row(dy, i, z, r) + q * dy->sw;
                for (int ch = 0; ch < dy->c; ch++) {
                    const float *p = b + ch * x->sc;
                    float m = p[0];
                    int at = 0;
                    for (int j = 1; j < 8; j++)
                        if (p[ox[j]] > m) m = p[ox[j]], at = j;
                    float gv = g[ch * dy->sc];
                    float *d = db + ch * dx->sc;
                    for (int j = 0; j < 8; j++) d[od[j]] = j == at ? gv : 0.0f;
                }
            }
    });
}

static void fast_lrelu_fwd(void *ctx, const t3view *x, const t3view *y, float slope)
{
    const kf_ctx *c = ctx;
    PLANES(c, x, {
        for (int r = 0; r < x->h; r++) {
            const float *a = row(x, i, z, r);
            float *b = row(y, i, z, r);
            for (int q = 0; q < x->w; q++)
                for (int ch = 0; ch < x->c; ch++) {
                    float v = a[q * x->sw + ch * x->sc], m = slope * v;
                    b[q * y->sw + ch * y->sc] = v > 0 ? v : m;
                }
        }
    });
}

static void fast_lrelu_bwd(void *ctx, const t3view *y, const t3view *dy, const t3view *dx,
                           float slope)
{
    const kf_ctx *c = ctx;
    PLANES(c, y, {
        for (int r = 0; r < y->h; r++) {
            const float *a = row(y, i, z, r), *g = row(dy, i, z, r);
            float *b = row(dx, i, z, r);
            for (int q = 0; q < y->w; q++)
                for (int ch = 0; ch < y->c; ch++) {
                    float gv = g[q * dy->sw + ch * dy->sc], m = slope * gv;
                    b[q * dx->sw + ch * dx->sc] = a[q * y->sw + ch * y->sc] > 0 ? gv : m;
                }
        }
    });
}

static void fast_bias3d_fwd(void *ctx, const t3view *y, const void *bv)
{
    const kf_ctx *c = ctx;
    const float *bias = bv;
    PLANES(c, y, {
        for (int r = 0; r < y->h; r++) {
            float *b = row(y, i, z, r);
            for (int q = 0; q < y->w; q++)
                for (int ch = 0; ch < y->c; ch++) b[q * y->sw + ch * y->sc] += bias[ch];
        }
    });
}

/* Per-thread sums over the thread's planes, added in thread order after the
 * loop: the same result for the same thread count, run after run. */
static void fast_bias3d_bwd(void *ctx, const t3view *dy, void *dbv)
{
    const kf_ctx *c = ctx;
    float *db = dbv;
    kf_threads(c);
    int nt = omp_get_max_threads(), C = dy->c, np = dy->n * dy->d;
    double *part = XCALLOC((size_t)nt * C, sizeof *part, "bias gradient partial sums");
#pragma omp parallel num_threads(nt)
    {
        double *acc = part + (size_t)omp_get_thread_num() * C;
#pragma omp for schedule(static)
        for (int ip = 0; ip < np; ip++) {
            int i = ip / dy->d, z = ip % dy->d;
            for (int r = 0; r < dy->h; r++) {
                const float *g = row(dy, i, z, r);
                for (int q = 0; q < dy->w; q++)
                    for (int ch = 0; ch < C; ch++) acc[ch] += g[q * dy->sw + ch * dy->sc];
            }
        }
    }
    for (int ch = 0; ch < C; ch++) {
        double s = 0;
        for (int t = 0; t < nt; t++) s += part[(size_t)t * C + ch];
        db[ch] = (float)s;
    }
    free(part);
}

/* Dense layers: row-major GEMMs on oneDNN's sgemm. */
static void fast_dense_fwd(void *ctx, const void *x, const void *w, int n, int in, int out,
                           void *y)
{
    kf_threads(ctx);
    DNNL_CHECK(dnnl_sgemm('N', 'T', n, out, in, 1.0f, x, in, w, in, 0.0f, y, out));
}

static void fast_dense_bwd_data(void *ctx, const void *dy, const void *w, int n, int in, int out,
                                void *dx)
{
    kf_threads(ctx);
    DNNL_CHECK(dnnl_sgemm('N', 'N', n, in, out, 1.0f, dy, out, w, in, 0.0f, dx, in));
}

static void fast_dense_bwd_weights(void *ctx, const void *x, const void *dy, int n, int in,
                                   int out, void *dw)
{
    kf_threads(ctx);
    DNNL_CHECK(dnnl_sgemm('T', 'N', out, in, n, 1.0f, dy, out, x, in, 0.0f, dw, in));
}

/* The loss has a few elements per sample: loops, as the reference. */
static double fast_mse_fwd(void *ctx, const void *yv, const void *tv, int64_t count)
{
    (void)ctx;
    const float *y = yv, *t = tv;
    double sum = 0;
    for (int64_t i = 0; i < count; i++) {
        double d = (double)y[i] - t[i];
        sum += d * d;
    }
    return count > 0 ? sum * (1.0 / (double)count) : 0.0;
}

static void fast_mse_bwd(void *ctx, const void *yv, const void *tv, int64_t count, void *dyv)
{
    (void)ctx;
    const float *y = yv, *t = tv;
    float *dy = dyv;
    double s = count > 0 ? 2.0 / (double)count : 0.0;
    for (int64_t i = 0; i < count; i++) dy[i] = (float)(((double)y[i] - t[i]) * s);
}

void kern_fast_fill_3d(kern_ops *o)
{
    o->conv3d_fwd = kf_conv3d_fwd;
    o->conv3d_bwd_data = kf_conv3d_bwd_data;
    o->conv3d_bwd_weights = kf_conv3d_bwd_weights;
    o->pool3d_fwd = fast_pool3d_fwd;
    o->pool3d_bwd = fast_pool3d_bwd;
    o->lrelu_fwd = fast_lrelu_fwd;
    o->lrelu_bwd = fast_lrelu_bwd;
    o->bias3d_fwd = fast_bias3d_fwd;
    o->bias3d_bwd = fast_bias3d_bwd;
    o->dense_fwd = fast_dense_fwd;
    o->dense_bwd_data = fast_dense_bwd_data;
    o->dense_bwd_weights = fast_dense_bwd_weights;
    o->mse_fwd = fast_mse_fwd;
    o->mse_bwd = fast_mse_bwd;
    o->copy3d = fast_copy3d;
}
