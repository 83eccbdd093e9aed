#include "benchmarks/cosmoflow/model/cf_net.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/rng.h"

/* ---- allocation ------------------------------------------------------------- */

typedef struct {
    cf_net *n;
    int failed;
    size_t failed_bytes;
} grab_t;

static void *grab(grab_t *g, size_t bytes)
{
    cf_net *n = g->n;
    n->bytes += bytes;
    if (n->dry || g->failed) return NULL;
    CHECK(n->nallocs < (int)(sizeof n->allocs / sizeof *n->allocs), "too many buffers");
    void *p = n->ops->alloc(n->ctx, bytes ? bytes : 1);
    if (!p) {
        g->failed = 1;
        g->failed_bytes = bytes;
        return NULL;
    }
    n->allocs[n->nallocs++] = p;
    return p;
}

/* A dense channels-last buffer of n samples, c channels, extents e (+ 2 pad). */
static t3view vol(grab_t *g, int c, const int e[3], int pad)
{
    cf_net *n = g->n;
    t3view v = {.n = n->batch, .c = c, .d = e[0] + 2 * pad, .h = e[1] + 2 * pad, .w = e[2] + 2 * pad};
    v.sc = 1, v.sw = c, v.sh = (int64_t)c * v.w, v.sd = v.sh * v.h, v.sn = v.sd * v.d;
    v.p = grab(g, (size_t)v.sn * v.n * n->esz);
    return v;
}

static void layout(cf_net *n, grab_t *g)
{
    const cf_plan *p = n->p;
    int B = p->cfg.blocks;
    n->master = grab(g, (size_t)p->params * sizeof(float));
    n->grads = grab(g, (size_t)p->params * sizeof(float));
    n->wc = n->esz == sizeof(float) ? (void *)n->master : grab(g, (size_t)p->params * n->esz);
    for (int l = 0; l < B; l++) {
        const cf_layer *L = &p->layers[l];
        int e[3];
        for (int a = 0; a < 3; a++) e[a] = cf_part_extent(p, n->pt, a, l);
        n->xp[l] = vol(g, L->ci, e, L->halo);
        n->y[l] = vol(g, L->co, e, 0);
        n->dy[l] = vol(g, L->co, e, 0);
        if (l > 0) {
            n->dyp[l] = vol(g, L->co, e, L->halo);
            n->dx[l] = vol(g, L->ci, e, 0);
        }
    }
    int u[3] = {n->pt->units[0], n->pt->units[1], n->pt->units[2]};
    n->feat = vol(g, p->feat_c, u, 0);
    n->dfeat = vol(g, p->feat_c, u, 0);
    if (n->pt->ranks_per_sample == 1) {
        n->fin = n->feat;
        n->dfin = n->dfeat;
    } else {
        int U[3] = {p->units, p->units, p->units};
        n->fin = vol(g, p->feat_c, U, 0);
        n->dfin = vol(g, p->feat_c, U, 0);
        size_t gb = (size_t)n->batch * p->flat * n->esz;
        n->gather_dev = n->host ? NULL : grab(g, gb);
        n->bytes += gb;
        if (!n->dry && !g->failed) {
            n->gather_host = malloc(gb);
            if (!n->gather_host) g->failed = 1, g->failed_bytes = gb;
        }
    }
    const cf_cfg *c = &p->cfg;
    size_t nb = (size_t)n->batch * n->esz;
    n->a1 = grab(g, nb * c->dense1), n->da1 = grab(g, nb * c->dense1);
    n->a2 = grab(g, nb * c->dense2), n->da2 = grab(g, nb * c->dense2);
    n->out = grab(g, nb * c->targets), n->dout = grab(g, nb * c->targets);
    n->tgt = grab(g, nb * c->targets);
    int e0[3];
    for (int a = 0; a < 3; a++) e0[a] = cf_part_extent(p, n->pt, a, 0);
    n->in_stage = vol(g, c->channels, e0, 0);
}

/* The largest halo face of any exchange, in elements (channels x samples). */
static int64_t max_face(const cf_net *n)
{
    int64_t m = 0;
    for (int l = 0; l < n->p->cfg.blocks; l++) {
        const cf_layer *L = &n->p->layers[l];
        int64_t c = L->ci > L->co ? L->ci : L->co;
        for (int a = 0; a < 3; a++) {
            int64_t f = cf_halo_face_elems(n->p, n->pt, a, l) * c * n->batch;
            if (f > m) m = f;
        }
    }
    return m;
}

cf_net *cf_net_create(const cf_model *m, const kern_ops *ops, void *ctx, int batch, int dry,
                      char *err, size_t errlen)
{
    cf_net *n = XCALLOC(1, sizeof *n, "CosmoFlow instance");
    n->m = m, n->p = &m->plan, n->pt = &m->part;
    n->ops = ops, n->ctx = ctx, n->batch = batch, n->dry = dry;
    n->esz = ops->act_bytes;
    /* the CPU sets share kern_host.c's members: their buffers are host memory */
    n->host = ops->h2d == kern_ref_ops()->h2d;
    grab_t g = {.n = n};
    layout(n, &g);
    if (!dry && !g.failed && m->comm.cart != MPI_COMM_NULL &&
        cf_halo_init(&n->halo, &m->comm, ops, ctx, n->host, n->p->halo, max_face(n), err, errlen)) {
        cf_net_free(n);
        return NULL;
    }
    /* dropout's masks: host loops (cf_validate keeps the recipe on the cpu
     * backend, whose sets' memory is the host's) */
    if (!dry && !g.failed && m->plan.cfg.dropout > 0) {
        n->mask1 = malloc((size_t)batch * m->plan.cfg.dense1 * sizeof(float));
        n->mask2 = malloc((size_t)batch * m->plan.cfg.dense2 * sizeof(float));
        if (!n->mask1 || !n->mask2) g.failed = 1, g.failed_bytes = (size_t)batch * m->plan.cfg.dense1 * 4;
    }
    if (g.failed) {
        snprintf(err, errlen, "cannot allocate a buffer of %.3g GB", (double)g.failed_bytes / 1e9);
        cf_net_free(n);
        return NULL;
    }
    return n;
}

void cf_net_free(cf_net *n)
{
    if (!n) return;
    if (n->halo.ops) cf_halo_free(&n->halo);
    for (int i = 0; i < n->nallocs; i++) n->ops->release(n->ctx, n->allocs[i]);
    free(n->gather_host);
    free(n->mask1);
    free(n->mask2);
    free(n);
}

size_t cf_net_bytes(const cf_net *n) { return n->bytes; }

size_t cf_net_bytes_needed(const cf_model *m, const kern_ops *ops, int batch)
{
    char err[64];
    cf_net *n = cf_net_create(m, ops, NULL, batch, 1, err, sizeof err);
    size_t b = n ? n->bytes : 0;
    cf_net_free(n);
    return b;
}

/* ---- parameters --------------------------------------------------------------- */

void cf_net_init_params(cf_net *n, uint64_t seed)
{
    if (n->dry) return;
    const cf_plan *p = n->p;
    float *host = XCALLOC((size_t)p->params, sizeof *host, "initial weights");
    for (int i = 0; i < p->nlayers; i++) {
        const cf_layer *L = &p->layers[i];
        int64_t rf = L->kind == CF_CONV ? (int64_t)L->k * L->k * L->k : 1;
        double limit = sqrt(6.0 / (double)(rf * (L->ci + L->co)));
        rng_t r = rng_stream(seed, 0x434F534D4FULL /* "COSMO" */, (uint64_t)i, 0);
        for (int64_t j = 0; j < L->nw; j++)
            host[L->off_w + j] = (float)(limit * (2 * rng_uniform(&r) - 1));
    }
    cf_net_set_params(n, host);
    free(host);
}

void cf_net_set_params(cf_net *n, const float *host)
{
    if (n->dry) return;
    n->ops->h2d(n->ctx, n->master, host, (size_t)n->p->params * sizeof(float));
    n->ops->cast_params(n->ctx, n->master, n->wc, n->p->params);
}

void cf_net_get_params(const cf_net *n, float *host)
{
    if (n->dry) return;
    n->ops->d2h(n->ctx, host, n->master, (size_t)n->p->params * sizeof(float));
}

void cf_net_grads_to_host(const cf_net *n, float *host)
{
    if (n->dry) return;
    n->ops->d2h(n->ctx, host, n->grads, (size_t)n->p->params * sizeof(float));
}

/* ---- the batch --------------------------------------------------------------- */

void cf_net_load(cf_net *n, const float *input, const float *target)
{
    if (n->dry) return;
    const cf_cfg *c = &n->p->cfg;
    /* put_f32 takes a view of dense samples: one "channel" row per sample */
    t3view *s = &n->in_stage;
    tview flat = {s->p, n->batch, 1, 1, (int)(s->sn), s->sn};
    n->ops->put_f32(n->ctx, &flat, input);
    t3view into = cf_interior(&n->xp[0], n->p->layers[0].halo, n->esz);
    n->ops->copy3d(n->ctx, s, &into);
    tview tg = {n->tgt, n->batch, 1, 1, c->targets, c->targets};
    n->ops->put_f32(n->ctx, &tg, target);
}
