/* cosmo_kcheck: what the 3D kernel tests of the fast set
 * (test_cosmo_kernels.c) and the CUDA set (test_cosmo_cuda.c) share: every
 * 3D kernel of a set against the reference set on the same inputs, over
 * views of several shapes (channels last dense, with gaps between samples,
 * channels first, a sub-box of a padded buffer; k = 1, 3, 5; batch 1 and
 * 2; channel counts that take oneDNN's and cuDNN's fast kernels).
 *
 * Buffers go through the set's own memory (alloc, put_f32, get_f32), so
 * the same code serves host and device sets and 16-bit element types.
 * Values are multiples of 1/256 in [-1, 1): exact in bf16 and fp16, so
 * both sides see the same numbers, and full of ties, so the pooling's
 * "first maximum" rule is tested too.
 * Error norm: max |set - ref| / max |ref| over each output below tol; the
 * elements between samples (gaps) must come back untouched, bit for bit. */
#ifndef EXADL_COSMO_KCHECK_H
#define EXADL_COSMO_KCHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/rng.h"
#include "benchmarks/train/kernels/kern.h"
#include "tests/unit/tap.h"

typedef struct {
    const kern_ops *ops;
    void *ctx;
    double tol;
} kset_t;

/* A view's shape and strides, and its elements with the gaps (host floats). */
typedef struct {
    t3view v;       /* p unused here */
    int64_t span;   /* elements from the first to past the last sample */
    float *host;
} hview_t;

enum { KC_LAST = 0, KC_GAP = 1, KC_FIRST = 2, KC_SUBBOX = 3 };
static const float KC_SENTINEL = 3.25f;

static inline hview_t kc_view(int n, int c, int d, int h, int w, int kind, uint64_t seed)
{
    hview_t r;
    t3view *v = &r.v;
    memset(&r, 0, sizeof r);
    v->n = n, v->c = c, v->d = d, v->h = h, v->w = w;
    int pad = kind == KC_SUBBOX ? 1 : 0;
    int64_t D = d + 2 * pad, H = h + 2 * pad, W = w + 2 * pad, off = 0;
    if (kind == KC_FIRST) {
        v->sw = 1, v->sh = W, v->sd = W * H, v->sc = v->sd * D, v->sn = v->sc * c;
    } else {
        v->sc = 1, v->sw = c, v->sh = (int64_t)c * W, v->sd = v->sh * H, v->sn = v->sd * D;
        if (kind == KC_GAP) v->sn += 5;
        if (kind == KC_SUBBOX) off = v->sd + v->sh + v->sw;
    }
    r.span = v->sn * n;
    r.host = malloc((size_t)(r.span + 8) * sizeof(float));
    for (int64_t i = 0; i < r.span + 8; i++) r.host[i] = KC_SENTINEL;
    rng_t g = rng_stream(seed, (uint64_t)c, (uint64_t)d, (uint64_t)kind);
    for (int i = 0; i < n; i++)
        for (int ch = 0; ch < c; ch++)
            for (int z = 0; z < d; z++)
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++)
                        r.host[off + i * v->sn + ch * v->sc + z * v->sd + y * v->sh + x * v->sw] =
                            (float)((int)(rng_next(&g) % 512) - 256) / 256.0f;
    v->p = (void *)(intptr_t)off; /* the element offset of the view in its buffer */
    return r;
}

/* The view on set s's copy of h (allocated, values uploaded). */
static inline t3view kc_upload(const kset_t *s, const hview_t *h, void **buf)
{
    size_t n = (size_t)h->span + 8;
    *buf = s->ops->alloc(s->ctx, n * s->ops->act_bytes);
    T_ASSERT(*buf, "alloc %zu elements", n);
    tview flat = {*buf, 1, 1, 1, (int)n, (int64_t)n};
    s->ops->put_f32(s->ctx, &flat, h->host);
    t3view v = h->v;
    v.p = (char *)*buf + (intptr_t)h->v.p * (int64_t)s->ops->act_bytes;
    return v;
}

static inline float *kc_download(const kset_t *s, const hview_t *h, void *buf)
{
    size_t n = (size_t)h->span + 8;
    float *out = malloc(n * sizeof *out);
    tview flat = {buf, 1, 1, 1, (int)n, (int64_t)n};
    s->ops->get_f32(s->ctx, &flat, out);
    return out;
}

/* Compare the elements of view h in a (reference) and b; the rest of the
 * buffers (gaps, halos) must be untouched in b. */
static inline void kc_compare(const char *what, const hview_t *h, const float *a, const float *b,
                              double tol)
{
    const t3view *v = &h->v;
    int64_t off = (intptr_t)v->p;
    char *inside = calloc((size_t)h->span + 8, 1);
    double mx = 0, err = 0;
    for (int i = 0; i < v->n; i++)
        for (int ch = 0; ch < v->c; ch++)
            for (int z = 0; z < v->d; z++)
                for (int y = 0; y < v->h; y++)
                    for (int x = 0; x < v->w; x++) {
                        int64_t e = off + i * v->sn + ch * v->sc + z * v->sd + y * v->sh + x * v->sw;
                        inside[e] = 1;
                        mx = fmax(mx, fabs(a[e]));
                        err = fmax(err, fabs((double)a[e] - b[e]));
                    }
    int64_t stray = -1;
    for (int64_t e = 0; e < h->span + 8 && stray < 0; e++)
        if (!inside[e] && b[e] != KC_SENTINEL) stray = e;
    free(inside);
    T_ASSERT(stray < 0, "%s: element %lld outside the view changed to %g", what, (long long)stray,
             b[stray < 0 ? 0 : stray]);
    T_ASSERT(err <= tol * (mx > 0 ? mx : 1), "%s: max error %.3g, max |ref| %.3g (tol %.1g)", what,
             err, mx, tol);
}

/* Flat parameter arrays: weights in the compute type, gradients fp32. */
static inline void *kc_weights(const kset_t *s, const float *host, int64_t n, void **master)
{
    *master = s->ops->alloc(s->ctx, (size_t)n * sizeof(float));
    s->ops->h2d(s->ctx, *master, host, (size_t)n * sizeof(float));
    if (s->ops->act_bytes == sizeof(float)) return *master;
    void *wc = s->ops->alloc(s->ctx, (size_t)n * s->ops->act_bytes);
    s->ops->cast_params(s->ctx, *master, wc, n);
    return wc;
}

static inline float *kc_rand(int64_t n, uint64_t seed)
{
    float *p = malloc((size_t)n * sizeof *p);
    rng_t g = rng_stream(seed, (uint64_t)n, 1, 2);
    for (int64_t i = 0; i < n; i++) p[i] = (float)(2 * rng_uniform(&g) - 1);
    return p;
}

/* Multiples of 1/256 in [-1, 1) (exact in 16 bits). */
static inline float *kc_qrand(int64_t n, uint64_t seed)
{
    float *p = malloc((size_t)n * sizeof *p);
    rng_t g = rng_stream(seed, (uint64_t)n, 3, 4);
    for (int64_t i = 0; i < n; i++) p[i] = (float)((int)(rng_next(&g) % 512) - 256) / 256.0f;
    return p;
}

/* One convolution shape in all three directions on sets a (reference) and b. */
static inline void kc_conv(const kset_t *a, const kset_t *b, int n, int ci, int co, int k, int d,
                           int h, int w, int kind)
{
    char what[96];
    int64_t nw = (int64_t)co * ci * k * k * k;
    float *wh = kc_qrand(nw, 3);
    hview_t x = kc_view(n, ci, d + k - 1, h + k - 1, w + k - 1, kind, 1);
    hview_t y = kc_view(n, co, d, h, w, kind, 2);
    hview_t dy = kc_view(n, co, d + k - 1, h + k - 1, w + k - 1, kind, 4);
    hview_t dx = kc_view(n, ci, d, h, w, kind, 5);
    const kset_t *s[2] = {a, b};
    float *out[2][3];
    float *dw[2];
    for (int q = 0; q < 2; q++) {
        void *bx, *by, *bdy, *bdx, *wm, *dwb;
        t3view vx = kc_upload(s[q], &x, &bx), vy = kc_upload(s[q], &y, &by);
        t3view vdy = kc_upload(s[q], &dy, &bdy), vdx = kc_upload(s[q], &dx, &bdx);
        void *wc = kc_weights(s[q], wh, nw, &wm);
        dwb = s[q]->ops->alloc(s[q]->ctx, (size_t)nw * sizeof(float));
        s[q]->ops->conv3d_fwd(s[q]->ctx, &vx, wc, k, &vy);
        s[q]->ops->conv3d_bwd_data(s[q]->ctx, &vdy, wc, k, &vdx);
        s[q]->ops->conv3d_bwd_weights(s[q]->ctx, &vx, &vy, k, dwb);
        s[q]->ops->sync(s[q]->ctx);
        out[q][0] = kc_download(s[q], &y, by);
        out[q][1] = kc_download(s[q], &dx, bdx);
        dw[q] = malloc((size_t)nw * sizeof(float));
        s[q]->ops->d2h(s[q]->ctx, dw[q], dwb, (size_t)nw * sizeof(float));
        void *all[] = {bx, by, bdy, bdx, dwb};
        for (int j = 0; j < 5; j++) s[q]->ops->release(s[q]->ctx, all[j]);
        if (wc != wm) s[q]->ops->release(s[q]->ctx, wc);
        s[q]->ops->release(s[q]->ctx, wm);
    }
    snprintf(what, sizeof what, "conv3d_fwd n%d %d->%d k%d %dx%dx%d view%d", n, ci, co, k, d, h, w,
             kind);
    kc_compare(what, &y, out[0][0], out[1][0], b->tol);
    snprintf(what, sizeof what, "conv3d_bwd_data n%d %d->%d k%d view%d", n, ci, co, k, kind);
    kc_compare(what, &dx, out[0][1], out[1][1], b->tol);
    double mx = 0, err = 0;
    for (int64_t i = 0; i < nw; i++) mx = fmax(mx, fabs(dw[0][i])), err = fmax(err, fabs(dw[0][i] - dw[1][i]));
    T_ASSERT(err <= b->tol * mx, "conv3d_bwd_weights n%d %d->%d k%d view%d: max error %.3g of %.3g", n,
             ci, co, k, kind, err, mx);
    for (int q = 0; q < 2; q++) free(out[q][0]), free(out[q][1]), free(dw[q]);
    free(wh), free(x.host), free(y.host), free(dy.host), free(dx.host);
}

/* Pooling, leaky ReLU, bias, copy on one shape (extents even for pooling). */
static inline void kc_elementwise(const kset_t *a, const kset_t *b, int n, int c, int d, int h, int w,
                                  int kind)
{
    char what[96];
    hview_t x = kc_view(n, c, d, h, w, kind, 7), y = kc_view(n, c, d / 2, h / 2, w / 2, kind, 8);
    hview_t dx = kc_view(n, c, d, h, w, kind, 9), z = kc_view(n, c, d, h, w, kind, 10);
    float *bias = kc_qrand(c, 11);
    const kset_t *s[2] = {a, b};
    float *res[2][4], *db[2];
    for (int q = 0; q < 2; q++) {
        void *bx, *by, *bdx, *bz, *bm, *dbb;
        t3view vx = kc_upload(s[q], &x, &bx), vy = kc_upload(s[q], &y, &by);
        t3view vdx = kc_upload(s[q], &dx, &bdx), vz = kc_upload(s[q], &z, &bz);
        void *bc = kc_weights(s[q], bias, c, &bm);
        dbb = s[q]->ops->alloc(s[q]->ctx, (size_t)c * sizeof(float));
        const kern_ops *o = s[q]->ops;
        o->pool3d_fwd(s[q]->ctx, &vx, &vy);
        o->pool3d_bwd(s[q]->ctx, &vx, &vy, &vdx);   /* routes y's values back */
        o->lrelu_fwd(s[q]->ctx, &vx, &vz, 0.3f);
        o->lrelu_bwd(s[q]->ctx, &vz, &vx, &vx, 0.3f); /* in place: dx = dy = x */
        o->bias3d_fwd(s[q]->ctx, &vz, bc);
        o->bias3d_bwd(s[q]->ctx, &vz, dbb);
        o->sync(s[q]->ctx);
        res[q][0] = kc_download(s[q], &y, by);
        res[q][1] = kc_download(s[q], &dx, bdx);
        res[q][2] = kc_download(s[q], &z, bz);
        res[q][3] = kc_download(s[q], &x, bx);
        db[q] = malloc((size_t)c * sizeof(float));
        o->d2h(s[q]->ctx, db[q], dbb, (size_t)c * sizeof(float));
        void *all[] = {bx, by, bdx, bz, dbb};
        for (int j = 0; j < 5; j++) o->release(s[q]->ctx, all[j]);
        if (bc != bm) o->release(s[q]->ctx, bc);
        o->release(s[q]->ctx, bm);
    }
    const char *names[4] = {"pool3d_fwd", "pool3d_bwd", "lrelu_fwd + bias3d_fwd", "lrelu_bwd in place"};
    const hview_t *views[4] = {&y, &dx, &z, &x};
    for (int j = 0; j < 4; j++) {
        snprintf(what, sizeof what, "%s n%d c%d %dx%dx%d view%d", names[j], n, c, d, h, w, kind);
        kc_compare(what, views[j], res[0][j], res[1][j], b->tol);
    }
    double mx = 0, err = 0;
    for (int i = 0; i < c; i++) mx = fmax(mx, fabs(db[0][i])), err = fmax(err, fabs(db[0][i] - db[1][i]));
    T_ASSERT(err <= b->tol * mx, "bias3d_bwd c%d view%d: max error %.3g of %.3g", c, kind, err, mx);
    for (int q = 0; q < 2; q++) {
        for (int j = 0; j < 4; j++) free(res[q][j]);
        free(db[q]);
    }
    free(bias), free(x.host), free(y.host), free(dx.host), free(z.host);
}

/* Dense layers and the loss on plain row-major arrays. */
static inline void kc_dense(const kset_t *a, const kset_t *b, int n, int in, int out)
{
    float *x = kc_qrand((int64_t)n * in, 21), *w = kc_qrand((int64_t)in * out, 22);
    float *t = kc_qrand((int64_t)n * out, 23);
    const kset_t *s[2] = {a, b};
    float *y[2], *dx[2], *dw[2], *dl[2];
    double loss[2];
    for (int q = 0; q < 2; q++) {
        const kern_ops *o = s[q]->ops;
        void *c = s[q]->ctx, *wm;
        hview_t hx = kc_view(1, 1, 1, 1, n * in, KC_LAST, 1), hy = kc_view(1, 1, 1, 1, n * out, KC_LAST, 1);
        hview_t hdx = hx;
        memcpy(hx.host, x, (size_t)n * in * sizeof(float));
        void *bx, *by, *bt, *bdx, *bdl;
        kc_upload(s[q], &hx, &bx);
        kc_upload(s[q], &hy, &by);
        kc_upload(s[q], &hdx, &bdx);
        kc_upload(s[q], &hy, &bdl);
        memcpy(hy.host, t, (size_t)n * out * sizeof(float));
        kc_upload(s[q], &hy, &bt);
        void *wc = kc_weights(s[q], w, (int64_t)in * out, &wm);
        void *dwb = o->alloc(c, (size_t)in * out * sizeof(float));
        o->dense_fwd(c, bx, wc, n, in, out, by);
        loss[q] = o->mse_fwd(c, by, bt, (int64_t)n * out);
        o->mse_bwd(c, by, bt, (int64_t)n * out, bdl);
        o->dense_bwd_data(c, bdl, wc, n, in, out, bdx);
        o->dense_bwd_weights(c, bx, bdl, n, in, out, dwb);
        o->sync(c);
        y[q] = kc_download(s[q], &hy, by);
        dl[q] = kc_download(s[q], &hy, bdl);
        dx[q] = kc_download(s[q], &hx, bdx);
        dw[q] = malloc((size_t)in * out * sizeof(float));
        o->d2h(c, dw[q], dwb, (size_t)in * out * sizeof(float));
        void *all[] = {bx, by, bt, bdx, bdl, dwb};
        for (int j = 0; j < 6; j++) o->release(c, all[j]);
        if (wc != wm) o->release(c, wc);
        o->release(c, wm);
        free(hx.host), free(hy.host);
    }
    struct { const char *name; float **v; int64_t n; } outs[] = {
        {"dense_fwd", y, (int64_t)n * out},       {"mse_bwd", dl, (int64_t)n * out},
        {"dense_bwd_data", dx, (int64_t)n * in}, {"dense_bwd_weights", dw, (int64_t)in * out}};
    for (size_t j = 0; j < 4; j++) {
        double mx = 0, err = 0;
        for (int64_t i = 0; i < outs[j].n; i++)
            mx = fmax(mx, fabs(outs[j].v[0][i])), err = fmax(err, fabs(outs[j].v[0][i] - outs[j].v[1][i]));
        T_ASSERT(err <= b->tol * mx, "%s %dx%d->%d: max error %.3g of %.3g", outs[j].name, n, in, out,
                 err, mx);
        free(outs[j].v[0]), free(outs[j].v[1]);
    }
    T_ASSERT(fabs(loss[0] - loss[1]) <= b->tol * loss[0], "mse_fwd: %.9g vs %.9g", loss[0], loss[1]);
    free(x), free(w), free(t);
}

#endif
