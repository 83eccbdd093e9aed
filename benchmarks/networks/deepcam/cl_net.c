/* cl_net: the climate network's instance: its buffers (the activation
 * arrays, gradient buffers shared by liveness), their lifetime and the
 * parameters.  Forward and backward over them are cl_net_pass.c: apart
 * because they are the network's arithmetic and this file its memory, and
 * together they were over the project's ~400 lines a file. */
#include "benchmarks/networks/deepcam/cl_net.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/count.h"
#include "benchmarks/common/rng.h"
#include "benchmarks/networks/deepcam/cl_net_impl.h"
#include "benchmarks/networks/deepcam/cl_split.h"

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

/* a tensor's elements on this rank: its tile's rows under a split */
static int64_t elems(const cl_net *n, const cl_tensor *t)
{
    int id = (int)(t - n->p->t);
    return COUNT_PROD("a tensor's elements", n->batch, t->c, cl_rows(n, id), cl_cols(n, id));
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

/* A split's buffers: the halo convolutions' padded input and output (the
 * largest of each), the exchange's staging (counted in the network's bytes
 * as the set memory it is), the backward's class weights. */
static void alloc_split(cl_net *n, int64_t ab)
{
    const cl_plan *p = n->p;
    int64_t in = 1, out = 1, side = 1;
    for (int i = 0; i < p->nop; i++) {
        const int *a = n->halo + 2 * i;
        if (!a[0] && !a[1]) continue;
        const cl_op *o = &p->op[i];
        const cl_tensor *x = &p->t[o->in], *y = &p->t[o->out];
        int th = cl_rows(n, o->in), tw = cl_cols(n, o->in);
        int gather = a[0] > th || a[1] > tw; /* the whole map (cl_split_gathers) */
        int hp = gather ? x->h : th + 2 * a[0], wp = gather ? x->w : tw + 2 * a[1];
        int ho = o->kind == CL_TCONV ? 2 * hp : kern_dconv_out(hp, &o->g);
        int wo = o->kind == CL_TCONV ? 2 * wp : kern_dconv_out(wp, &o->g);
        int64_t e = COUNT_PROD("padded elements", n->batch, x->c, hp, wp);
        int64_t f = COUNT_PROD("padded elements", n->batch, y->c, ho, wo);
        /* the largest message: along H the padded width, along W the own rows */
        int64_t gh = COUNT_PROD("halo elements", n->batch, x->c, a[0], wp);
        int64_t gw = COUNT_PROD("halo elements", n->batch, x->c, th, a[1]);
        int64_t g = gather ? 1 : gh > gw ? gh : gw;
        in = e > in ? e : in, out = f > out ? f : out, side = g > side ? g : side;
    }
    n->pin = grab(n, COUNT_PROD("bytes", in, ab));
    n->pout = grab(n, COUNT_PROD("bytes", out, ab));
    n->class_wb = grab(n, 4 * CL_CLASSES);
    char err[160];
    if (!n->failed &&
        sp_xchg_init(&n->xchg, p->group, n->ops, n->ctx, n->dry || !p->group, side, err,
                     sizeof err))
        n->failed = 1, n->failed_bytes = (size_t)COUNT_PROD("bytes", side, 4 * ab);
    int64_t total;
    CHECK(count_add((int64_t)n->bytes, COUNT_PROD("bytes", side, 4 * ab), &total) == 0,
          "the network's bytes overflow");
    n->bytes = (size_t)total;
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
    int64_t pixels = COUNT_PROD("pixels", n->batch, cl_rows(n, p->input), cl_cols(n, p->input));
    n->label = grab(n, COUNT_PROD("bytes", pixels, 4));
    n->class_w = grab(n, 4 * CL_CLASSES);
    if (n->S > 1) alloc_split(n, ab);
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
    int s[2];
    cl_split_grid(p, s);
    n->sh = s[0], n->sw = s[1], n->S = s[0] * s[1];
    n->srank = p->group ? p->group->rank : 0;
    n->rh = n->srank / n->sw, n->rw = n->srank % n->sw;
    n->whole = XCALLOC((size_t)p->nt, 1, "split tensors");
    n->halo = XCALLOC((size_t)p->nop * 2, sizeof *n->halo, "split halos");
    cl_split_whole(p, n->whole);
    for (int i = 0; i < p->nop; i++)
        for (int ax = 0; ax < 2; ax++) n->halo[2 * i + ax] = cl_split_halo(p, i, s, ax);
    alloc_all(n);
    return n;
}

cl_net *cl_net_create(const cl_plan *p, const kern_ops *ops, void *ctx, int batch, int dry,
                      char *err, size_t errlen)
{
    /* cl_bnsync's loops read and write the views on the host, in fp32 */
    CHECK(!p->bn || (ops->act_bytes == 4 && strcmp(ops->name, "cuda")),
          "--bn sync needs a CPU kernel set with fp32 activations, not '%s'", ops->name);
    /* a split's batch norm must see the whole sample: the group's sums */
    CHECK(dry || cl_split_of(p) == 1 || (p->bn && p->group),
          "--spatial %s needs its group and batch norm synchronised over it", p->cfg.spatial);
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
        if (n->S > 1) {
            /* the gradient of the sample's mean loss is 1/S of the tile's mean's */
            for (int k = 0; k < CL_CLASSES; k++) w[k] /= (float)n->S;
            ops->h2d(ctx, n->class_wb, w, sizeof w);
            n->host_tile = XMALLOC((size_t)batch * (size_t)c->channels *
                                       (size_t)cl_rows(n, p->input) *
                                       (size_t)cl_cols(n, p->input) * 4,
                                   "the input tile");
        }
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
    void *flat[] = {n->scratch, n->mean,  n->var,  n->label, n->class_w,
                    n->params,  n->grads, n->pin,  n->pout,  n->class_wb};
    if (n->S > 1) sp_xchg_free(&n->xchg);
    for (size_t i = 0; i < sizeof flat / sizeof *flat; i++) rel(n, flat[i]);
    if (n->wc != n->params) rel(n, n->wc);
    free(n->x);
    free(n->dx);
    free(n->stat_off);
    free(n->live_lo);
    free(n->live_hi);
    free(n->gbuf);
    free(n->label_host);
    free(n->host_tile);
    free(n->whole);
    free(n->halo);
    free(n);
}

size_t cl_net_bytes(const cl_net *n) { return n->bytes; }

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
