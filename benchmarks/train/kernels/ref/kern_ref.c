/* The reference kernel set: plain loops, written to be obviously right.  They
 * are the ground truth the fast CPU path and the CUDA path are tested against,
 * so they favour clarity over speed and accumulate in double.
 *
 * Every floating-point operation is marked with FL(n).  Built normally FL does
 * nothing; tests/unit/test_train_flops.c compiles this file with
 * KERN_REF_COUNT defined, so that each loop counts its own operations, and
 * checks the counts against the formulas of flops.h.  Zero-padding taps are
 * multiplied like any other, which is what the formulas say. */
#include <math.h>
#include <string.h>

#include "benchmarks/train/kernels/kern.h"
#include "benchmarks/train/kernels/kern_hyper.h"
#include "benchmarks/train/kernels/ref/kern_ref_count.h"
#include "benchmarks/train/kernels/ref/kern_ref_lion.h"

static inline float *at(const tview *t, int n, int c, int y, int x)
{
    return (float *)t->p + (int64_t)n * t->sstride + ((int64_t)c * t->h + y) * t->w + x;
}

/* Zero outside the image: SAME padding. */
static inline double at_or_zero(const tview *t, int n, int c, int y, int x)
{
    if (y < 0 || y >= t->h || x < 0 || x >= t->w) return 0.0;
    return *at(t, n, c, y, x);
}

static inline const float *wat(const float *w, int c_in, int k, int co, int ci, int ky, int kx)
{
    return w + (((int64_t)co * c_in + ci) * k + ky) * k + kx;
}

static void ref_conv_fwd(void *ctx, const tview *x, const void *wv, int k, const tview *y)
{
    (void)ctx;
    const float *w = wv;
    int pad = k / 2;
    for (int n = 0; n < y->n; n++)
        for (int co = 0; co < y->c; co++)
            for (int oy = 0; oy < y->h; oy++)
                for (int ox = 0; ox < y->w; ox++) {
                    double acc = 0;
                    for (int ci = 0; ci < x->c; ci++)
                        for (int ky = 0; ky < k; ky++)
                            for (int kx = 0; kx < k; kx++) {
                                acc += (double)*wat(w, x->c, k, co, ci, ky, kx) *
                                       at_or_zero(x, n, ci, oy + ky - pad, ox + kx - pad);
                                FL(2);
                            }
                    *at(y, n, co, oy, ox) = (float)acc;
                }
}

static void ref_conv_bwd_data(void *ctx, const tview *dy, const void *wv, int k, const tview *dx)
{
    (void)ctx;
    const float *w = wv;
    int pad = k / 2;
    /* input pixel (iy, ix) met output pixel (iy - ky + pad, ix - kx + pad) through tap (ky, kx) */
    for (int n = 0; n < dx->n; n++)
        for (int ci = 0; ci < dx->c; ci++)
            for (int iy = 0; iy < dx->h; iy++)
                for (int ix = 0; ix < dx->w; ix++) {
                    double acc = *at(dx, n, ci, iy, ix);
                    for (int co = 0; co < dy->c; co++)
                        for (int ky = 0; ky < k; ky++)
                            for (int kx = 0; kx < k; kx++) {
                                acc += (double)*wat(w, dx->c, k, co, ci, ky, kx) *
                                       at_or_zero(dy, n, co, iy - ky + pad, ix - kx + pad);
                                FL(2);
                            }
                    *at(dx, n, ci, iy, ix) = (float)acc;
                }
}

static void ref_conv_bwd_weights(void *ctx, const tview *x, const tview *dy, int k, void *dwv)
{
    (void)ctx;
    float *dw = dwv;
    int pad = k / 2;
    for (int co = 0; co < dy->c; co++)
        for (int ci = 0; ci < x->c; ci++)
            for (int ky = 0; ky < k; ky++)
                for (int kx = 0; kx < k; kx++) {
                    double acc = 0;
                    for (int n = 0; n < dy->n; n++)
                        for (int oy = 0; oy < dy->h; oy++)
                            for (int ox = 0; ox < dy->w; ox++) {
                                acc += (double)*at(dy, n, co, oy, ox) *
                                       at_or_zero(x, n, ci, oy + ky - pad, ox + kx - pad);
                                FL(2);
                            }
                    dw[(((int64_t)co * x->c + ci) * k + ky) * k + kx] = (float)acc;
                }
}

/* Transposed 1x1 convolution, stride 2: input pixel (i, j) lands on (2i, 2j). */
static void ref_tconv_fwd(void *ctx, const tview *x, const void *wv, const tview *y)
{
    (void)ctx;
    const float *w = wv; /* [c_in][c_out] */
    for (int n = 0; n < y->n; n++)
        for (int co = 0; co < y->c; co++)
            for (int oy = 0; oy < y->h; oy++)
                for (int ox = 0; ox < y->w; ox++) {
                    double acc = 0;
                    if (oy % 2 == 0 && ox % 2 == 0)
                        for (int ci = 0; ci < x->c; ci++) {
                            acc += (double)w[(int64_t)ci * y->c + co] * *at(x, n, ci, oy / 2, ox / 2);
                            FL(2);
                        }
                    *at(y, n, co, oy, ox) = (float)acc;
                }
}

static void ref_tconv_bwd_data(void *ctx, const tview *dy, const void *wv, const tview *dx)
{
    (void)ctx;
    const float *w = wv;
    for (int n = 0; n < dx->n; n++)
        for (int ci = 0; ci < dx->c; ci++)
            for (int iy = 0; iy < dx->h; iy++)
                for (int ix = 0; ix < dx->w; ix++) {
                    double acc = *at(dx, n, ci, iy, ix);
                    for (int co = 0; co < dy->c; co++) {
                        acc += (double)w[(int64_t)ci * dy->c + co] * *at(dy, n, co, 2 * iy, 2 * ix);
                        FL(2);
                    }
                    *at(dx, n, ci, iy, ix) = (float)acc;
                }
}

static void ref_tconv_bwd_weights(void *ctx, const tview *x, const tview *dy, void *dwv)
{
    (void)ctx;
    float *dw = dwv;
    for (int ci = 0; ci < x->c; ci++)
        for (int co = 0; co < dy->c; co++) {
            double acc = 0;
            for (int n = 0; n < x->n; n++)
                for (int iy = 0; iy < x->h; iy++)
                    for (int ix = 0; ix < x->w; ix++) {
                        acc += (double)*at(x, n, ci, iy, ix) * *at(dy, n, co, 2 * iy, 2 * ix);
                        FL(2);
                    }
            dw[(int64_t)ci * dy->c + co] = (float)acc;
        }
}

static void ref_bias_fwd(void *ctx, const tview *y, const void *bv)
{
    (void)ctx;
    const float *b = bv;
    for (int n = 0; n < y->n; n++)
        for (int c = 0; c < y->c; c++)
            for (int i = 0; i < y->h; i++)
                for (int j = 0; j < y->w; j++) {
                    *at(y, n, c, i, j) += b[c];
                    FL(1);
                }
}

static void ref_bias_bwd(void *ctx, const tview *dy, void *dbv)
{
    (void)ctx;
    float *db = dbv;
    for (int c = 0; c < dy->c; c++) {
        double acc = 0;
        for (int n = 0; n < dy->n; n++)
            for (int i = 0; i < dy->h; i++)
                for (int j = 0; j < dy->w; j++) {
                    acc += *at(dy, n, c, i, j);
                    FL(1);
                }
        db[c] = (float)acc;
    }
}

static void ref_relu_fwd(void *ctx, const tview *x, const tview *y)
{
    (void)ctx;
    for (int n = 0; n < x->n; n++)
        for (int c = 0; c < x->c; c++)
            for (int i = 0; i < x->h; i++)
                for (int j = 0; j < x->w; j++) {
                    float v = *at(x, n, c, i, j);
                    *at(y, n, c, i, j) = v > 0 ? v : 0.0f;
                    FL(1);
                }
}

static void ref_relu_bwd(void *ctx, const tview *x, const tview *dy, const tview *dx)
{
    (void)ctx;
    for (int n = 0; n < x->n; n++)
        for (int c = 0; c < x->c; c++)
            for (int i = 0; i < x->h; i++)
                for (int j = 0; j < x->w; j++) {
                    float g = *at(x, n, c, i, j) > 0 ? *at(dy, n, c, i, j) : 0.0f;
                    *at(dx, n, c, i, j) += g;
                    FL(2);
                }
}

static void ref_pool_fwd(void *ctx, const tview *x, const tview *y)
{
    (void)ctx;
    for (int n = 0; n < y->n; n++)
        for (int c = 0; c < y->c; c++)
            for (int i = 0; i < y->h; i++)
                for (int j = 0; j < y->w; j++) {
                    float s = *at(x, n, c, 2 * i, 2 * j) + *at(x, n, c, 2 * i, 2 * j + 1) +
                              *at(x, n, c, 2 * i + 1, 2 * j) + *at(x, n, c, 2 * i + 1, 2 * j + 1);
                    *at(y, n, c, i, j) = 0.25f * s;
                    FL(4);
                }
}

static void ref_pool_bwd(void *ctx, const tview *dy, const tview *dx)
{
    (void)ctx;
    for (int n = 0; n < dx->n; n++)
        for (int c = 0; c < dx->c; c++)
            for (int i = 0; i < dx->h; i++)
                for (int j = 0; j < dx->w; j++) {
                    *at(dx, n, c, i, j) = 0.25f * *at(dy, n, c, i / 2, j / 2);
                    FL(1);
                }
}

static double ref_l1_fwd(void *ctx, const tview *y, const tview *t)
{
    (void)ctx;
    double sum = 0;
    for (int n = 0; n < y->n; n++)
        for (int c = 0; c < y->c; c++)
            for (int i = 0; i < y->h; i++)
                for (int j = 0; j < y->w; j++) {
                    double d = (double)*at(y, n, c, i, j) - *at(t, n, c, i, j);
                    sum += fabs(d);
                    FL(3);
                }
    FL(1);
    return sum * (1.0 / (double)tview_elems(y));
}

static void ref_l1_bwd(void *ctx, const tview *y, const tview *t, const tview *dy)
{
    (void)ctx;
    float s = (float)(1.0 / (double)tview_elems(y));
    for (int n = 0; n < y->n; n++)
        for (int c = 0; c < y->c; c++)
            for (int i = 0; i < y->h; i++)
                for (int j = 0; j < y->w; j++) {
                    float d = *at(y, n, c, i, j) - *at(t, n, c, i, j);
                    *at(dy, n, c, i, j) = d > 0 ? s : (d < 0 ? -s : 0.0f);
                    FL(2);
                }
}

/* Adam (Kingma & Ba) in the form with the bias corrections folded into the
 * step size and epsilon, as PyTorch computes it. */
static void ref_adam(void *ctx, float *w, void *w_compute, const void *gv, float *m, float *v,
                     int64_t n, const adam_hyper *h)
{
    (void)ctx;
    const float *g = gv;
    kern_adam_f32 f = kern_hyper_adam(h, h->step);
    for (int64_t i = 0; i < n; i++) {
        float gi = g[i] * f.gs;
        m[i] = f.b1 * m[i] + (1.0f - f.b1) * gi;
        v[i] = f.b2 * v[i] + (1.0f - f.b2) * gi * gi;
        w[i] -= f.lr_t * m[i] / (sqrtf(v[i]) + f.eps_t);
        FL(13);
    }
    if (w_compute && w_compute != (void *)w) memcpy(w_compute, w, (size_t)n * sizeof *w);
}

static void ref_copy(void *ctx, const tview *src, const tview *dst)
{
    (void)ctx;
    for (int n = 0; n < src->n; n++)
        for (int c = 0; c < src->c; c++)
            for (int i = 0; i < src->h; i++)
                for (int j = 0; j < src->w; j++) *at(dst, n, c, i, j) = *at(src, n, c, i, j);
}

static void ref_add(void *ctx, const tview *src, const tview *dst)
{
    (void)ctx;
    for (int n = 0; n < src->n; n++)
        for (int c = 0; c < src->c; c++)
            for (int i = 0; i < src->h; i++)
                for (int j = 0; j < src->w; j++) {
                    *at(dst, n, c, i, j) += *at(src, n, c, i, j);
                    FL(1);
                }
}

static void ref_zero(void *ctx, const tview *dst)
{
    (void)ctx;
    for (int n = 0; n < dst->n; n++)
        memset(at(dst, n, 0, 0, 0), 0, (size_t)dst->c * dst->h * dst->w * sizeof(float));
}

const kern_ops *kern_ref_ops(void)
{
    static kern_ops ops;
    if (!ops.name) {
        ops.conv_fwd = ref_conv_fwd;
        ops.conv_bwd_data = ref_conv_bwd_data;
        ops.conv_bwd_weights = ref_conv_bwd_weights;
        ops.tconv_fwd = ref_tconv_fwd;
        ops.tconv_bwd_data = ref_tconv_bwd_data;
        ops.tconv_bwd_weights = ref_tconv_bwd_weights;
        ops.bias_fwd = ref_bias_fwd;
        ops.bias_bwd = ref_bias_bwd;
        ops.relu_fwd = ref_relu_fwd;
        ops.relu_bwd = ref_relu_bwd;
        ops.pool_fwd = ref_pool_fwd;
        ops.pool_bwd = ref_pool_bwd;
        ops.l1_fwd = ref_l1_fwd;
        ops.l1_bwd = ref_l1_bwd;
        ops.adam = ref_adam;
        kern_ref_lion_fill(&ops);
        ops.copy = ref_copy;
        ops.add = ref_add;
        ops.zero = ref_zero;
        kern_host_fill(&ops);
        kern_ref_fill_3d(&ops);
        kern_ref_fill_seg(&ops);
        ops.name = "reference";
    }
    return &ops;
}
