/* counted: the segmentation kernels (kern.h; formulas in flops.h), split from
 * counted.c: each stops with a clear error when the kernel set lacks the
 * kernel or when the views do not match the geometry */
#include "benchmarks/train/counted.h"

#include "benchmarks/common/check.h"
#include "benchmarks/train/counted_impl.h"
#include "benchmarks/train/kernels/flops.h"

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
