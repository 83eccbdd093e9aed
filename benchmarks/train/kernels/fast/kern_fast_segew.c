/* The element-wise segmentation kernels of the fast CPU set (kern.h:
 * wce_fwd/bwd, gpool_fwd, bcast_fwd): loops over the views in float with
 * double sums, as kern_fast.c's element-wise kernels.  Small next to the
 * convolutions (the loss touches 3 maps, the pooling one value per
 * channel), so plain loops; the sums are in double like the reference's.
 * Filled into the table by kern_fast_fill_seg (kern_fast_seg.c). */
#include <math.h>
#include <stdint.h>

#include "benchmarks/train/kernels/fast/kern_fast_seg.h"
#include "benchmarks/train/kernels/kern.h"

static float *px(const tview *t, int n, int c)
{
    return (float *)t->p + (int64_t)n * t->sstride + (int64_t)c * t->h * t->w;
}

/* max over classes and sum of exp(z - max) of pixel i of sample n */
static float parts(const tview *z, int n, size_t i, float *max)
{
    float m = px(z, n, 0)[i], s = 0;
    for (int c = 1; c < z->c; c++)
        m = fmaxf(m, px(z, n, c)[i]);
    for (int c = 0; c < z->c; c++)
        s += expf(px(z, n, c)[i] - m);
    *max = m;
    return s;
}

static double fast_wce_fwd(void *ctx, const tview *z, const int32_t *label, const float *class_w)
{
    (void)ctx;
    size_t hw = (size_t)z->h * z->w;
    double loss = 0, pixels = (double)z->n * (double)hw;
    for (int n = 0; n < z->n; n++) {
        const int32_t *l = label + (size_t)n * hw;
        for (size_t i = 0; i < hw; i++) {
            float m, s = parts(z, n, i, &m);
            loss += (double)class_w[l[i]] * ((double)m + log((double)s) - px(z, n, l[i])[i]);
        }
    }
    return pixels > 0 ? loss / pixels : 0.0;
}

static void fast_wce_bwd(void *ctx, const tview *z, const int32_t *label, const float *class_w,
                         const tview *dz)
{
    (void)ctx;
    size_t hw = (size_t)z->h * z->w;
    double pixels = (double)z->n * (double)hw;
    float inv = pixels > 0 ? (float)(1.0 / pixels) : 0.0f;
    for (int n = 0; n < z->n; n++) {
        const int32_t *l = label + (size_t)n * hw;
        for (size_t i = 0; i < hw; i++) {
            float m, s = parts(z, n, i, &m), k = class_w[l[i]] * inv, r = k / s;
            for (int c = 0; c < z->c; c++) {
                float g = expf(px(z, n, c)[i] - m) * r;
                px(dz, n, c)[i] = c == l[i] ? g - k : g;
            }
        }
    }
}

static void fast_gpool_fwd(void *ctx, const tview *x, const tview *y, float scale)
{
    (void)ctx;
    size_t hw = (size_t)x->h * x->w;
    for (int n = 0; n < x->n; n++)
        for (int c = 0; c < x->c; c++) {
            const float *p = px(x, n, c);
            double s = 0;
            for (size_t i = 0; i < hw; i++)
                s += p[i];
            px(y, n, c)[0] = (float)(s * scale);
        }
}

static void fast_bcast_fwd(void *ctx, const tview *x, const tview *y, float scale)
{
    (void)ctx;
    size_t hw = (size_t)y->h * y->w;
    for (int n = 0; n < y->n; n++)
        for (int c = 0; c < y->c; c++) {
            float v = px(x, n, c)[0] * scale, *p = px(y, n, c);
            for (size_t i = 0; i < hw; i++)
                p[i] = v;
        }
}

void kf_seg_fill_ew(kern_ops *o)
{
    o->wce_fwd = fast_wce_fwd;
    o->wce_bwd = fast_wce_bwd;
    o->gpool_fwd = fast_gpool_fwd;
    o->bcast_fwd = fast_bcast_fwd;
}
