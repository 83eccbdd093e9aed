/* The segmentation kernels of the fast CPU set (fast/kern_fast_seg.c,
 * oneDNN) against the reference set (ref/kern_ref_seg.c): dilated
 * convolution forward, data and weight gradients; batch norm forward (y,
 * mean, variance) and backward (dx, dgamma, dbeta); weighted cross-entropy
 * (loss: relative error; dz), image-level pooling and broadcast.
 *
 * Error norm, as test_train_fast.c: for each output, max |fast - ref| /
 * max |ref| over the view's elements must be below TOL = 1e-4 (fp32 against
 * a reference accumulating in double).  Each view is a window of channels
 * of a larger buffer with a gap between samples; elements outside the
 * window must be left bit-for-bit as they were.  Shapes cover DeepLabv3+'s
 * geometries: stride 2 with padding 1, atrous rates 2, 4, 6 with padding =
 * rate, 1x1, channel counts that are not multiples of 8, depthwise
 * (groups = channels, Xception's separable convolutions) and grouped; on 1
 * and 2 threads. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/rng.h"
#include "benchmarks/train/kernels/kern.h"
#include "tests/unit/tap.h"

#define TOL 1e-4

static rng_t R;
static const kern_ops *F, *Rf;
static void *ctx1, *ctx2;

typedef struct {
    float *buf;
    size_t len;
    tview v;
} tb;

static tb pool_[64];
static int npool;

static tb *mk(int n, int c, int h, int w, int pre, int post, int gap)
{
    if (npool == 64)
        abort();
    tb *t = &pool_[npool++];
    int64_t ss = (int64_t)(pre + c + post) * h * w + gap;
    t->len = (size_t)(n * ss);
    t->buf = malloc(t->len * sizeof(float) + 1);
    if (!t->buf)
        abort();
    for (size_t i = 0; i < t->len; i++)
        t->buf[i] = (float)(2 * rng_uniform(&R) - 1);
    t->v = (tview){t->buf + (size_t)pre * h * w, n, c, h, w, ss};
    return t;
}

static tb *dup(const tb *s)
{
    if (npool == 64)
        abort();
    tb *d = &pool_[npool++];
    *d = *s;
    d->buf = malloc(s->len * sizeof(float) + 1);
    if (!d->buf)
        abort();
    memcpy(d->buf, s->buf, s->len * sizeof(float));
    d->v.p = d->buf + ((float *)s->v.p - s->buf);
    return d;
}

static void free_all(void)
{
    while (npool)
        free(pool_[--npool].buf);
}

static int inside(const tview *v, const float *buf, size_t i)
{
    int64_t off = (const float *)v->p - buf, rel = (int64_t)i - off;
    if (rel < 0)
        return 0;
    int64_t s = rel / v->sstride, in = rel % v->sstride;
    return s < v->n && in < (int64_t)v->c * v->h * v->w;
}

/* The normwise error of the window; outside it both must equal `orig`. */
static double werr(const tb *f, const tb *r, const tb *orig, const char *what)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < f->len; i++) {
        if (inside(&f->v, f->buf, i)) {
            num = fmax(num, fabs((double)f->buf[i] - r->buf[i]));
            den = fmax(den, fabs((double)r->buf[i]));
        } else {
            T_ASSERT(!memcmp(&f->buf[i], &orig->buf[i], sizeof(float)),
                     "%s: element %zu outside the window changed", what, i);
        }
    }
    return den > 0 ? num / den : num;
}

static double verr(const float *f, const float *r, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        num = fmax(num, fabs((double)f[i] - r[i]));
        den = fmax(den, fabs((double)r[i]));
    }
    return den > 0 ? num / den : num;
}

static float *vec(size_t n)
{
    if (npool == 64)
        abort();
    tb *t = &pool_[npool++];
    t->len = n;
    t->buf = malloc(n * sizeof(float) + 1);
    if (!t->buf)
        abort();
    for (size_t i = 0; i < n; i++)
        t->buf[i] = (float)(2 * rng_uniform(&R) - 1);
    return t->buf;
}

static double worst_conv, worst_bn;

/* n ci co k stride pad dil H W groups */
static const int shapes[][10] = {
    {2, 5, 7, 3, 1, 1, 1, 9, 10, 1},    {1, 3, 9, 3, 2, 1, 1, 13, 16, 1},
    {2, 6, 5, 3, 1, 2, 2, 11, 9, 1},    {1, 4, 6, 3, 1, 4, 4, 12, 13, 1},
    {2, 3, 4, 3, 1, 6, 6, 10, 14, 1},   {3, 9, 3, 1, 1, 0, 1, 7, 5, 1},
    {1, 16, 8, 1, 2, 0, 1, 8, 9, 1},    {2, 2, 3, 7, 2, 3, 1, 15, 12, 1},
    {1, 17, 19, 3, 1, 1, 1, 6, 6, 1},   {2, 13, 13, 3, 1, 2, 2, 9, 11, 13},
    {1, 16, 16, 3, 2, 1, 1, 10, 9, 16}, {2, 6, 9, 3, 1, 1, 1, 7, 8, 3}};

static void conv_case(void *ctx, const int *s)
{
    kern_dconv g = {s[3], s[4], s[5], s[6], s[9]};
    int n = s[0], ci = s[1], co = s[2], H = s[7], W = s[8];
    int ho = kern_dconv_out(H, &g), wo = kern_dconv_out(W, &g);
    tb *x = mk(n, ci, H, W, 1, 2, 3), *dy = mk(n, co, ho, wo, 2, 0, 5);
    tb *y0 = mk(n, co, ho, wo, 0, 1, 7), *dx0 = mk(n, ci, H, W, 2, 1, 1);
    tb *yf = dup(y0), *yr = dup(y0), *dxf = dup(dx0), *dxr = dup(dx0);
    size_t nw = (size_t)co * (ci / kern_dconv_groups(&g)) * g.k * g.k;
    float *w = vec(nw), *dwf = vec(nw), *dwr = vec(nw);
    F->dconv_fwd(ctx, &x->v, w, &g, &yf->v);
    Rf->dconv_fwd(NULL, &x->v, w, &g, &yr->v);
    F->dconv_bwd_data(ctx, &dy->v, w, &g, &dxf->v);
    Rf->dconv_bwd_data(NULL, &dy->v, w, &g, &dxr->v);
    F->dconv_bwd_weights(ctx, &x->v, &dy->v, &g, dwf);
    Rf->dconv_bwd_weights(NULL, &x->v, &dy->v, &g, dwr);
    double e[3] = {werr(yf, yr, y0, "dconv_fwd"), werr(dxf, dxr, dx0, "dconv_bwd_data"),
                   verr(dwf, dwr, nw)};
    const char *name[3] = {"fwd", "bwd_data", "bwd_weights"};
    for (int i = 0; i < 3; i++) {
        worst_conv = fmax(worst_conv, e[i]);
        T_ASSERT(e[i] < TOL, "dconv_%s n%d ci%d co%d k%d s%d p%d d%d g%d %dx%d: error %.3g",
                 name[i], n, ci, co, g.k, g.stride, g.pad, g.dil, g.groups, H, W, e[i]);
    }
    free_all();
}

static void test_dconv(void)
{
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        conv_case(ctx1, shapes[i]);
        conv_case(ctx2, shapes[i]);
    }
    /* again on the cached primitives */
    conv_case(ctx1, shapes[1]);
}

static void bn_case(void *ctx, int n, int c, int h, int w)
{
    float eps = 1e-5f;
    tb *x = mk(n, c, h, w, 1, 1, 4), *dy = mk(n, c, h, w, 1, 1, 4);
    /* shifted and scaled: statistics away from 0 and 1 */
    for (size_t i = 0; i < x->len; i++)
        x->buf[i] = 3.0f + 2.5f * x->buf[i];
    tb *y0 = mk(n, c, h, w, 1, 1, 4), *dx0 = mk(n, c, h, w, 1, 1, 4);
    tb *yf = dup(y0), *yr = dup(y0), *dxf = dup(dx0), *dxr = dup(dx0);
    float *gam = vec((size_t)c), *bet = vec((size_t)c), *mf = vec((size_t)c), *mr = vec((size_t)c),
          *vf = vec((size_t)c), *vr = vec((size_t)c), *dgf = vec((size_t)c), *dgr = vec((size_t)c),
          *dbf = vec((size_t)c), *dbr = vec((size_t)c);
    F->bn_fwd(ctx, &x->v, gam, bet, eps, mf, vf, &yf->v);
    Rf->bn_fwd(NULL, &x->v, gam, bet, eps, mr, vr, &yr->v);
    /* the backward of each set on its own statistics */
    F->bn_bwd(ctx, &x->v, &dy->v, gam, mf, vf, eps, &dxf->v, dgf, dbf);
    Rf->bn_bwd(NULL, &x->v, &dy->v, gam, mr, vr, eps, &dxr->v, dgr, dbr);
    double e[7] = {werr(yf, yr, y0, "bn_fwd"),
                   verr(mf, mr, (size_t)c),
                   verr(vf, vr, (size_t)c),
                   werr(dxf, dxr, dx0, "bn_bwd"),
                   verr(dgf, dgr, (size_t)c),
                   verr(dbf, dbr, (size_t)c),
                   0};
    const char *name[6] = {"y", "mean", "var", "dx", "dgamma", "dbeta"};
    for (int i = 0; i < 6; i++) {
        worst_bn = fmax(worst_bn, e[i]);
        T_ASSERT(e[i] < TOL, "bn %s n%d c%d %dx%d: error %.3g", name[i], n, c, h, w, e[i]);
    }
    free_all();
}

static void test_bn(void)
{
    int shp[][4] = {{2, 5, 7, 9}, {1, 16, 8, 8}, {4, 3, 1, 1}, {3, 21, 5, 6}};
    for (size_t i = 0; i < sizeof shp / sizeof *shp; i++) {
        bn_case(ctx1, shp[i][0], shp[i][1], shp[i][2], shp[i][3]);
        bn_case(ctx2, shp[i][0], shp[i][1], shp[i][2], shp[i][3]);
    }
}

static double worst_ew;

static void test_wce_pool(void)
{
    int shp[][4] = {{2, 3, 9, 7}, {1, 3, 16, 16}, {3, 5, 4, 6}};
    for (size_t i = 0; i < sizeof shp / sizeof *shp; i++) {
        int n = shp[i][0], C = shp[i][1], h = shp[i][2], w = shp[i][3];
        size_t pixels = (size_t)n * h * w;
        tb *z = mk(n, C, h, w, 1, 0, 3), *dz0 = mk(n, C, h, w, 0, 2, 1);
        for (size_t j = 0; j < z->len; j++)
            z->buf[j] *= 4; /* confident and wrong pixels */
        tb *dzf = dup(dz0), *dzr = dup(dz0);
        int32_t *l = (int32_t *)vec(pixels);
        for (size_t j = 0; j < pixels; j++)
            l[j] = (int32_t)(rng_next(&R) % (uint64_t)C);
        float *cw = vec((size_t)C);
        for (int c = 0; c < C; c++)
            cw[c] = 0.1f + 2.0f * (float)c;
        double lf = F->wce_fwd(ctx1, &z->v, l, cw), lr = Rf->wce_fwd(NULL, &z->v, l, cw);
        F->wce_bwd(ctx1, &z->v, l, cw, &dzf->v);
        Rf->wce_bwd(NULL, &z->v, l, cw, &dzr->v);
        double e[4] = {fabs(lf - lr) / fabs(lr), werr(dzf, dzr, dz0, "wce_bwd"), 0, 0};
        /* pooling and broadcast */
        tb *v0 = mk(n, C, 1, 1, 0, 1, 2), *vf = dup(v0), *vr = dup(v0);
        tb *b0 = mk(n, C, h, w, 1, 1, 1), *bf = dup(b0), *br = dup(b0);
        F->gpool_fwd(ctx1, &z->v, &vf->v, 1.0f / (float)(h * w));
        Rf->gpool_fwd(NULL, &z->v, &vr->v, 1.0f / (float)(h * w));
        F->bcast_fwd(ctx1, &v0->v, &bf->v, 0.5f);
        Rf->bcast_fwd(NULL, &v0->v, &br->v, 0.5f);
        e[2] = werr(vf, vr, v0, "gpool_fwd");
        e[3] = werr(bf, br, b0, "bcast_fwd");
        const char *name[4] = {"wce_fwd", "wce_bwd", "gpool", "bcast"};
        for (int k = 0; k < 4; k++) {
            worst_ew = fmax(worst_ew, e[k]);
            T_ASSERT(e[k] < TOL, "%s n%d C%d %dx%d: error %.3g", name[k], n, C, h, w, e[k]);
        }
        free_all();
    }
}

int main(void)
{
    R = rng_stream(2026, 33, 0, 0);
    F = kern_fast_ops();
    Rf = kern_ref_ops();
    ctx1 = kern_fast_create(1);
    ctx2 = kern_fast_create(2);
    T_RUN(test_dconv);
    T_RUN(test_bn);
    T_RUN(test_wce_pool);
    printf("# worst normwise error: dconv %.3g, bn %.3g, loss/pool %.3g (tolerance %.0e)\n",
           worst_conv, worst_bn, worst_ew, TOL);
    kern_fast_release(ctx1);
    kern_fast_release(ctx2);
    T_DONE();
}
