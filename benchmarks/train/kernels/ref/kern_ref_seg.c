/* The segmentation kernels of the reference set (kern.h, "segmentation
 * kernels"): dilated convolution with stride and padding, and train-mode
 * batch normalisation.  Plain loops in double, written to be obviously
 * right: the ground truth of the fast set (tests/unit/test_train_seg_fast.c).
 *
 * Every floating-point operation is marked with FL(n), as in kern_ref.c:
 * tests/unit/test_train_seg_flops.c compiles this file with KERN_REF_COUNT
 * and checks each loop's own count against flops.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/train/kernels/kern.h"
#include "benchmarks/train/kernels/ref/kern_ref_count.h"

static inline float *sat(const tview *t, int n, int c, int y, int x)
{
    return (float *)t->p + (int64_t)n * t->sstride + ((int64_t)c * t->h + y) * t->w + x;
}

static inline double sat_or_zero(const tview *t, int n, int c, int y, int x)
{
    if (y < 0 || y >= t->h || x < 0 || x >= t->w)
        return 0.0;
    return *sat(t, n, c, y, x);
}

static inline float sw(const float *w, int c_in, int k, int co, int ci, int ky, int kx)
{
    return w[(((int64_t)co * c_in + ci) * k + ky) * k + kx];
}

/* Groups: output channel co belongs to group co / (c_out / groups) and reads
 * input channels [j * cig, (j + 1) * cig) of that group j; its weights are
 * w[co][0 .. cig). */
static void ref_dconv_fwd(void *ctx, const tview *x, const void *wv, const kern_dconv *g,
                          const tview *y)
{
    (void)ctx;
    const float *w = wv;
    int k = g->k, G = kern_dconv_groups(g), cig = x->c / G, cog = y->c / G;
    for (int n = 0; n < y->n; n++)
        for (int co = 0; co < y->c; co++)
            for (int oy = 0; oy < y->h; oy++)
                for (int ox = 0; ox < y->w; ox++) {
                    double acc = 0;
                    for (int j = 0; j < cig; j++)
                        for (int ky = 0; ky < k; ky++)
                            for (int kx = 0; kx < k; kx++) {
                                int iy = oy * g->stride - g->pad + ky * g->dil;
                                int ix = ox * g->stride - g->pad + kx * g->dil;
                                acc += (double)sw(w, cig, k, co, j, ky, kx) *
                                       sat_or_zero(x, n, co / cog * cig + j, iy, ix);
                                FL(2);
                            }
                    *sat(y, n, co, oy, ox) = (float)acc;
                }
}

/* The transpose of the forward: every (output pixel, tap) pair sends
 * w * dy to the input pixel it read.  A pair that read padding has nowhere
 * to send its product; it is counted all the same, as the forward counts it
 * (flops.h). */
static void ref_dconv_bwd_data(void *ctx, const tview *dy, const void *wv, const kern_dconv *g,
                               const tview *dx)
{
    (void)ctx;
    const float *w = wv;
    int k = g->k, G = kern_dconv_groups(g), cig = dx->c / G, cog = dy->c / G;
    size_t plane = (size_t)dx->h * (size_t)dx->w;
    double *acc = XCALLOC(plane ? plane : 1, sizeof *acc, "reference data gradient");
    for (int n = 0; n < dx->n; n++)
        for (int ci = 0; ci < dx->c; ci++) {
            memset(acc, 0, plane * sizeof *acc);
            for (int co = ci / cig * cog; co < (ci / cig + 1) * cog; co++)
                for (int oy = 0; oy < dy->h; oy++)
                    for (int ox = 0; ox < dy->w; ox++)
                        for (int ky = 0; ky < k; ky++)
                            for (int kx = 0; kx < k; kx++) {
                                int iy = oy * g->stride - g->pad + ky * g->dil;
                                int ix = ox * g->stride - g->pad + kx * g->dil;
                                FL(2);
                                if (iy < 0 || iy >= dx->h || ix < 0 || ix >= dx->w)
                                    continue;
                                acc[(size_t)iy * dx->w + ix] +=
                                    (double)sw(w, cig, k, co, ci % cig, ky, kx) *
                                    *sat(dy, n, co, oy, ox);
                            }
            for (int iy = 0; iy < dx->h; iy++)
                for (int ix = 0; ix < dx->w; ix++)
                    *sat(dx, n, ci, iy, ix) = (float)acc[(size_t)iy * dx->w + ix];
        }
    free(acc);
}

static void ref_dconv_bwd_weights(void *ctx, const tview *x, const tview *dy, const kern_dconv *g,
                                  void *dwv)
{
    (void)ctx;
    float *dw = dwv;
    int k = g->k, G = kern_dconv_groups(g), cig = x->c / G, cog = dy->c / G;
    for (int co = 0; co < dy->c; co++)
        for (int j = 0; j < cig; j++)
            for (int ky = 0; ky < k; ky++)
                for (int kx = 0; kx < k; kx++) {
                    double acc = 0;
                    for (int n = 0; n < dy->n; n++)
                        for (int oy = 0; oy < dy->h; oy++)
                            for (int ox = 0; ox < dy->w; ox++) {
                                int iy = oy * g->stride - g->pad + ky * g->dil;
                                int ix = ox * g->stride - g->pad + kx * g->dil;
                                acc += sat_or_zero(x, n, co / cog * cig + j, iy, ix) *
                                       *sat(dy, n, co, oy, ox);
                                FL(2);
                            }
                    dw[(((int64_t)co * cig + j) * k + ky) * k + kx] = (float)acc;
                }
}

/* The body runs for every pixel of channel c: n, y, x in scope. */
#define EACH_PIXEL(T, ...)                                                                         \
    for (int n = 0; n < (T)->n; n++)                                                               \
        for (int y = 0; y < (T)->h; y++)                                                           \
            for (int x = 0; x < (T)->w; x++) {                                                     \
                __VA_ARGS__;                                                                       \
            }

static void ref_bn_fwd(void *ctx, const tview *xv, const void *gammav, const void *betav, float eps,
                       float *mean, float *var, const tview *yv)
{
    (void)ctx;
    const float *gamma = gammav, *beta = betav;
    double count = (double)xv->n * xv->h * xv->w;
    double inv = count > 0 ? 1.0 / count : 0.0;
    for (int c = 0; c < xv->c; c++) {
        double s = 0, v = 0;
        EACH_PIXEL(xv, s += *sat(xv, n, c, y, x); FL(1))
        double mu = s * inv;
        FL(1);
        EACH_PIXEL(xv, double d = *sat(xv, n, c, y, x) - mu; v += d * d; FL(3))
        double var_c = v * inv;
        FL(1);
        double rstd = 1.0 / sqrt(var_c + eps);
        FL(3);
        EACH_PIXEL(xv, *sat(yv, n, c, y, x) =
                           (float)((*sat(xv, n, c, y, x) - mu) * rstd * gamma[c] + beta[c]);
                   FL(4))
        mean[c] = (float)mu;
        var[c] = (float)var_c;
    }
}

static void ref_bn_bwd(void *ctx, const tview *xv, const tview *dyv, const void *gammav,
                       const float *mean, const float *var, float eps, const tview *dxv,
                       void *dgammav, void *dbetav)
{
    (void)ctx;
    const float *gamma = gammav;
    float *dgamma = dgammav, *dbeta = dbetav;
    double count = (double)xv->n * xv->h * xv->w;
    double inv = count > 0 ? 1.0 / count : 0.0;
    for (int c = 0; c < xv->c; c++) {
        double mu = mean[c], rstd = 1.0 / sqrt((double)var[c] + eps);
        FL(3);
        double sb = 0, sg = 0;
        EACH_PIXEL(xv, double xh = (*sat(xv, n, c, y, x) - mu) * rstd;
                   double g = *sat(dyv, n, c, y, x); sb += g; sg += g * xh; FL(5))
        double kc = gamma[c] * rstd, mb = sb * inv, mg = sg * inv;
        FL(3);
        EACH_PIXEL(xv, double xh = (*sat(xv, n, c, y, x) - mu) * rstd;
                   double g = *sat(dyv, n, c, y, x);
                   *sat(dxv, n, c, y, x) = (float)(kc * (g - mb - xh * mg)); FL(6))
        dgamma[c] = (float)sg;
        dbeta[c] = (float)sb;
    }
}

/* The maximum of the pixel's logits and the sum of exp(z - max). */
static double lse_parts(const tview *z, int n, int y, int x, double *max)
{
    double m = *sat(z, n, 0, y, x), s = 0;
    for (int c = 1; c < z->c; c++) {
        m = fmax(m, *sat(z, n, c, y, x));
        FL(1);
    }
    for (int c = 0; c < z->c; c++) {
        s += exp(*sat(z, n, c, y, x) - m);
        FL(3);
    }
    *max = m;
    return s;
}

static double ref_wce_fwd(void *ctx, const tview *z, const int32_t *label, const float *class_w)
{
    (void)ctx;
    double loss = 0, pixels = (double)z->n * z->h * z->w;
    int64_t p = 0;
    for (int n = 0; n < z->n; n++)
        for (int y = 0; y < z->h; y++)
            for (int x = 0; x < z->w; x++, p++) {
                double m, s = lse_parts(z, n, y, x, &m);
                double lse = m + log(s), nll = lse - *sat(z, n, label[p], y, x);
                loss += class_w[label[p]] * nll;
                FL(5);
            }
    FL(1);
    return pixels > 0 ? loss * (1.0 / pixels) : 0.0;
}

static void ref_wce_bwd(void *ctx, const tview *z, const int32_t *label, const float *class_w,
                        const tview *dz)
{
    (void)ctx;
    double inv = z->n > 0 ? 1.0 / ((double)z->n * z->h * z->w) : 0.0;
    int64_t p = 0;
    for (int n = 0; n < z->n; n++)
        for (int y = 0; y < z->h; y++)
            for (int x = 0; x < z->w; x++, p++) {
                double m, s = lse_parts(z, n, y, x, &m), k = class_w[label[p]] * inv;
                FL(2);
                for (int c = 0; c < z->c; c++) {
                    double g = exp(*sat(z, n, c, y, x) - m) / s * k;
                    FL(4);
                    *sat(dz, n, c, y, x) = (float)(c == label[p] ? g - k : g);
                }
            }
}

static void ref_gpool_fwd(void *ctx, const tview *xv, const tview *yv, float scale)
{
    (void)ctx;
    for (int n = 0; n < xv->n; n++)
        for (int c = 0; c < xv->c; c++) {
            double s = 0;
            for (int y = 0; y < xv->h; y++)
                for (int x = 0; x < xv->w; x++) {
                    s += *sat(xv, n, c, y, x);
                    FL(1);
                }
            *sat(yv, n, c, 0, 0) = (float)(s * scale);
            FL(1);
        }
}

static void ref_bcast_fwd(void *ctx, const tview *xv, const tview *yv, float scale)
{
    (void)ctx;
    for (int n = 0; n < yv->n; n++)
        for (int c = 0; c < yv->c; c++) {
            double v = *sat(xv, n, c, 0, 0);
            for (int y = 0; y < yv->h; y++)
                for (int x = 0; x < yv->w; x++) {
                    *sat(yv, n, c, y, x) = (float)(v * scale);
                    FL(1);
                }
        }
}

void kern_ref_fill_seg(kern_ops *o)
{
    o->wce_fwd = ref_wce_fwd;
    o->wce_bwd = ref_wce_bwd;
    o->gpool_fwd = ref_gpool_fwd;
    o->bcast_fwd = ref_bcast_fwd;
    o->dconv_fwd = ref_dconv_fwd;
    o->dconv_bwd_data = ref_dconv_bwd_data;
    o->dconv_bwd_weights = ref_dconv_bwd_weights;
    o->bn_fwd = ref_bn_fwd;
    o->bn_bwd = ref_bn_bwd;
}
