#include "benchmarks/networks/deepcam/cl_net.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/count.h"
#include "benchmarks/common/rng.h"
#include "benchmarks/networks/deepcam/cl_bnsync.h"

struct cl_net {
    const cl_plan *p;
    const kern_ops *ops;
    void *ctx;
    int batch, dry;
    size_t bytes;
    int failed;
    size_t failed_bytes;
    void **x, **dx;      /* [nt]: root tensors' arrays (NULL for windows); the dx share buffers */
    int *live_lo, *live_hi; /* [nt]: ops between which a root's gradient is live (backward) */
    void **gbuf;         /* the gradient buffers, ngbuf of them */
    int ngbuf;
    void *scratch;       /* a gradient that is added, not written */
    float *mean, *var;   /* batch norm statistics, all layers */
    int64_t *stat_off;   /* [nop]: a batch norm op's offset in mean and var */
    int32_t *label;      /* [batch][h][w] in the set's memory */
    int32_t *label_host;
    float *class_w;      /* [CL_CLASSES] in the set's memory */
    float *params, *grads;
    void *wc;
};

/* ---- allocation ------------------------------------------------------------- */

static void *grab(cl_net *n, int64_t bytes)
{
    int64_t total;
    CHECK(count_add((int64_t)n->bytes, bytes, &total) == 0, "the network's bytes overflow");
    n->bytes = (size_t)total;
    if (n->dry || n->failed) return NULL;
    void *q = n->ops->alloc(n->ctx, (size_t)bytes);
    if (!q) n->failed = 1, n->failed_bytes = (size_t)bytes;
    return q;
}

static int64_t elems(const cl_net *n, const cl_tensor *t)
{
    return COUNT_PROD("a tensor's elements", n->batch, t->c, t->h, t->w);
}

static int root_of(const cl_plan *p, int id) { return p->t[id].parent >= 0 ? p->t[id].parent : id; }

/* When each root tensor's gradient is live during backward: from its first
 * sender (the highest op reading it; the loss, nop, for the logits) down to
 * the lowest op writing it (which reads it as dy). */
static void liveness(cl_net *n)
{
    const cl_plan *p = n->p;
    for (int i = 0; i < p->nt; i++) n->live_lo[i] = p->nop + 1, n->live_hi[i] = -1;
    for (int i = 0; i < p->nop; i++) {
        const cl_op *o = &p->op[i];
        int r = root_of(p, o->out);
        if (i < n->live_lo[r]) n->live_lo[r] = i;
        int ins[2] = {o->in, o->in2};
        for (int j = 0; j < 2; j++)
            if (ins[j] >= 0 && i > n->live_hi[ins[j]]) n->live_hi[ins[j]] = i;
    }
    n->live_hi[p->logits] = p->nop;
}

/* Gradient buffers shared by tensors whose live intervals do not meet:
 * roots in the order backward reaches them take the smallest free buffer
 * that holds them, or a new one (at deepcam's size 0.9 GB instead of the
 * 6.5 GB of a buffer per tensor). */
static void alloc_grads(cl_net *n, int64_t ab)
{
    const cl_plan *p = n->p;
    int64_t *cap = XCALLOC((size_t)p->nt, sizeof *cap, "gradient buffers");
    int *until = XCALLOC((size_t)p->nt, sizeof *until, "gradient buffers");
    char *done = XCALLOC((size_t)p->nt, 1, "gradient buffers");
    for (;;) {
        int t = -1; /* the next root to become live: the highest live_hi left */
        for (int i = 0; i < p->nt; i++)
            if (!done[i] && p->t[i].parent < 0 && i != p->input && n->live_hi[i] >= 0 &&
                (t < 0 || n->live_hi[i] > n->live_hi[t]))
                t = i;
        if (t < 0) break;
        done[t] = 1;
        int64_t need = COUNT_PROD("bytes", elems(n, &p->t[t]), ab);
        int best = -1;
        for (int b = 0; b < n->ngbuf; b++) /* free: its tensor ended before t begins */
            if (until[b] > n->live_hi[t] && cap[b] >= need && (best < 0 || cap[b] < cap[best]))
                best = b;
        if (best < 0) {
            best = n->ngbuf++;
            cap[best] = need;
            n->gbuf[best] = grab(n, need);
        }
        until[best] = n->live_lo[t];
        n->dx[t] = n->gbuf[best];
    }
    free(cap);
    free(until);
    free(done);
}

static void alloc_all(cl_net *n)
{
    const cl_plan *p = n->p;
    int64_t ab = (int64_t)n->ops->act_bytes, most = 0, stats = 0;
    for (int i = 0; i < p->nt; i++) {
        const cl_tensor *t = &p->t[i];
        if (t->parent >= 0) continue;
        int64_t e = elems(n, t);
        n->x[i] = grab(n, COUNT_PROD("bytes", e, ab));
        if (t->accumulate && e > most) most = e;
    }
    liveness(n);
    alloc_grads(n, ab);
    n->scratch = grab(n, COUNT_PROD("bytes", most > 0 ? most : 1, ab));
    for (int i = 0; i < p->nop; i++)
        if (p->op[i].kind == CL_BN) {
            n->stat_off[i] = stats;
            stats += p->t[p->op[i].in].c;
        }
    n->mean = grab(n, COUNT_PROD("bytes", stats, 4));
    n->var = grab(n, COUNT_PROD("bytes", stats, 4));
    const cl_tensor *in = &p->t[p->input];
    int64_t pixels = COUNT_PROD("pixels", n->batch, in->h, in->w);
    n->label = grab(n, COUNT_PROD("bytes", pixels, 4));
    n->class_w = grab(n, 4 * CL_CLASSES);
    int64_t pb = COUNT_PROD("parameter bytes", p->params, 4);
    n->params = grab(n, pb);
    n->grads = grab(n, pb);
    n->wc = ab == 4 ? (void *)n->params : grab(n, COUNT_PROD("bytes", p->params, ab));
}

static cl_net *make(const cl_plan *p, const kern_ops *ops, void *ctx, int batch, int dry)
{
    cl_net *n = XCALLOC(1, sizeof *n, "climate network");
    n->p = p, n->ops = ops, n->ctx = ctx, n->batch = batch, n->dry = dry;
    n->x = XCALLOC((size_t)p->nt, sizeof *n->x, "tensor arrays");
    n->dx = XCALLOC((size_t)p->nt, sizeof *n->dx, "tensor arrays");
    n->stat_off = XCALLOC((size_t)p->nop, sizeof *n->stat_off, "statistics offsets");
    n->live_lo = XCALLOC((size_t)p->nt, sizeof *n->live_lo, "gradient liveness");
    n->live_hi = XCALLOC((size_t)p->nt, sizeof *n->live_hi, "gradient liveness");
    n->gbuf = XCALLOC((size_t)p->nt, sizeof *n->gbuf, "gradient buffers");
    alloc_all(n);
    return n;
}

cl_net *cl_net_create(const cl_plan *p, const kern_ops *ops, void *ctx, int batch, int dry,
                      char *err, size_t errlen)
{
    /* cl_bnsync's loops read and write the views on the host, in fp32 */
    CHECK(!p->bn || (ops->act_bytes == 4 && strcmp(ops->name, "cuda")),
          "--bn sync needs a CPU kernel set with fp32 activations, not '%s'", ops->name);
    cl_net *n = make(p, ops, ctx, batch, dry);
    if (n->failed) {
        snprintf(err, errlen, "a buffer of %.3g GB could not be allocated",
                 (double)n->failed_bytes / 1e9);
        cl_net_free(n);
        return NULL;
    }
    if (!dry) {
        const cl_cfg *c = &p->cfg;
        float w[CL_CLASSES] = {(float)c->w_background, (float)c->w_cyclone, (float)c->w_river};
        ops->h2d(ctx, n->class_w, w, sizeof w);
        n->label_host = XMALLOC((size_t)batch * (size_t)c->height * (size_t)c->width * 4,
                                "labels");
    }
    return n;
}

size_t cl_net_bytes_needed(const cl_plan *p, const kern_ops *ops, int batch)
{
    cl_net *n = make(p, ops, NULL, batch, 1);
    size_t b = n->bytes;
    cl_net_free(n);
    return b;
}

static void rel(cl_net *n, void *q)
{
    if (q && !n->dry) n->ops->release(n->ctx, q);
}

void cl_net_free(cl_net *n)
{
    if (!n) return;
    for (int i = 0; i < n->p->nt; i++) rel(n, n->x[i]);
    for (int b = 0; b < n->ngbuf; b++) rel(n, n->gbuf[b]);
    void *flat[] = {n->scratch, n->mean, n->var, n->label, n->class_w, n->params, n->grads};
    for (size_t i = 0; i < sizeof flat / sizeof *flat; i++) rel(n, flat[i]);
    if (n->wc != n->params) rel(n, n->wc);
    free(n->x);
    free(n->dx);
    free(n->stat_off);
    free(n->live_lo);
    free(n->live_hi);
    free(n->gbuf);
    free(n->label_host);
    free(n);
}

size_t cl_net_bytes(const cl_net *n) { return n->bytes; }

/* ---- views -------------------------------------------------------------------- */

/* Tensor id in the arrays arr (x or dx); a window is its channels of its parent's. */
static tview tv(const cl_net *n, int id, void *const *arr)
{
    const cl_tensor *t = &n->p->t[id];
    int root = t->parent >= 0 ? t->parent : id, ch0 = t->parent >= 0 ? t->ch0 : 0;
    const cl_tensor *r = &n->p->t[root];
    size_t plane = (size_t)t->h * (size_t)t->w;
    tview v = {.n = n->batch, .c = t->c, .h = t->h, .w = t->w,
               .sstride = (int64_t)r->c * (int64_t)plane};
    v.p = arr[root] ? (char *)arr[root] + (size_t)ch0 * plane * n->ops->act_bytes : NULL;
    return v;
}

/* The scratch buffer shaped as tensor id (dense). */
static tview scratch(const cl_net *n, int id)
{
    const cl_tensor *t = &n->p->t[id];
    return (tview){.p = n->scratch, .n = n->batch, .c = t->c, .h = t->h, .w = t->w,
                   .sstride = (int64_t)t->c * t->h * t->w};
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
    n->ops->put_f32(n->ctx, &in, input);
    const cl_cfg *c = &n->p->cfg;
    size_t pixels = (size_t)n->batch * (size_t)c->height * (size_t)c->width;
    for (size_t i = 0; i < pixels; i++) {
        CHECK(target[i] >= 0 && target[i] < CL_CLASSES, "pixel %zu has class %g", i,
              (double)target[i]);
        n->label_host[i] = (int32_t)target[i];
    }
    n->ops->h2d(n->ctx, n->label, n->label_host, pixels * sizeof *n->label_host);
}

static void op_fwd(cl_net *n, kc_t *kc, const cl_op *o)
{
    tview x = tv(n, o->in, n->x), y = tv(n, o->out, n->x);
    int c = x.c;
    switch (o->kind) {
    case CL_CONV:
        kc_dconv_fwd(kc, o->name, &x, wts(n, o, 0), &o->g, &y);
        if (o->bias) kc_bias_fwd(kc, o->name, &y, wts(n, o, o->count - y.c));
        break;
    case CL_TCONV: /* the data gradient of the convolution from y's shape to x's */
        kc_dconv_bwd_data(kc, o->name, &x, wts(n, o, 0), &o->g, &y);
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
    case CL_GPOOL: kc_gpool(kc, "gpool_fwd", o->name, &x, &y, 1.0f / ((float)x.h * x.w)); break;
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
    switch (o->kind) {
    case CL_CONV: {
        if (o->bias) kc_bias_bwd(kc, o->name, &dy, grd(n, o, o->count - dy.c));
        kc_dconv_bwd_weights(kc, o->name, &x, &dy, &o->g, grd(n, o, 0));
        if (ready) ready(user, o->layer, grd(n, o, 0), o->count);
        if (!want_dx) break;
        tview d = gdst(n, o->in, &add);
        kc_dconv_bwd_data(kc, o->name, &dy, wts(n, o, 0), &o->g, &d);
        gdone(n, kc, o, o->in, add, &d);
        break;
    }
    case CL_TCONV: { /* the convolution it transposes runs from dy's shape to x's */
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
        tview d = gdst(n, o->in, &add);
        kc_bcast(kc, "gpool_bwd", o->name, &dy, &d, 1.0f / ((float)x.h * x.w));
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
    kc_wce_bwd(kc, "loss", &z, n->label, n->class_w, &dz);
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

/* ---- parameters -------------------------------------------------------------- */

void cl_net_init_params(cl_net *n, uint64_t seed)
{
    if (n->dry) return;
    const cl_plan *p = n->p;
    float *host = XCALLOC((size_t)p->params, sizeof *host, "initial weights");
    for (int i = 0; i < p->nop; i++) {
        const cl_op *o = &p->op[i];
        float *w = host + o->off;
        int c = p->t[o->in].c;
        if (o->kind == CL_BN || o->kind == CL_AFFINE) {
            for (int j = 0; j < c; j++) w[j] = 1.0f; /* gamma 1, beta 0 */
            continue;
        }
        if (o->kind != CL_CONV && o->kind != CL_TCONV) continue;
        int64_t nw = o->count - (o->bias ? p->t[o->out].c : 0);
        /* He normal on the fan-in: a transposed convolution's output pixel
         * sees a quarter of its taps */
        double fan = o->kind == CL_TCONV ? c * 9.0 / 4.0
                                         : (double)(c / kern_dconv_groups(&o->g)) * o->g.k * o->g.k;
        double sd = sqrt((o->out == p->logits ? 1.0 : 2.0) / fan);
        rng_t r = rng_stream(seed, 0x434c5754ULL /* "CLWT" */, (uint64_t)o->layer, 0);
        for (int64_t j = 0; j < nw; j++) w[j] = (float)(sd * rng_normal(&r));
    }
    cl_net_set_params(n, host);
    free(host);
}

void cl_net_set_params(cl_net *n, const float *host)
{
    if (n->dry) return;
    n->ops->h2d(n->ctx, n->params, host, (size_t)n->p->params * sizeof(float));
    n->ops->cast_params(n->ctx, n->params, n->wc, n->p->params);
}

void cl_net_get_params(const cl_net *n, float *host)
{
    if (n->dry) return;
    n->ops->d2h(n->ctx, host, n->params, (size_t)n->p->params * sizeof(float));
}

void cl_net_param_arrays(const cl_net *n, net_params *p)
{
    p->master = n->params;
    p->compute = n->wc;
    p->grads = n->grads;
}
