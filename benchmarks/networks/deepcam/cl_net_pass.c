/* cl_net_pass: forward and backward of the climate network over the
 * buffers cl_net.c allocates (cl_net_impl.h).  The two passes stay in one
 * file: backward replays forward's op list in reverse through the same
 * views, and its gradient routing (gdst, gdone, the zeroing of summed
 * gradients) follows the liveness cl_net.c computed. */
#include "benchmarks/networks/deepcam/cl_net.h"

#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/networks/deepcam/cl_bnsync.h"
#include "benchmarks/networks/deepcam/cl_net_impl.h"

/* ---- views -------------------------------------------------------------------- */

/* Tensor id in the arrays arr (x or dx); a window is its channels of its parent's. */
static tview tv(const cl_net *n, int id, void *const *arr)
{
    const cl_tensor *t = &n->p->t[id];
    int root = t->parent >= 0 ? t->parent : id, ch0 = t->parent >= 0 ? t->ch0 : 0;
    const cl_tensor *r = &n->p->t[root];
    int rows = cl_rows(n, id), cols = cl_cols(n, id); /* the tile's under a split */
    size_t plane = (size_t)rows * (size_t)cols;
    tview v = {.n = n->batch, .c = t->c, .h = rows, .w = cols,
               .sstride = (int64_t)r->c * (int64_t)plane};
    v.p = arr[root] ? (char *)arr[root] + (size_t)ch0 * plane * n->ops->act_bytes : NULL;
    return v;
}

/* The scratch buffer shaped as tensor id (dense). */
static tview scratch(const cl_net *n, int id)
{
    const cl_tensor *t = &n->p->t[id];
    int rows = cl_rows(n, id), cols = cl_cols(n, id);
    return (tview){.p = n->scratch, .n = n->batch, .c = t->c, .h = rows, .w = cols,
                   .sstride = (int64_t)t->c * rows * cols};
}

static void *wts(const cl_net *n, const cl_op *o, int64_t at)
{
    return n->wc ? (char *)n->wc + (size_t)(o->off + at) * n->ops->act_bytes : NULL;
}

static float *grd(const cl_net *n, const cl_op *o, int64_t at)
{
    return n->grads ? n->grads + o->off + at : NULL;
}

static kern_dconv affine_geom(int c) { return (kern_dconv){1, 1, 0, 1, c}; }

/* ---- forward ----------------------------------------------------------------- */

void cl_net_load(cl_net *n, const float *input, const float *target)
{
    if (n->dry) return;
    tview in = tv(n, n->p->input, n->x);
    const cl_cfg *c = &n->p->cfg;
    /* a split rank takes its tile's rows [r0, r0 + th) and columns
     * [c0, c0 + tw) of every plane */
    size_t W = (size_t)c->width, H = (size_t)c->height, th = (size_t)in.h, tw = (size_t)in.w;
    size_t r0 = (size_t)n->rh * th, c0 = (size_t)n->rw * tw;
    size_t planes = (size_t)n->batch * (size_t)c->channels;
    if (n->S > 1) {
        for (size_t q = 0; q < planes; q++)
            for (size_t r = 0; r < th; r++)
                memcpy(n->host_tile + (q * th + r) * tw, input + (q * H + r0 + r) * W + c0,
                       tw * sizeof *input);
        input = n->host_tile;
    }
    n->ops->put_f32(n->ctx, &in, input);
    size_t pixels = (size_t)n->batch * th * tw;
    for (size_t i = 0; i < pixels; i++) {
        size_t b = i / (th * tw), r = i % (th * tw) / tw, j = i % tw;
        float v = target[(b * H + r0 + r) * W + c0 + j];
        CHECK(v >= 0 && v < CL_CLASSES, "pixel %zu has class %g", i, (double)v);
        n->label_host[i] = (int32_t)v;
    }
    n->ops->h2d(n->ctx, n->label, n->label_host, pixels * sizeof *n->label_host);
}

/* the mean's divisor: the whole map's pixels (a split rank pools its tile) */
static float pool_scale(const cl_net *n, const cl_op *o)
{
    const cl_tensor *t = &n->p->t[o->in];
    return 1.0f / ((float)t->h * (float)t->w);
}

static void op_fwd(cl_net *n, kc_t *kc, const cl_op *o)
{
    tview x = tv(n, o->in, n->x), y = tv(n, o->out, n->x);
    int c = x.c;
    const int *a = n->halo + 2 * (o - n->p->op);
    int halo = a[0] || a[1];
    switch (o->kind) {
    case CL_CONV:
        if (halo) cl_split_conv_fwd(n, kc, o, a, &x, wts(n, o, 0), &y);
        else kc_dconv_fwd(kc, o->name, &x, wts(n, o, 0), &o->g, &y);
        if (o->bias) kc_bias_fwd(kc, o->name, &y, wts(n, o, o->count - y.c));
        break;
    case CL_TCONV: /* the data gradient of the convolution from y's shape to x's */
        if (halo) cl_split_tconv_fwd(n, kc, o, a, &x, wts(n, o, 0), &y);
        else kc_dconv_bwd_data(kc, o->name, &x, wts(n, o, 0), &o->g, &y);
        break;
    case CL_BN: {
        float *m = n->mean ? n->mean + n->stat_off[o - n->p->op] : NULL;
        float *v = n->var ? n->var + n->stat_off[o - n->p->op] : NULL;
        if (n->p->bn)
            cl_bnsync_fwd(n->p->bn, kc, o->name, &x, wts(n, o, 0), wts(n, o, c),
                          (float)n->p->cfg.bn_eps, m, v, &y);
        else
            kc_bn_fwd(kc, o->name, &x, wts(n, o, 0), wts(n, o, c), (float)n->p->cfg.bn_eps, m, v,
                      &y);
        break;
    }
    case CL_AFFINE: { /* a depthwise 1x1 convolution (gamma) and a bias (beta) */
        kern_dconv g = affine_geom(c);
        kc_dconv_fwd(kc, o->name, &x, wts(n, o, 0), &g, &y);
        kc_bias_fwd(kc, o->name, &y, wts(n, o, c));
        break;
    }
    case CL_RELU: kc_relu_fwd(kc, o->name, &x, &y); break;
    case CL_ADD: {
        tview x2 = tv(n, o->in2, n->x);
        kc_copy(kc, o->name, &x, &y);
        kc_add(kc, o->name, &x2, &y);
        break;
    }
    case CL_GPOOL:
        kc_gpool(kc, "gpool_fwd", o->name, &x, &y, pool_scale(n, o));
        if (n->S > 1) cl_split_sum(n, kc, o->name, &y); /* the tiles' parts of the mean */
        break;
    case CL_BCAST: kc_bcast(kc, "bcast_fwd", o->name, &x, &y, 1.0f); break;
    }
}

double cl_net_forward(cl_net *n, kc_t *kc)
{
    for (int i = 0; i < n->p->nop; i++) op_fwd(n, kc, &n->p->op[i]);
    tview z = tv(n, n->p->logits, n->x);
    return kc_wce_fwd(kc, "loss", &z, n->label, n->class_w);
}

/* ---- backward ---------------------------------------------------------------- */

/* Where an overwriting kernel writes the gradient of tensor id: its own
 * gradient, or the scratch buffer when that gradient is a sum (*add set). */
static tview gdst(const cl_net *n, int id, int *add)
{
    *add = n->p->t[id].accumulate;
    return *add ? scratch(n, id) : tv(n, id, n->dx);
}

static void gdone(cl_net *n, kc_t *kc, const cl_op *o, int id, int add, const tview *d)
{
    if (!add) return;
    tview dx = tv(n, id, n->dx);
    kc_add(kc, o->name, d, &dx);
}

static void op_bwd(cl_net *n, kc_t *kc, const cl_op *o, net_grad_ready_fn ready, void *user)
{
    tview x = tv(n, o->in, n->x), dy = tv(n, o->out, n->dx);
    int c = x.c, add, want_dx = o->in != n->p->input;
    const int *a = n->halo + 2 * (o - n->p->op);
    int halo = a[0] || a[1];
    switch (o->kind) {
    case CL_CONV: {
        if (o->bias) kc_bias_bwd(kc, o->name, &dy, grd(n, o, o->count - dy.c));
        if (halo) {
            tview d = want_dx ? gdst(n, o->in, &add) : (tview){0};
            cl_split_conv_bwd(n, kc, o, a, &x, &dy, wts(n, o, 0), grd(n, o, 0),
                              want_dx ? &d : NULL);
            if (ready) ready(user, o->layer, grd(n, o, 0), o->count);
            if (want_dx) gdone(n, kc, o, o->in, add, &d);
            break;
        }
        kc_dconv_bwd_weights(kc, o->name, &x, &dy, &o->g, grd(n, o, 0));
        if (ready) ready(user, o->layer, grd(n, o, 0), o->count);
        if (!want_dx) break;
        tview d = gdst(n, o->in, &add);
        kc_dconv_bwd_data(kc, o->name, &dy, wts(n, o, 0), &o->g, &d);
        gdone(n, kc, o, o->in, add, &d);
        break;
    }
    case CL_TCONV: { /* the convolution it transposes runs from dy's shape to x's */
        if (halo) {
            tview d = gdst(n, o->in, &add);
            cl_split_tconv_bwd(n, kc, o, a, &x, &dy, wts(n, o, 0), grd(n, o, 0), &d);
            if (ready) ready(user, o->layer, grd(n, o, 0), o->count);
            gdone(n, kc, o, o->in, add, &d);
            break;
        }
        kc_dconv_bwd_weights(kc, o->name, &dy, &x, &o->g, grd(n, o, 0));
        if (ready) ready(user, o->layer, grd(n, o, 0), o->count);
        tview d = gdst(n, o->in, &add);
        kc_dconv_fwd(kc, o->name, &dy, wts(n, o, 0), &o->g, &d);
        gdone(n, kc, o, o->in, add, &d);
        break;
    }
    case CL_BN: {
        int64_t s = n->stat_off[o - n->p->op];
        tview d = gdst(n, o->in, &add);
        if (n->p->bn)
            cl_bnsync_bwd(n->p->bn, kc, o->name, &x, &dy, wts(n, o, 0),
                          n->mean ? n->mean + s : NULL, n->var ? n->var + s : NULL,
                          (float)n->p->cfg.bn_eps, &d, grd(n, o, 0), grd(n, o, c));
        else
            kc_bn_bwd(kc, o->name, &x, &dy, wts(n, o, 0), n->mean ? n->mean + s : NULL,
                      n->var ? n->var + s : NULL, (float)n->p->cfg.bn_eps, &d, grd(n, o, 0),
                      grd(n, o, c));
        if (ready) ready(user, o->layer, grd(n, o, 0), o->count);
        gdone(n, kc, o, o->in, add, &d);
        break;
    }
    case CL_AFFINE: {
        kern_dconv g = affine_geom(c);
        kc_bias_bwd(kc, o->name, &dy, grd(n, o, c));
        kc_dconv_bwd_weights(kc, o->name, &x, &dy, &g, grd(n, o, 0));
        if (ready) ready(user, o->layer, grd(n, o, 0), o->count);
        tview d = gdst(n, o->in, &add);
        kc_dconv_bwd_data(kc, o->name, &dy, wts(n, o, 0), &g, &d);
        gdone(n, kc, o, o->in, add, &d);
        break;
    }
    case CL_RELU: { /* adds into its input's gradient (marked accumulate) */
        tview dx = tv(n, o->in, n->dx);
        kc_relu_bwd(kc, o->name, &x, &dy, &dx);
        break;
    }
    case CL_ADD: {
        int ins[2] = {o->in, o->in2};
        for (int j = 0; j < 2; j++) {
            tview dx = tv(n, ins[j], n->dx);
            if (n->p->t[ins[j]].accumulate) kc_add(kc, o->name, &dy, &dx);
            else kc_copy(kc, o->name, &dy, &dx);
        }
        break;
    }
    case CL_GPOOL: {
        /* a split rank's dy holds its tile's part (the broadcast's backward
         * summed its rows): the group's sum is the whole map's gradient */
        if (n->S > 1) cl_split_sum(n, kc, o->name, &dy);
        tview d = gdst(n, o->in, &add);
        kc_bcast(kc, "gpool_bwd", o->name, &dy, &d, pool_scale(n, o));
        gdone(n, kc, o, o->in, add, &d);
        break;
    }
    case CL_BCAST: {
        tview d = gdst(n, o->in, &add);
        kc_gpool(kc, "bcast_bwd", o->name, &dy, &d, 1.0f);
        gdone(n, kc, o, o->in, add, &d);
        break;
    }
    }
}

void cl_net_backward(cl_net *n, kc_t *kc, net_grad_ready_fn ready, void *user)
{
    const cl_plan *p = n->p;
    tview z = tv(n, p->logits, n->x), dz = tv(n, p->logits, n->dx);
    /* a split: the class weights / S (the tile's share of the sample's mean) */
    kc_wce_bwd(kc, "loss", &z, n->label, n->S > 1 ? n->class_wb : n->class_w, &dz);
    for (int i = p->nop - 1; i >= 0; i--) {
        /* a summed gradient starts at zero when its first sender runs (its
         * buffer held another tensor's gradient before) */
        for (int t = 0; t < p->nt; t++)
            if (p->t[t].accumulate && n->live_hi[t] == i && t != p->input) {
                tview d = tv(n, t, n->dx);
                kc_zero(kc, "grad_zero", &d);
            }
        op_bwd(n, kc, &p->op[i], ready, user);
    }
}
