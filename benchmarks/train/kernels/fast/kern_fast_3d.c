/* The 3D kernels of the fast CPU set besides the convolutions
 * (kern_fast_conv3d.c): pooling, leaky ReLU, bias, copies as loops over the
 * views shared out over OpenMP threads (this file is compiled with -fopenmp:
 * the same OpenMP runtime and thread count as oneDNN's kernels), dense
 * layers on kf_gemm (oneDNN's sgemm, or its bf16 matmul in bf16 mode); the
 * loss is the reference set's own loops.
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
#include "benchmarks/train/kernels/fast/kf_gemm.h"
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

/* A row (fixed sample, plane, y) of a view as w x c elements: a flat array
 * when channels are contiguous and pixels follow each other (sc = 1, sw = c,
 * what the network's buffers are), so the loops below vectorise; strides
 * are copied into locals so the compiler need not reload them after every
 * store (the views could alias the data as far as it knows). */
typedef struct {
    int64_t sw, sc;
    int w, c, flat;
} rowfmt;

static rowfmt fmt(const t3view *v)
{
    rowfmt f = {v->sw, v->sc, v->w, v->c, v->sc == 1 && v->sw == v->c};
    return f;
}

/* ---- contiguous runs: plain loops the vectoriser takes (omp simd, no
 * branches: -O3 -fno-trapping-math lets it turn the selects into blends;
 * see module.mk).  They compute what the reference loops compute, bit for
 * bit. */

static void lrelu_run(const float *a, float *b, int64_t n, float slope)
{
#pragma omp simd
    for (int64_t e = 0; e < n; e++) {
        float v = a[e];
        b[e] = (v > 0 ? 1.0f : slope) * v; /* 1 * v is v; slope * v as the reference */
    }
}

static void lrelu_bwd_run(const float *y, const float *g, float *d, int64_t n, float slope)
{
#pragma omp simd
    for (int64_t e = 0; e < n; e++) {
        float gv = g[e];
        d[e] = (y[e] > 0 ? 1.0f : slope) * gv;
    }
}

static void max_run(const float *p, float *o, int n)
{
#pragma omp simd
    for (int k = 0; k < n; k++) {
        float v = p[k], m = o[k];
        o[k] = v > m ? v : m;
    }
}

static void bias_run(float *p, const float *b, int n)
{
#pragma omp simd
    for (int k = 0; k < n; k++) p[k] += b[k];
}

/* dy to the first position j whose value is the window's maximum m: t
 * marks the channels already routed */
static void route_run(const float *p, const float *m, float *t, const float *g, float *d, int n)
{
#pragma omp simd
    for (int k = 0; k < n; k++) {
        float pk = p[k], mk = m[k], tk = t[k], gv = g[k];
        float hit = pk == mk ? 1.0f : 0.0f;
        hit = tk == 0.0f ? hit : 0.0f;
        d[k] = hit != 0.0f ? gv : 0.0f;
        t[k] = tk + hit;
    }
}

/* a NaN maximum matches nothing: the reference routes it to position 0 */
static void route_nan(const float *t, const float *g, float *d0, int n)
{
#pragma omp simd
    for (int k = 0; k < n; k++) d0[k] = t[k] == 0.0f ? g[k] : d0[k];
}

void kf3_copy(const kf_ctx *c, const t3view *s, const t3view *d)
{
    rowfmt fs = fmt(s), fd = fmt(d);
    int H = s->h;
    PLANES(c, s, {
        for (int y = 0; y < H; y++) {
            const float *a = row(s, i, z, y);
            float *b = row(d, i, z, y);
            if (fs.flat && fd.flat) {
                memcpy(b, a, (size_t)fs.w * fs.c * sizeof(float));
                continue;
            }
            for (int x = 0; x < fs.w; x++)
                for (int ch = 0; ch < fs.c; ch++) b[x * fd.sw + ch * fd.sc] = a[x * fs.sw + ch * fs.sc];
        }
    });
}

static void fast_copy3d(void *ctx, const t3view *s, const t3view *d) { kf3_copy(ctx, s, d); }

static void fast_pool3d_fwd(void *ctx, const t3view *x, const t3view *y)
{
    const kf_ctx *c = ctx;
    rowfmt fy = fmt(y);
    const int64_t xsd = x->sd, xsh = x->sh, xsw = x->sw, xsc = x->sc;
    const int H = y->h, C = y->c;
    PLANES(c, y, {
        for (int r = 0; r < H; r++) {
            float *out = row(y, i, z, r);
            for (int q = 0; q < fy.w; q++) {
                float *o = out + q * fy.sw;
                const float *b = row(x, i, 2 * z, 2 * r) + 2 * q * xsw;
                if (fy.flat && xsc == 1) {
                    for (int ch = 0; ch < C; ch++) o[ch] = b[ch];
                    for (int j = 1; j < 8; j++)
                        max_run(b + (j >> 2) * xsd + ((j >> 1) & 1) * xsh + (j & 1) * xsw, o, C);
                    continue;
                }
                for (int ch = 0; ch < C; ch++) o[ch * fy.sc] = b[ch * xsc];
                for (int j = 1; j < 8; j++) {
                    const float *p = b + (j >> 2) * xsd + ((j >> 1) & 1) * xsh + (j & 1) * xsw;
                    for (int ch = 0; ch < C; ch++) {
                        float v = p[ch * xsc], m = o[ch * fy.sc];
                        o[ch * fy.sc] = v > m ? v : m;
                    }
                }
            }
        }
    });
}

/* Channels in chunks: each window's maximum per channel, then dy routed to
 * the first position holding it (the reference's first maximum), without
 * branches: random signs would make a branch mispredict half the time. */
enum { POOL_CHUNK = 16 };

static void fast_pool3d_bwd(void *ctx, const t3view *x, const t3view *dy, const t3view *dx)
{
    const kf_ctx *c = ctx;
    int64_t ox[8], od[8];
    for (int j = 0; j < 8; j++) {
        ox[j] = (j >> 2) * x->sd + ((j >> 1) & 1) * x->sh + (j & 1) * x->sw;
        od[j] = (j >> 2) * dx->sd + ((j >> 1) & 1) * dx->sh + (j & 1) * dx->sw;
    }
    const int64_t xsw = x->sw, xsc = x->sc, dxsw = dx->sw, dxsc = dx->sc, gsw = dy->sw, gsc = dy->sc;
    const int H = dy->h, W = dy->w, C = dy->c;
    const int unit = xsc == 1 && dxsc == 1 && gsc == 1;
    PLANES(c, dy, {
        for (int r = 0; r < H; r++)
            for (int q = 0; q < W; q++) {
                const float *b = row(x, i, 2 * z, 2 * r) + 2 * q * xsw;
                float *db = row(dx, i, 2 * z, 2 * r) + 2 * q * dxsw;
                const float *g = row(dy, i, z, r) + q * gsw;
                if (unit) {
                    for (int c0 = 0; c0 < C; c0 += POOL_CHUNK) {
                        int n = C - c0 < POOL_CHUNK ? C - c0 : POOL_CHUNK;
                        float m[POOL_CHUNK], t[POOL_CHUNK];
                        memcpy(m, b + c0, (size_t)n * sizeof *m);
                        memset(t, 0, sizeof t);
                        for (int j = 1; j < 8; j++) max_run(b + ox[j] + c0, m, n);
                        for (int j = 0; j < 8; j++) route_run(b + ox[j] + c0, m, t, g + c0, db + od[j] + c0, n);
                        route_nan(t, g + c0, db + c0, n);
                    }
                    continue;
                }
                for (int ch = 0; ch < C; ch++) {
                    const float *p = b + ch * xsc;
                    float m = p[0];
                    int at = 0;
                    for (int j = 1; j < 8; j++) {
                        int gt = p[ox[j]] > m;
                        at = gt ? j : at;
                        m = gt ? p[ox[j]] : m;
                    }
                    float gv = g[ch * gsc];
                    float *d = db + ch * dxsc;
                    for (int j = 0; j < 8; j++) d[od[j]] = j == at ? gv : 0.0f;
                }
            }
    });
}

static void fast_lrelu_fwd(void *ctx, const t3view *x, const t3view *y, float slope)
{
    const kf_ctx *c = ctx;
    rowfmt fx = fmt(x), fy = fmt(y);
    const int H = x->h;
    PLANES(c, x, {
        for (int r = 0; r < H; r++) {
            const float *a = row(x, i, z, r);
            float *b = row(y, i, z, r);
            if (fx.flat && fy.flat) {
                lrelu_run(a, b, (int64_t)fx.w * fx.c, slope);
                continue;
            }
            for (int q = 0; q < fx.w; q++)
                for (int ch = 0; ch < fx.c; ch++) {
                    float v = a[q * fx.sw + ch * fx.sc], m = slope * v;
                    b[q * fy.sw + ch * fy.sc] = v > 0 ? v : m;
                }
        }
    });
}

static void fast_lrelu_bwd(void *ctx, const t3view *y, const t3view *dy, const t3view *dx,
                           float slope)
{
    const kf_ctx *c = ctx;
    rowfmt fy = fmt(y), fg = fmt(dy), fd = fmt(dx);
    const int H = y->h;
    PLANES(c, y, {
        for (int r = 0; r < H; r++) {
            const float *a = row(y, i, z, r), *g = row(dy, i, z, r);
            float *b = row(dx, i, z, r);
            if (fy.flat && fg.flat && fd.flat) {
                lrelu_bwd_run(a, g, b, (int64_t)fy.w * fy.c, slope);
                continue;
            }
            for (int q = 0; q < fy.w; q++)
                for (int ch = 0; ch < fy.c; ch++) {
                    float gv = g[q * fg.sw + ch * fg.sc], m = slope * gv;
                    b[q * fd.sw + ch * fd.sc] = a[q * fy.sw + ch * fy.sc] > 0 ? gv : m;
                }
        }
    });
}

static void fast_bias3d_fwd(void *ctx, const t3view *y, const void *bv)
{
    const kf_ctx *c = ctx;
    const float *bias = bv;
    rowfmt f = fmt(y);
    const int H = y->h;
    PLANES(c, y, {
        for (int r = 0; r < H; r++) {
            float *b = row(y, i, z, r);
            for (int q = 0; q < f.w; q++) {
                float *p = b + q * f.sw;
                if (f.sc == 1)
                    bias_run(p, bias, f.c);
                else
                    for (int ch = 0; ch < f.c; ch++) p[ch * f.sc] += bias[ch];
            }
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
    int nt = omp_get_max_threads(), C = dy->c, np = dy->n * dy->d, D = dy->d, H = dy->h, W = dy->w;
    const int64_t sw = dy->sw, sc = dy->sc;
    double *part = XCALLOC((size_t)nt * C, sizeof *part, "bias gradient partial sums");
#pragma omp parallel num_threads(nt)
    {
        double *acc = part + (size_t)omp_get_thread_num() * C;
#pragma omp for schedule(static)
        for (int ip = 0; ip < np; ip++) {
            int i = ip / D, z = ip % D;
            for (int r = 0; r < H; r++) {
                const float *g = row(dy, i, z, r);
                for (int q = 0; q < W; q++)
                    for (int ch = 0; ch < C; ch++) acc[ch] += g[q * sw + ch * sc];
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

/* Dense layers: row-major GEMMs (kf_gemm). */
static void fast_dense_fwd(void *ctx, const void *x, const void *w, int n, int in, int out,
                           void *y)
{
    kf_threads(ctx);
    kf_gemm(ctx, 'N', 'T', n, out, in, x, in, w, in, 0.0f, y, out);
}

static void fast_dense_bwd_data(void *ctx, const void *dy, const void *w, int n, int in, int out,
                                void *dx)
{
    kf_threads(ctx);
    kf_gemm(ctx, 'N', 'N', n, in, out, dy, out, w, in, 0.0f, dx, in);
}

static void fast_dense_bwd_weights(void *ctx, const void *x, const void *dy, int n, int in,
                                   int out, void *dw)
{
    kf_threads(ctx);
    kf_gemm(ctx, 'T', 'N', out, in, n, dy, out, x, in, 0.0f, dw, in);
}

/* Locally connected layers: one GEMM a position (the batched GEMM as a loop;
 * OpenBLAS has no batched call). */
static void fast_lc_fwd(void *ctx, const void *x, const void *w, int npos, int n, int in, int out,
                        void *y)
{
    for (int64_t t = 0; t < npos; t++)
        fast_dense_fwd(ctx, (const float *)x + t * n * in, (const float *)w + t * out * in, n, in,
                       out, (float *)y + t * n * out);
}

static void fast_lc_bwd_data(void *ctx, const void *dy, const void *w, int npos, int n, int in,
                             int out, void *dx)
{
    for (int64_t t = 0; t < npos; t++)
        fast_dense_bwd_data(ctx, (const float *)dy + t * n * out, (const float *)w + t * out * in,
                            n, in, out, (float *)dx + t * n * in);
}

static void fast_lc_bwd_weights(void *ctx, const void *x, const void *dy, int npos, int n, int in,
                                int out, void *dw)
{
    for (int64_t t = 0; t < npos; t++)
        fast_dense_bwd_weights(ctx, (const float *)x + t * n * in, (const float *)dy + t * n * out,
                               n, in, out, (float *)dw + t * out * in);
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
    o->lc_fwd = fast_lc_fwd;
    o->lc_bwd_data = fast_lc_bwd_data;
    o->lc_bwd_weights = fast_lc_bwd_weights;
    o->dense_fwd = fast_dense_fwd;
    o->dense_bwd_data = fast_dense_bwd_data;
    o->dense_bwd_weights = fast_dense_bwd_weights;
    /* the loss has a few elements per sample: the reference's loops serve */
    const kern_ops *ref = kern_ref_ops();
    o->mse_fwd = ref->mse_fwd;
    o->mse_bwd = ref->mse_bwd;
    o->copy3d = fast_copy3d;
}
