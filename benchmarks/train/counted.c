#include "benchmarks/train/counted.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/train/counted_impl.h"
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

/* The 2D kernels; the 3D ones are in counted_3d.c, the segmentation ones in
 * counted_seg.c (counted_impl.h: the macro all three share). */

void kc_conv_fwd(kc_t *kc, const char *layer, const tview *x, const void *w, int k, const tview *y)
{
    if (kc->observe) kc->observe(kc->observe_arg, "conv_fwd", x, y, k);
    COUNTED("conv_fwd", layer, flops_conv_fwd(x->n, x->c, y->c, k, y->h, y->w),
            kc->ops->conv_fwd(kc->ctx, x, w, k, y));
}

void kc_conv_bwd_data(kc_t *kc, const char *layer, const tview *dy, const void *w, int k,
                      const tview *dx)
{
    if (kc->observe) kc->observe(kc->observe_arg, "conv_bwd_data", dx, dy, k);
    COUNTED("conv_bwd_data", layer, flops_conv_bwd_data(dy->n, dx->c, dy->c, k, dy->h, dy->w),
            kc->ops->conv_bwd_data(kc->ctx, dy, w, k, dx));
}

void kc_conv_bwd_weights(kc_t *kc, const char *layer, const tview *x, const tview *dy, int k,
                         void *dw)
{
    if (kc->observe) kc->observe(kc->observe_arg, "conv_bwd_weights", x, dy, k);
    COUNTED("conv_bwd_weights", layer,
            flops_conv_bwd_weights(x->n, x->c, dy->c, k, dy->h, dy->w),
            kc->ops->conv_bwd_weights(kc->ctx, x, dy, k, dw));
}

void kc_tconv_fwd(kc_t *kc, const char *layer, const tview *x, const void *w, const tview *y)
{
    if (kc->observe) kc->observe(kc->observe_arg, "tconv_fwd", x, y, 1);
    COUNTED("tconv_fwd", layer, flops_tconv_fwd(x->n, x->c, y->c, x->h, x->w),
            kc->ops->tconv_fwd(kc->ctx, x, w, y));
}

void kc_tconv_bwd_data(kc_t *kc, const char *layer, const tview *dy, const void *w,
                       const tview *dx)
{
    if (kc->observe) kc->observe(kc->observe_arg, "tconv_bwd_data", dx, dy, 1);
    COUNTED("tconv_bwd_data", layer, flops_tconv_bwd_data(dx->n, dx->c, dy->c, dx->h, dx->w),
            kc->ops->tconv_bwd_data(kc->ctx, dy, w, dx));
}

void kc_tconv_bwd_weights(kc_t *kc, const char *layer, const tview *x, const tview *dy, void *dw)
{
    if (kc->observe) kc->observe(kc->observe_arg, "tconv_bwd_weights", x, dy, 1);
    COUNTED("tconv_bwd_weights", layer, flops_tconv_bwd_weights(x->n, x->c, dy->c, x->h, x->w),
            kc->ops->tconv_bwd_weights(kc->ctx, x, dy, dw));
}

void kc_bias_fwd(kc_t *kc, const char *layer, const tview *y, const void *b)
{
    if (kc->observe) kc->observe(kc->observe_arg, "bias_fwd", y, y, 0);
    COUNTED("bias_fwd", layer, flops_bias_fwd(tview_elems(y)), kc->ops->bias_fwd(kc->ctx, y, b));
}

void kc_bias_bwd(kc_t *kc, const char *layer, const tview *dy, void *db)
{
    if (kc->observe) kc->observe(kc->observe_arg, "bias_bwd", dy, dy, 0);
    COUNTED("bias_bwd", layer, flops_bias_bwd(tview_elems(dy)), kc->ops->bias_bwd(kc->ctx, dy, db));
}

void kc_relu_fwd(kc_t *kc, const char *layer, const tview *x, const tview *y)
{
    if (kc->observe) kc->observe(kc->observe_arg, "relu_fwd", x, y, 0);
    COUNTED("relu_fwd", layer, flops_relu_fwd(tview_elems(x)), kc->ops->relu_fwd(kc->ctx, x, y));
}

void kc_relu_bwd(kc_t *kc, const char *layer, const tview *x, const tview *dy, const tview *dx)
{
    if (kc->observe) kc->observe(kc->observe_arg, "relu_bwd", x, dy, 0);
    COUNTED("relu_bwd", layer, flops_relu_bwd(tview_elems(x)),
            kc->ops->relu_bwd(kc->ctx, x, dy, dx));
}

void kc_pool_fwd(kc_t *kc, const char *layer, const tview *x, const tview *y)
{
    if (kc->observe) kc->observe(kc->observe_arg, "pool_fwd", x, y, 2);
    COUNTED("pool_fwd", layer, flops_pool_fwd(tview_elems(y)), kc->ops->pool_fwd(kc->ctx, x, y));
}

void kc_pool_bwd(kc_t *kc, const char *layer, const tview *dy, const tview *dx)
{
    if (kc->observe) kc->observe(kc->observe_arg, "pool_bwd", dx, dy, 2);
    COUNTED("pool_bwd", layer, flops_pool_bwd(tview_elems(dy)),
            kc->ops->pool_bwd(kc->ctx, dy, dx));
}

double kc_l1_fwd(kc_t *kc, const char *layer, const tview *y, const tview *t)
{
    if (kc->observe) kc->observe(kc->observe_arg, "l1_fwd", y, t, 0);
    double loss = 0;
    COUNTED("l1_fwd", layer, flops_l1_fwd(tview_elems(y)), loss = kc->ops->l1_fwd(kc->ctx, y, t));
    return loss;
}

void kc_l1_bwd(kc_t *kc, const char *layer, const tview *y, const tview *t, const tview *dy)
{
    if (kc->observe) kc->observe(kc->observe_arg, "l1_bwd", y, dy, 0);
    COUNTED("l1_bwd", layer, flops_l1_bwd(tview_elems(y)), kc->ops->l1_bwd(kc->ctx, y, t, dy));
}

void kc_adam(kc_t *kc, const char *layer, float *master, void *w_compute, const void *g, float *m,
             float *v, int64_t n, const adam_hyper *h)
{
    if (kc->observe && n <= INT32_MAX) {
        /* the observer (counted.h) takes views: n parameters as one row */
        tview t = {master, 1, 1, 1, (int)n, n};
        kc->observe(kc->observe_arg, "adam", &t, &t, 0);
    }
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
    if (kc->observe) kc->observe(kc->observe_arg, "copy", src, dst, 0);
    COUNTED("copy", layer, 0, kc->ops->copy(kc->ctx, src, dst));
}

void kc_add(kc_t *kc, const char *layer, const tview *src, const tview *dst)
{
    if (kc->observe) kc->observe(kc->observe_arg, "add", src, dst, 0);
    COUNTED("add", layer, flops_add(tview_elems(src)), kc->ops->add(kc->ctx, src, dst));
}

void kc_zero(kc_t *kc, const char *layer, const tview *dst)
{
    if (kc->observe) kc->observe(kc->observe_arg, "zero", dst, dst, 0);
    COUNTED("zero", layer, 0, kc->ops->zero(kc->ctx, dst));
}

void kc_grad_check(kc_t *kc, const char *layer, const float *grads, int64_t n)
{
    COUNTED("grad_check", layer, 0, kc->ops->grad_check(kc->ctx, grads, n));
}
