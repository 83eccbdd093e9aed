#include "benchmarks/train/counted.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/train/kernels/flops.h"

void ktab_init(ktab_t *t, int cap)
{
    t->rows = XCALLOC((size_t)cap, sizeof *t->rows, "kernel table");
    t->n = 0;
    t->cap = cap;
    t->timer_ops = NULL;
    t->timer_ctx = NULL;
}

void ktab_free(ktab_t *t)
{
    if (t->rows && t->timer_ops && t->timer_ops->timer_discard)
        t->timer_ops->timer_discard(t->timer_ctx, t->rows, t->rows + t->cap);
    free(t->rows);
    t->rows = NULL;
    t->n = t->cap = 0;
    t->timer_ops = NULL;
    t->timer_ctx = NULL;
}

void ktab_reset(ktab_t *t)
{
    for (int i = 0; i < t->n; i++) {
        t->rows[i].calls = 0;
        t->rows[i].flops = 0;
        t->rows[i].time_s = 0;
    }
}

ktab_row *ktab_row_for(ktab_t *t, const char *kernel, const char *layer)
{
    /* search from the end: calls of one layer come together */
    for (int i = t->n; i-- > 0;)
        if (!strcmp(t->rows[i].layer, layer) && !strcmp(t->rows[i].kernel, kernel))
            return &t->rows[i];
    CHECK(t->n < t->cap, "kernel table full (%d rows)", t->cap);
    ktab_row *r = &t->rows[t->n++];
    memset(r, 0, sizeof *r);
    snprintf(r->kernel, sizeof r->kernel, "%s", kernel);
    snprintf(r->layer, sizeof r->layer, "%s", layer);
    return r;
}

int64_t ktab_total_flops(const ktab_t *t)
{
    int64_t s = 0;
    for (int i = 0; i < t->n; i++) s += t->rows[i].flops;
    return s;
}

double ktab_total_time(const ktab_t *t)
{
    double s = 0;
    for (int i = 0; i < t->n; i++) s += t->rows[i].time_s;
    return s;
}

void ktab_accumulate(ktab_t *dst, const ktab_t *src)
{
    for (int i = 0; i < src->n; i++) {
        ktab_row *r = ktab_row_for(dst, src->rows[i].kernel, src->rows[i].layer);
        r->calls += src->rows[i].calls;
        r->flops += src->rows[i].flops;
        r->time_s += src->rows[i].time_s;
    }
}

/* Every kernel call: count, then (unless dry) run it between two clock reads. */
#define COUNTED(KERNEL, LAYER, FLOPS, CALL)                                 \
    do {                                                                    \
        ktab_row *row_ = ktab_row_for(kc->tab, (KERNEL), (LAYER));          \
        row_->calls++;                                                      \
        row_->flops += (FLOPS);                                             \
        if (kc->dry) break;                                                 \
        if (!kc->timing) {                                                  \
            CALL;                                                           \
        } else if (kc->ops->timer_start) {                                  \
            kc->tab->timer_ops = kc->ops;                                   \
            kc->tab->timer_ctx = kc->ctx;                                   \
            void *tok_ = kc->ops->timer_start(kc->ctx);                     \
            CALL;                                                           \
            kc->ops->timer_stop(kc->ctx, tok_, &row_->time_s);              \
        } else {                                                            \
            double t0_ = timer_now_s();                                     \
            CALL;                                                           \
            row_->time_s += timer_now_s() - t0_;                            \
        }                                                                   \
    } while (0)

void kc_conv_fwd(kc_t *kc, const char *layer, const tview *x, const void *w, int k, const tview *y)
{
    COUNTED("conv_fwd", layer, flops_conv_fwd(x->n, x->c, y->c, k, y->h, y->w),
            kc->ops->conv_fwd(kc->ctx, x, w, k, y));
}

void kc_conv_bwd_data(kc_t *kc, const char *layer, const tview *dy, const void *w, int k,
                      const tview *dx)
{
    COUNTED("conv_bwd_data", layer, flops_conv_bwd_data(dy->n, dx->c, dy->c, k, dy->h, dy->w),
            kc->ops->conv_bwd_data(kc->ctx, dy, w, k, dx));
}

void kc_conv_bwd_weights(kc_t *kc, const char *layer, const tview *x, const tview *dy, int k,
                         void *dw)
{
    COUNTED("conv_bwd_weights", layer,
            flops_conv_bwd_weights(x->n, x->c, dy->c, k, dy->h, dy->w),
            kc->ops->conv_bwd_weights(kc->ctx, x, dy, k, dw));
}

void kc_tconv_fwd(kc_t *kc, const char *layer, const tview *x, const void *w, const tview *y)
{
    COUNTED("tconv_fwd", layer, flops_tconv_fwd(x->n, x->c, y->c, x->h, x->w),
            kc->ops->tconv_fwd(kc->ctx, x, w, y));
}

void kc_tconv_bwd_data(kc_t *kc, const char *layer, const tview *dy, const void *w,
                       const tview *dx)
{
    COUNTED("tconv_bwd_data", layer, flops_tconv_bwd_data(dx->n, dx->c, dy->c, dx->h, dx->w),
            kc->ops->tconv_bwd_data(kc->ctx, dy, w, dx));
}

void kc_tconv_bwd_weights(kc_t *kc, const char *layer, const tview *x, const tview *dy, void *dw)
{
    COUNTED("tconv_bwd_weights", layer, flops_tconv_bwd_weights(x->n, x->c, dy->c, x->h, x->w),
            kc->ops->tconv_bwd_weights(kc->ctx, x, dy, dw));
}

void kc_bias_fwd(kc_t *kc, const char *layer, const tview *y, const void *b)
{
    COUNTED("bias_fwd", layer, flops_bias_fwd(tview_elems(y)), kc->ops->bias_fwd(kc->ctx, y, b));
}

void kc_bias_bwd(kc_t *kc, const char *layer, const tview *dy, void *db)
{
    COUNTED("bias_bwd", layer, flops_bias_bwd(tview_elems(dy)), kc->ops->bias_bwd(kc->ctx, dy, db));
}

void kc_relu_fwd(kc_t *kc, const char *layer, const tview *x, const tview *y)
{
    COUNTED("relu_fwd", layer, flops_relu_fwd(tview_elems(x)), kc->ops->relu_fwd(kc->ctx, x, y));
}

void kc_relu_bwd(kc_t *kc, const char *layer, const tview *x, const tview *dy, const tview *dx)
{
    COUNTED("relu_bwd", layer, flops_relu_bwd(tview_elems(x)),
            kc->ops->relu_bwd(kc->ctx, x, dy, dx));
}

void kc_pool_fwd(kc_t *kc, const char *layer, const tview *x, const tview *y)
{
    COUNTED("pool_fwd", layer, flops_pool_fwd(tview_elems(y)), kc->ops->pool_fwd(kc->ctx, x, y));
}

void kc_pool_bwd(kc_t *kc, const char *layer, const tview *dy, const tview *dx)
{
    COUNTED("pool_bwd", layer, flops_pool_bwd(tview_elems(dy)),
            kc->ops->pool_bwd(kc->ctx, dy, dx));
}

double kc_l1_fwd(kc_t *kc, const char *layer, const tview *y, const tview *t)
{
    double loss = 0;
    COUNTED("l1_fwd", layer, flops_l1_fwd(tview_elems(y)), loss = kc->ops->l1_fwd(kc->ctx, y, t));
    return loss;
}

void kc_l1_bwd(kc_t *kc, const char *layer, const tview *y, const tview *t, const tview *dy)
{
    COUNTED("l1_bwd", layer, flops_l1_bwd(tview_elems(y)), kc->ops->l1_bwd(kc->ctx, y, t, dy));
}

void kc_adam(kc_t *kc, const char *layer, float *master, void *w_compute, const void *g, float *m,
             float *v, int64_t n, const adam_hyper *h)
{
    COUNTED("adam", layer, flops_adam(n),
            kc->ops->adam(kc->ctx, master, w_compute, g, m, v, n, h));
}

void kc_lion(kc_t *kc, const char *layer, float *master, void *w_compute, const void *g, float *m,
             int64_t n, const lion_hyper *h)
{
    COUNTED("lion", layer, flops_lion(n), kc->ops->lion(kc->ctx, master, w_compute, g, m, n, h));
}

void kc_lion_sign(kc_t *kc, const char *layer, float *m, const void *g, uint64_t *bits, int64_t n,
                  const lion_hyper *h)
{
    COUNTED("lion_sign", layer, flops_lion_sign(n), kc->ops->lion_sign(kc->ctx, m, g, bits, n, h));
}

void kc_lion_apply(kc_t *kc, const char *layer, float *master, void *w_compute,
                   const uint64_t *words, int p, int nranks, int64_t n, const lion_hyper *h)
{
    COUNTED("lion_apply", layer, flops_lion_apply(n, p),
            kc->ops->lion_apply(kc->ctx, master, w_compute, words, p, nranks, n, h));
}

void kc_copy(kc_t *kc, const char *layer, const tview *src, const tview *dst)
{
    COUNTED("copy", layer, 0, kc->ops->copy(kc->ctx, src, dst));
}

void kc_add(kc_t *kc, const char *layer, const tview *src, const tview *dst)
{
    COUNTED("add", layer, flops_add(tview_elems(src)), kc->ops->add(kc->ctx, src, dst));
}

void kc_zero(kc_t *kc, const char *layer, const tview *dst)
{
    COUNTED("zero", layer, 0, kc->ops->zero(kc->ctx, dst));
}

void kc_grad_check(kc_t *kc, const char *layer, const float *grads, int64_t n)
{
    COUNTED("grad_check", layer, 0, kc->ops->grad_check(kc->ctx, grads, n));
}

/* ---- 3D kernels --------------------------------------------------------- */

void kc_conv3d_fwd(kc_t *kc, const char *layer, const t3view *x, const void *w, int k,
                   const t3view *y)
{
    COUNTED("conv3d_fwd", layer, flops_conv3d(t3view_voxels(y), x->c, y->c, k),
            kc->ops->conv3d_fwd(kc->ctx, x, w, k, y));
}

void kc_conv3d_bwd_data(kc_t *kc, const char *layer, const t3view *dy, const void *w, int k,
                        const t3view *dx)
{
    COUNTED("conv3d_bwd_data", layer, flops_conv3d(t3view_voxels(dx), dx->c, dy->c, k),
            kc->ops->conv3d_bwd_data(kc->ctx, dy, w, k, dx));
}

void kc_conv3d_bwd_weights(kc_t *kc, const char *layer, const t3view *x, const t3view *dy, int k,
                           void *dw)
{
    COUNTED("conv3d_bwd_weights", layer, flops_conv3d(t3view_voxels(dy), x->c, dy->c, k),
            kc->ops->conv3d_bwd_weights(kc->ctx, x, dy, k, dw));
}

void kc_pool3d_fwd(kc_t *kc, const char *layer, const t3view *x, const t3view *y)
{
    COUNTED("pool3d_fwd", layer, flops_pool3d_fwd(t3view_elems(y)),
            kc->ops->pool3d_fwd(kc->ctx, x, y));
}

void kc_pool3d_bwd(kc_t *kc, const char *layer, const t3view *x, const t3view *dy,
                   const t3view *dx)
{
    COUNTED("pool3d_bwd", layer, flops_pool3d_bwd(t3view_elems(dy)),
            kc->ops->pool3d_bwd(kc->ctx, x, dy, dx));
}

void kc_lrelu_fwd(kc_t *kc, const char *layer, const t3view *x, const t3view *y, float slope)
{
    COUNTED("lrelu_fwd", layer, flops_lrelu_fwd(t3view_elems(x)),
            kc->ops->lrelu_fwd(kc->ctx, x, y, slope));
}

void kc_lrelu_bwd(kc_t *kc, const char *layer, const t3view *y, const t3view *dy,
                  const t3view *dx, float slope)
{
    COUNTED("lrelu_bwd", layer, flops_lrelu_bwd(t3view_elems(y)),
            kc->ops->lrelu_bwd(kc->ctx, y, dy, dx, slope));
}

void kc_bias3d_fwd(kc_t *kc, const char *layer, const t3view *y, const void *b)
{
    COUNTED("bias3d_fwd", layer, flops_bias3d_fwd(t3view_elems(y)),
            kc->ops->bias3d_fwd(kc->ctx, y, b));
}

void kc_bias3d_bwd(kc_t *kc, const char *layer, const t3view *dy, void *db)
{
    COUNTED("bias3d_bwd", layer, flops_bias3d_bwd(t3view_elems(dy)),
            kc->ops->bias3d_bwd(kc->ctx, dy, db));
}

void kc_dense_fwd(kc_t *kc, const char *layer, const void *x, const void *w, int n, int in,
                  int out, void *y)
{
    COUNTED("dense_fwd", layer, flops_dense(n, in, out),
            kc->ops->dense_fwd(kc->ctx, x, w, n, in, out, y));
}

void kc_dense_bwd_data(kc_t *kc, const char *layer, const void *dy, const void *w, int n, int in,
                       int out, void *dx)
{
    COUNTED("dense_bwd_data", layer, flops_dense(n, in, out),
            kc->ops->dense_bwd_data(kc->ctx, dy, w, n, in, out, dx));
}

void kc_dense_bwd_weights(kc_t *kc, const char *layer, const void *x, const void *dy, int n,
                          int in, int out, void *dw)
{
    COUNTED("dense_bwd_weights", layer, flops_dense(n, in, out),
            kc->ops->dense_bwd_weights(kc->ctx, x, dy, n, in, out, dw));
}

void kc_lc_fwd(kc_t *kc, const char *layer, const void *x, const void *w, int npos, int n, int in,
               int out, void *y)
{
    COUNTED("lc_fwd", layer, flops_lc(npos, n, in, out),
            kc->ops->lc_fwd(kc->ctx, x, w, npos, n, in, out, y));
}

void kc_lc_bwd_data(kc_t *kc, const char *layer, const void *dy, const void *w, int npos, int n,
                    int in, int out, void *dx)
{
    COUNTED("lc_bwd_data", layer, flops_lc(npos, n, in, out),
            kc->ops->lc_bwd_data(kc->ctx, dy, w, npos, n, in, out, dx));
}

void kc_lc_bwd_weights(kc_t *kc, const char *layer, const void *x, const void *dy, int npos, int n,
                       int in, int out, void *dw)
{
    COUNTED("lc_bwd_weights", layer, flops_lc(npos, n, in, out),
            kc->ops->lc_bwd_weights(kc->ctx, x, dy, npos, n, in, out, dw));
}

double kc_mse_fwd(kc_t *kc, const char *layer, const void *y, const void *t, int64_t count)
{
    double loss = 0;
    COUNTED("mse_fwd", layer, flops_mse_fwd(count), loss = kc->ops->mse_fwd(kc->ctx, y, t, count));
    return loss;
}

void kc_mse_bwd(kc_t *kc, const char *layer, const void *y, const void *t, int64_t count,
                void *dy)
{
    COUNTED("mse_bwd", layer, flops_mse_bwd(count), kc->ops->mse_bwd(kc->ctx, y, t, count, dy));
}

void kc_copy3d(kc_t *kc, const char *kernel, const char *layer, const t3view *src,
               const t3view *dst)
{
    COUNTED(kernel, layer, 0, kc->ops->copy3d(kc->ctx, src, dst));
}

/* ---- segmentation kernels ------------------------------------------------ */

static void has_kernel(const kc_t *kc, const void *fn, const char *kernel)
{
    CHECK(fn, "kernel set '%s' has no %s: this set lacks the segmentation kernels (dilated "
              "convolution, batch norm; docs/climate.md)",
          kc->ops->name, kernel);
}

static void dconv_geometry(const tview *x, const tview *y, const kern_dconv *g, const char *kernel)
{
    CHECK(g->k > 0 && g->stride > 0 && g->dil > 0 && g->pad >= 0, "%s: bad geometry k %d stride %d "
          "pad %d dil %d", kernel, g->k, g->stride, g->pad, g->dil);
    CHECK(x->n == y->n && y->h == kern_dconv_out(x->h, g) && y->w == kern_dconv_out(x->w, g),
          "%s: %dx%d input gives %dx%d output with k %d stride %d pad %d dil %d, not %dx%d",
          kernel, x->h, x->w, kern_dconv_out(x->h, g), kern_dconv_out(x->w, g), g->k, g->stride,
          g->pad, g->dil, y->h, y->w);
    int gr = kern_dconv_groups(g);
    CHECK(x->c % gr == 0 && y->c % gr == 0, "%s: %d and %d channels do not split into %d groups",
          kernel, x->c, y->c, gr);
}

void kc_dconv_fwd(kc_t *kc, const char *layer, const tview *x, const void *w, const kern_dconv *g,
                  const tview *y)
{
    has_kernel(kc, (const void *)kc->ops->dconv_fwd, "dconv_fwd");
    dconv_geometry(x, y, g, "dconv_fwd");
    COUNTED("dconv_fwd", layer,
            flops_dconv(y->n, x->c / kern_dconv_groups(g), y->c, g->k, y->h, y->w),
            kc->ops->dconv_fwd(kc->ctx, x, w, g, y));
}

void kc_dconv_bwd_data(kc_t *kc, const char *layer, const tview *dy, const void *w,
                       const kern_dconv *g, const tview *dx)
{
    has_kernel(kc, (const void *)kc->ops->dconv_bwd_data, "dconv_bwd_data");
    dconv_geometry(dx, dy, g, "dconv_bwd_data");
    COUNTED("dconv_bwd_data", layer,
            flops_dconv(dy->n, dx->c / kern_dconv_groups(g), dy->c, g->k, dy->h, dy->w),
            kc->ops->dconv_bwd_data(kc->ctx, dy, w, g, dx));
}

void kc_dconv_bwd_weights(kc_t *kc, const char *layer, const tview *x, const tview *dy,
                          const kern_dconv *g, void *dw)
{
    has_kernel(kc, (const void *)kc->ops->dconv_bwd_weights, "dconv_bwd_weights");
    dconv_geometry(x, dy, g, "dconv_bwd_weights");
    COUNTED("dconv_bwd_weights", layer,
            flops_dconv(dy->n, x->c / kern_dconv_groups(g), dy->c, g->k, dy->h, dy->w),
            kc->ops->dconv_bwd_weights(kc->ctx, x, dy, g, dw));
}

static void bn_layout(const tview *a, const tview *b, const char *kernel)
{
    CHECK(a->n == b->n && a->c == b->c && a->h == b->h && a->w == b->w &&
              a->sstride == b->sstride,
          "%s: the two views differ in shape or layout (batch norm keeps one layout)", kernel);
}

void kc_bn_fwd(kc_t *kc, const char *layer, const tview *x, const void *gamma, const void *beta,
               float eps, float *mean, float *var, const tview *y)
{
    has_kernel(kc, (const void *)kc->ops->bn_fwd, "bn_fwd");
    bn_layout(x, y, "bn_fwd");
    COUNTED("bn_fwd", layer, flops_bn_fwd(tview_elems(x), x->c),
            kc->ops->bn_fwd(kc->ctx, x, gamma, beta, eps, mean, var, y));
}

void kc_bn_bwd(kc_t *kc, const char *layer, const tview *x, const tview *dy, const void *gamma,
               const float *mean, const float *var, float eps, const tview *dx, void *dgamma,
               void *dbeta)
{
    has_kernel(kc, (const void *)kc->ops->bn_bwd, "bn_bwd");
    bn_layout(x, dy, "bn_bwd");
    bn_layout(dy, dx, "bn_bwd");
    COUNTED("bn_bwd", layer, flops_bn_bwd(tview_elems(x), x->c),
            kc->ops->bn_bwd(kc->ctx, x, dy, gamma, mean, var, eps, dx, dgamma, dbeta));
}

double kc_wce_fwd(kc_t *kc, const char *layer, const tview *z, const int32_t *label,
                  const float *class_w)
{
    has_kernel(kc, (const void *)kc->ops->wce_fwd, "wce_fwd");
    double loss = 0;
    COUNTED("wce_fwd", layer, flops_wce_fwd((int64_t)z->n * z->h * z->w, z->c),
            loss = kc->ops->wce_fwd(kc->ctx, z, label, class_w));
    return loss;
}

void kc_wce_bwd(kc_t *kc, const char *layer, const tview *z, const int32_t *label,
                const float *class_w, const tview *dz)
{
    has_kernel(kc, (const void *)kc->ops->wce_bwd, "wce_bwd");
    COUNTED("wce_bwd", layer, flops_wce_bwd((int64_t)z->n * z->h * z->w, z->c),
            kc->ops->wce_bwd(kc->ctx, z, label, class_w, dz));
}

void kc_gpool(kc_t *kc, const char *kernel, const char *layer, const tview *x, const tview *y,
              float scale)
{
    has_kernel(kc, (const void *)kc->ops->gpool_fwd, "gpool_fwd");
    CHECK(y->h == 1 && y->w == 1 && y->n == x->n && y->c == x->c, "%s: output %dx%dx%dx%d is not "
          "one value per sample and channel of %dx%d", kernel, y->n, y->c, y->h, y->w, x->n, x->c);
    COUNTED(kernel, layer, flops_gpool((int64_t)x->n * x->c, (int64_t)x->h * x->w),
            kc->ops->gpool_fwd(kc->ctx, x, y, scale));
}

void kc_bcast(kc_t *kc, const char *kernel, const char *layer, const tview *x, const tview *y,
              float scale)
{
    has_kernel(kc, (const void *)kc->ops->bcast_fwd, "bcast_fwd");
    CHECK(x->h == 1 && x->w == 1 && y->n == x->n && y->c == x->c, "%s: input %dx%dx%dx%d is not "
          "one value per sample and channel of %dx%d", kernel, x->n, x->c, x->h, x->w, y->n, y->c);
    COUNTED(kernel, layer, flops_bcast(tview_elems(y)), kc->ops->bcast_fwd(kc->ctx, x, y, scale));
}
