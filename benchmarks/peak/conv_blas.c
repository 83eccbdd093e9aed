/* conv_blas: the k x k convolutions as im2col + OpenBLAS sgemm, the
 * alternative the fast path was measured against (bench_conv --kernels blas;
 * docs/stemdl-cpu-kernels.md).  A benchmark-only kernel set: the whole image
 * is unrolled at once (workspace c_in*k*k*h*w floats, fine for `small`, not
 * for gb2019), members other than the convolutions are the reference ones.
 *
 *   forward       y[co x HW] = W[co x ci*k*k] col(x)[ci*k*k x HW]
 *   data grad.    dx[ci x HW] += flip(W)[ci x co*k*k] col(dy)[co*k*k x HW]
 *                 (the transposed convolution as a convolution with the
 *                 weights transposed and rotated: K = co*k*k, not co)
 *   weight grad.  dW[co x ci*k*k] = sum over samples dy[co x HW] col(x)^T */
#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/peak/conv_blas.h"

typedef struct {
    float *col, *wf;
    size_t ncol, nwf;
} cb_ctx;

static float *grow(float **p, size_t *have, size_t need)
{
    if (*have < need) {
        free(*p);
        *p = XMALLOC(need * sizeof(float), "im2col workspace");
        *have = need;
    }
    return *p;
}

/* col[(ci*k + ky)*k + kx][y*w + x] = x[ci][y + ky - p][x + kx - p] or 0 */
static void im2col(const float *x, int c, int h, int w, int k, float *col)
{
    int p = k / 2;
    for (int ci = 0; ci < c; ci++)
        for (int ky = 0; ky < k; ky++)
            for (int kx = 0; kx < k; kx++) {
                float *r = col + (((size_t)ci * k + ky) * k + kx) * h * w;
                int x0 = p - kx > 0 ? p - kx : 0, x1 = w + p - kx < w ? w + p - kx : w;
                for (int y = 0; y < h; y++) {
                    int sy = y + ky - p;
                    float *o = r + (size_t)y * w;
                    if (sy < 0 || sy >= h || x1 <= x0) {
                        memset(o, 0, (size_t)w * sizeof *o);
                        continue;
                    }
                    for (int i = 0; i < x0; i++) o[i] = 0;
                    memcpy(o + x0, x + ((size_t)ci * h + sy) * w + x0 + kx - p,
                           (size_t)(x1 - x0) * sizeof *o);
                    for (int i = x1; i < w; i++) o[i] = 0;
                }
            }
}

static float *smp(const tview *t, int n) { return (float *)t->p + (int64_t)n * t->sstride; }

static void cb_fwd(void *ctx, const tview *x, const void *w, int k, const tview *y)
{
    cb_ctx *c = ctx;
    int hw = y->h * y->w, kd = x->c * k * k;
    float *col = grow(&c->col, &c->ncol, (size_t)kd * hw);
    for (int n = 0; n < y->n; n++) {
        im2col(smp(x, n), x->c, x->h, x->w, k, col);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, y->c, hw, kd, 1.0f, w, kd, col, hw,
                    0.0f, smp(y, n), hw);
    }
}

static void cb_bwd_data(void *ctx, const tview *dy, const void *wv, int k, const tview *dx)
{
    cb_ctx *c = ctx;
    const float *w = wv;
    int hw = dx->h * dx->w, kk = k * k, kd = dy->c * kk;
    float *col = grow(&c->col, &c->ncol, (size_t)kd * hw);
    float *wf = grow(&c->wf, &c->nwf, (size_t)dx->c * kd);
    for (int co = 0; co < dy->c; co++)
        for (int ci = 0; ci < dx->c; ci++)
            for (int t = 0; t < kk; t++)
                wf[((size_t)ci * dy->c + co) * kk + kk - 1 - t] = w[((size_t)co * dx->c + ci) * kk + t];
    for (int n = 0; n < dx->n; n++) {
        im2col(smp(dy, n), dy->c, dy->h, dy->w, k, col);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, dx->c, hw, kd, 1.0f, wf, kd, col,
                    hw, 1.0f, smp(dx, n), hw);
    }
}

static void cb_bwd_weights(void *ctx, const tview *x, const tview *dy, int k, void *dw)
{
    cb_ctx *c = ctx;
    int hw = dy->h * dy->w, kd = x->c * k * k;
    float *col = grow(&c->col, &c->ncol, (size_t)kd * hw);
    for (int n = 0; n < x->n; n++) {
        im2col(smp(x, n), x->c, x->h, x->w, k, col);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, dy->c, kd, hw, 1.0f, smp(dy, n), hw,
                    col, hw, n ? 1.0f : 0.0f, dw, kd);
    }
}

const kern_ops *conv_blas_ops(void)
{
    static kern_ops ops;
    if (!ops.name) {
        ops = *kern_ref_ops();
        ops.conv_fwd = cb_fwd;
        ops.conv_bwd_data = cb_bwd_data;
        ops.conv_bwd_weights = cb_bwd_weights;
        ops.name = "blas";
    }
    return &ops;
}

void *conv_blas_create(int threads)
{
    if (threads > 0) openblas_set_num_threads(threads);
    return XCALLOC(1, sizeof(cb_ctx), "im2col context");
}

void conv_blas_release(void *ctx)
{
    cb_ctx *c = ctx;
    free(c->col);
    free(c->wf);
    free(c);
}

const char *conv_blas_library(void) { return openblas_get_config(); }
