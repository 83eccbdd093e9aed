#include "benchmarks/networks/fcdensenet/fd_kerntime.h"

#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/train/kernels/flops.h"

static const char *const fam_names[FDK_NFAM] = {"conv", "tconv", "pool", "bias", "relu",
                                                "l1",   "add",   "copy", "zero", "copy3d",
                                                "adam"};
/* the kernels of each family, by slot ("" unused) */
static const char *const kernels[FDK_NFAM][3] = {
    {"conv_fwd", "conv_bwd_data", "conv_bwd_weights"},
    {"tconv_fwd", "tconv_bwd_data", "tconv_bwd_weights"},
    {"pool_fwd", "pool_bwd", ""},
    {"bias_fwd", "bias_bwd", ""},
    {"relu_fwd", "relu_bwd", ""},
    {"l1_fwd", "l1_bwd", ""},
    {"add", "", ""},
    {"copy", "", ""},
    {"zero", "", ""},
    {"copy3d", "", ""},
    {"adam", "", ""},
};

int fdk_kernel(const char *kernel, int *fam, int *slot)
{
    for (int f = 0; f < FDK_NFAM; f++)
        for (int s = 0; s < 3; s++)
            if (kernels[f][s][0] && !strcmp(kernel, kernels[f][s])) {
                *fam = f;
                *slot = s;
                return 0;
            }
    return -1;
}

const char *fdk_family_name(int fam) { return fam >= 0 && fam < FDK_NFAM ? fam_names[fam] : "?"; }

int fdk_family_of(const char *name)
{
    for (int f = 0; f < FDK_NFAM; f++)
        if (!strcmp(name, fam_names[f])) return f;
    return -1;
}

void fdk_shape_of(int fam, const tview *x, const tview *y, int k, fdk_shape *s)
{
    memset(s, 0, sizeof *s);
    s->fam = fam;
    s->n = x->n;
    s->cin = x->c;
    s->cout = fam == FDK_CONV || fam == FDK_TCONV ? y->c : x->c;
    /* a convolution is keyed by its output's extent (= its input's), the
     * others by their input's */
    s->h = fam == FDK_CONV ? y->h : x->h;
    s->w = fam == FDK_CONV ? y->w : x->w;
    s->k = fam == FDK_CONV ? k : fam == FDK_TCONV ? 1 : fam == FDK_POOL ? 2 : 0;
}

int64_t fdk_flops(const fdk_shape *s, int slot)
{
    int64_t e = (int64_t)s->n * s->cin * s->h * s->w;
    switch (s->fam) {
    case FDK_CONV:
        return slot == 0   ? flops_conv_fwd(s->n, s->cin, s->cout, s->k, s->h, s->w)
               : slot == 1 ? flops_conv_bwd_data(s->n, s->cin, s->cout, s->k, s->h, s->w)
                           : flops_conv_bwd_weights(s->n, s->cin, s->cout, s->k, s->h, s->w);
    case FDK_TCONV:
        return slot == 0   ? flops_tconv_fwd(s->n, s->cin, s->cout, s->h, s->w)
               : slot == 1 ? flops_tconv_bwd_data(s->n, s->cin, s->cout, s->h, s->w)
                           : flops_tconv_bwd_weights(s->n, s->cin, s->cout, s->h, s->w);
    case FDK_POOL: return slot == 0 ? flops_pool_fwd(e / 4) : flops_pool_bwd(e / 4);
    case FDK_BIAS: return slot == 0 ? flops_bias_fwd(e) : flops_bias_bwd(e);
    case FDK_RELU: return slot == 0 ? flops_relu_fwd(e) : flops_relu_bwd(e);
    case FDK_L1: return slot == 0 ? flops_l1_fwd(e) : flops_l1_bwd(e);
    case FDK_ADD: return flops_add(e);
    case FDK_ADAM: return flops_adam(e);
    default: return 0; /* copy, zero */
    }
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One call of slot's kernel on the buffers (x, dx: the input side; y, dy:
 * the output side; w, dw: weights or bias). */
static void call(const kern_ops *o, void *ctx, const fdk_shape *s, int slot, const tview *x,
                 const tview *dx, const tview *y, const tview *dy, void *w, void *dw)
{
    switch (s->fam) {
    case FDK_CONV:
        if (slot == 0) o->conv_fwd(ctx, x, w, s->k, y);
        else if (slot == 1) o->conv_bwd_data(ctx, dy, w, s->k, dx);
        else o->conv_bwd_weights(ctx, x, dy, s->k, dw);
        break;
    case FDK_TCONV:
        if (slot == 0) o->tconv_fwd(ctx, x, w, y);
        else if (slot == 1) o->tconv_bwd_data(ctx, dy, w, dx);
        else o->tconv_bwd_weights(ctx, x, dy, dw);
        break;
    case FDK_POOL:
        if (slot == 0) o->pool_fwd(ctx, x, y);
        else o->pool_bwd(ctx, dy, dx);
        break;
    case FDK_BIAS:
        if (slot == 0) o->bias_fwd(ctx, x, w);
        else o->bias_bwd(ctx, x, dw);
        break;
    case FDK_RELU:
        if (slot == 0) o->relu_fwd(ctx, x, y);
        else o->relu_bwd(ctx, x, y, dx);
        break;
    case FDK_L1:
        if (slot == 0) (void)o->l1_fwd(ctx, x, y);
        else o->l1_bwd(ctx, x, y, dx);
        break;
    case FDK_ADD: o->add(ctx, x, y); break;
    case FDK_COPY: o->copy(ctx, x, y); break;
    case FDK_ADAM: {
        /* x: master weights, dx: gradients, y, dy: moments (fp32); w: the
         * compute copy where it is not the master (16-bit) */
        adam_hyper h = {.lr = 1e-3, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .step = 1,
                        .grad_scale = 1};
        o->adam(ctx, x->p, o->act_bytes == 4 ? NULL : w, dx->p, y->p, dy->p, (int64_t)s->w, &h);
        break;
    }
    case FDK_COPY3D: {
        int64_t plane = (int64_t)s->h * s->w;
        t3view a = {x->p, s->n, s->cin, 1, s->h, s->w, (int64_t)s->cin * plane, plane, plane,
                    s->w, 1};
        t3view b = a;
        b.p = y->p;
        o->copy3d(ctx, &a, &b);
        break;
    }
    default: o->zero(ctx, x); break;
    }
}

void fdk_measure(const kern_ops *o, void *ctx, const fdk_shape *s, int reps, double t_s[3])
{
    int ho = s->h, wo = s->w;
    if (s->fam == FDK_TCONV) ho *= 2, wo *= 2;
    if (s->fam == FDK_POOL) ho /= 2, wo /= 2;
    size_t ab = o->act_bytes;
    int64_t xe = (int64_t)s->n * s->cin * s->h * s->w, ye = (int64_t)s->n * s->cout * ho * wo;
    int64_t we = (int64_t)s->cout * s->cin * (s->k > 1 ? s->k * s->k : 1);
    if (we < s->cout) we = s->cout;
    /* weights and gradients as fp32 (at least the compute type's size) */
    if (s->fam == FDK_ADAM) ab = 4, we = xe; /* fp32 master, gradient, moments */
    void *x = o->alloc(ctx, (size_t)xe * ab), *dx = o->alloc(ctx, (size_t)xe * ab);
    void *y = o->alloc(ctx, (size_t)ye * ab), *dy = o->alloc(ctx, (size_t)ye * ab);
    void *w = o->alloc(ctx, (size_t)we * 4), *dw = o->alloc(ctx, (size_t)we * 4);
    CHECK(x && dx && y && dy && w && dw, "out of memory timing %s at %dx%dx%dx%d",
          fdk_family_name(s->fam), s->n, s->cin, s->h, s->w);
    tview vx = {x, s->n, s->cin, s->h, s->w, (int64_t)s->cin * s->h * s->w};
    tview vy = {y, s->n, s->cout, ho, wo, (int64_t)s->cout * ho * wo};
    tview vdx = vx, vdy = vy;
    vdx.p = dx;
    vdy.p = dy;
    for (int slot = 0; slot < 3; slot++) {
        t_s[slot] = 0;
        if (!kernels[s->fam][slot][0]) continue;
        double r[16];
        int n = reps < 1 ? 1 : reps > 16 ? 16 : reps;
        for (int i = -1; i < n; i++) {
            double t0 = timer_now_s();
            call(o, ctx, s, slot, &vx, &vdx, &vy, &vdy, w, dw);
            if (o->sync) o->sync(ctx);
            if (i >= 0) r[i] = timer_now_s() - t0;
        }
        qsort(r, (size_t)n, sizeof r[0], cmp_d);
        t_s[slot] = r[n / 2];
    }
    void *all[6] = {x, dx, y, dy, w, dw};
    for (int i = 0; i < 6; i++) o->release(ctx, all[i]);
}
