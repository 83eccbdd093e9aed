/* counted: the 3D kernels (kern.h; formulas in flops.h), split from counted.c */
#include "benchmarks/train/counted.h"

#include "benchmarks/common/check.h"
#include "benchmarks/train/counted_impl.h"
#include "benchmarks/train/kernels/flops.h"

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
    if (kc->observe) {
        /* the observer (counted.h) takes 2D views: the box's planes as rows */
        tview a = {src->p, src->n, src->c, src->d * src->h, src->w, 0};
        tview b = {dst->p, dst->n, dst->c, dst->d * dst->h, dst->w, 0};
        kc->observe(kc->observe_arg, "copy3d", &a, &b, 0);
    }
    COUNTED(kernel, layer, 0, kc->ops->copy3d(kc->ctx, src, dst));
}
