/* 1x1 convolutions and the 1x1 stride-2 transposed convolution of the fast
 * CPU path, as GEMMs (kf_gemm.c: oneDNN's dnnl_sgemm, or its bf16 matmul in
 * bf16 mode, row-major) straight on the views.
 *
 * A sample of a view is a [c x h*w] row-major matrix with leading dimension
 * h*w (channel stride h*w, rows contiguous), so a 1x1 convolution needs no
 * copy at all, and "+=" is beta = 1.  The transposed convolution touches only
 * the even rows and columns of its output; those are gathered into (or
 * scattered from) a dense [c_out x pixels] temporary in the workspace, over
 * bands of input rows so that the temporary stays within the workspace
 * limit. */
#include "benchmarks/train/kernels/fast/kern_fast_gemm.h"

#include <stdint.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/train/kernels/fast/kf_gemm.h"

static float *sample(const tview *t, int n) { return (float *)t->p + (int64_t)n * t->sstride; }

/* y[co x HW] = W[co x ci] x[ci x HW] */
void kf_conv1_fwd(kf_ctx *c, const tview *x, const float *w, const tview *y)
{
    kf_threads(c);
    int64_t hw = (int64_t)y->h * y->w;
    for (int n = 0; n < y->n; n++)
        kf_gemm(c, 'N', 'N', y->c, hw, x->c, w, x->c, sample(x, n), hw, 0.0f, sample(y, n), hw);
}

/* dx[ci x HW] += W^T dy[co x HW] */
void kf_conv1_bwd_data(kf_ctx *c, const tview *dy, const float *w, const tview *dx)
{
    kf_threads(c);
    int64_t hw = (int64_t)dx->h * dx->w;
    for (int n = 0; n < dx->n; n++)
        kf_gemm(c, 'T', 'N', dx->c, hw, dy->c, w, dx->c, sample(dy, n), hw, 1.0f, sample(dx, n), hw);
}

/* dw[co x ci] = sum over samples of dy[co x HW] x^T */
void kf_conv1_bwd_weights(kf_ctx *c, const tview *x, const tview *dy, float *dw)
{
    kf_threads(c);
    int64_t hw = (int64_t)dy->h * dy->w;
    if (x->n == 0) memset(dw, 0, (size_t)x->c * dy->c * sizeof *dw);
    for (int n = 0; n < x->n; n++)
        kf_gemm(c, 'N', 'T', dy->c, x->c, hw, sample(dy, n), hw, sample(x, n), hw, n ? 1.0f : 0.0f, dw,
             x->c);
}

/* The set-up of each pass of the transposed convolution: threads, input
 * rows per band so that the [c_out x rows*w] temporary fits the limit
 * (*rows), and that temporary in the workspace. */
static float *band_setup(kf_ctx *c, int c_out, int h, int w, int *rows)
{
    kf_threads(c);
    size_t row = (size_t)c_out * w * sizeof(float);
    size_t r = row ? c->ws_limit / row : (size_t)h;
    if (r < 1) r = 1;
    *rows = r < (size_t)h ? (int)r : h;
    return kf_workspace(c, (size_t)c_out * *rows * w * sizeof(float));
}

/* Between a band of input rows [r0, r0+rows) and the even pixels of the
 * output: gather (tmp = dy at even positions) or scatter (y = tmp there). */
static void even_pixels(const tview *big, int n, int r0, int rows, float *tmp, int scatter)
{
    int wi = big->w / 2, np = rows * wi;
    for (int ch = 0; ch < big->c; ch++) {
        float *plane = sample(big, n) + (int64_t)ch * big->h * big->w;
        float *t = tmp + (int64_t)ch * np;
        for (int i = 0; i < rows; i++) {
            float *row = plane + (int64_t)2 * (r0 + i) * big->w;
            float *tr = t + (int64_t)i * wi;
            if (scatter)
                for (int j = 0; j < wi; j++) row[2 * j] = tr[j];
            else
                for (int j = 0; j < wi; j++) tr[j] = row[2 * j];
        }
    }
}

/* y (2h x 2w): even pixels = W^T x, the rest 0.  w is [ci][co]. */
void kf_tconv_fwd(void *ctx, const tview *x, const void *wv, const tview *y)
{
    kf_ctx *c = ctx;
    const float *w = wv;
    int64_t hw = (int64_t)x->h * x->w;
    int rows;
    float *tmp = band_setup(c, y->c, x->h, x->w, &rows);
    for (int n = 0; n < y->n; n++) {
        memset(sample(y, n), 0, (size_t)y->c * y->h * y->w * sizeof(float));
        for (int r0 = 0; r0 < x->h; r0 += rows) {
            int nr = x->h - r0 < rows ? x->h - r0 : rows;
            int64_t np = (int64_t)nr * x->w;
            kf_gemm(c, 'T', 'N', y->c, np, x->c, w, y->c, sample(x, n) + (int64_t)r0 * x->w, hw, 0.0f,
                 tmp, np);
            even_pixels(y, n, r0, nr, tmp, 1);
        }
    }
}

/* dx[ci x HW] += W[ci x co] dy_even[co x HW] */
void kf_tconv_bwd_data(void *ctx, const tview *dy, const void *wv, const tview *dx)
{
    kf_ctx *c = ctx;
    const float *w = wv;
    int64_t hw = (int64_t)dx->h * dx->w;
    int rows;
    float *tmp = band_setup(c, dy->c, dx->h, dx->w, &rows);
    for (int n = 0; n < dx->n; n++)
        for (int r0 = 0; r0 < dx->h; r0 += rows) {
            int nr = dx->h - r0 < rows ? dx->h - r0 : rows;
            int64_t np = (int64_t)nr * dx->w;
            even_pixels(dy, n, r0, nr, tmp, 0);
            kf_gemm(c, 'N', 'N', dx->c, np, dy->c, w, dy->c, tmp, np, 1.0f,
                 sample(dx, n) + (int64_t)r0 * dx->w, hw);
        }
}

/* dw[ci x co] = sum over samples and bands of x[ci x HW] dy_even^T */
void kf_tconv_bwd_weights(void *ctx, const tview *x, const tview *dy, void *dwv)
{
    kf_ctx *c = ctx;
    float *dw = dwv;
    int64_t hw = (int64_t)x->h * x->w;
    int rows;
    float *tmp = band_setup(c, dy->c, x->h, x->w, &rows);
    memset(dw, 0, (size_t)x->c * dy->c * sizeof *dw);
    for (int n = 0; n < x->n; n++)
        for (int r0 = 0; r0 < x->h; r0 += rows) {
            int nr = x->h - r0 < rows ? x->h - r0 : rows;
            int64_t np = (int64_t)nr * x->w;
            even_pixels(dy, n, r0, nr, tmp, 0);
            kf_gemm(c, 'N', 'T', x->c, dy->c, np, sample(x, n) + (int64_t)r0 * x->w, hw, tmp, np, 1.0f,
                 dw, dy->c);
        }
}
