/* net: the FC-DenseNet instance: its buffers (what a spatial split adds:
 * net_split.c), their lifetime and the parameters.  The forward and backward
 * passes over these buffers are net_pass.c: apart because they are the
 * network's arithmetic and this file its memory, and together they were
 * over the project's ~400 lines a file. */
#include "benchmarks/networks/fcdensenet/net.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/count.h"
#include "benchmarks/common/rng.h"
#include "benchmarks/networks/fcdensenet/net_impl.h"

/* ---- allocation ------------------------------------------------------------ */

void *net_grab(alloc_t *a, size_t bytes)
{
    int64_t total;
    CHECK(count_add((int64_t)a->n->bytes, (int64_t)bytes, &total) == 0,
          "the network's bytes overflow 64 bits: cfg_validate should have refused it");
    a->n->bytes = (size_t)total;
    if (a->n->dry || a->failed) return NULL;
    void *p = a->n->ops->alloc(a->n->ctx, bytes);
    if (!p) {
        a->failed = 1;
        a->failed_bytes = bytes;
    }
    return p;
}

/* which: bit 1 = x, 2 = r, 4 = dx, 8 = dr */
void net_buf_alloc_n(alloc_t *a, nbuf *b, int samples, int c, int h, int w, int which)
{
    size_t bytes = (size_t)COUNT_PROD("a buffer's bytes", samples, c, h, w,
                                      (int64_t)a->n->ops->act_bytes);
    b->c = c, b->h = h, b->w = w, b->n = samples;
    if (which & 1) b->x = net_grab(a, bytes);
    if (which & 2) b->r = net_grab(a, bytes);
    if (which & 4) b->dx = net_grab(a, bytes);
    if (which & 8) b->dr = net_grab(a, bytes);
    b->hp = h;
    b->wp = w;
}

void net_buf_alloc(alloc_t *a, nbuf *b, int c, int h, int w, int which)
{
    net_buf_alloc_n(a, b, a->n->batch, c, h, w, which);
}

/* Level l's buffers of a split: H tiles of the batch below the plan's K,
 * whole samples (batch / S each) from K on. */
static void level_alloc(alloc_t *a, nbuf *b, int l, int c, int which_split, int which_whole)
{
    net_t *n = a->n;
    const plan_t *p = n->plan;
    if (l < n->K) {
        net_buf_alloc(a, b, c, p->level_h[l] / n->Sh, p->level_w[l] / n->Sw, which_split);
        b->sp = n->S > 1 && which_split != which_whole;
    } else {
        net_buf_alloc_n(a, b, n->batch / n->S, c, p->level_h[l], p->level_w[l], which_whole);
    }
}

static void buf_release(net_t *n, nbuf *b)
{
    void *all[4] = {b->x, b->r, b->dx, b->dr};
    for (int i = 0; i < 4; i++)
        if (all[i]) n->ops->release(n->ctx, all[i]);
}

static void alloc_all(alloc_t *a)
{
    net_t *n = a->n;
    const plan_t *p = n->plan;
    const cfg_t *c = &p->cfg;
    int L = c->levels, g = c->growth;
    int S = n->S, blk = S > 1 ? 5 : 15; /* a split's blocks: r and dr padded (nsp_alloc) */
    int th = c->height / n->Sh, tw = c->width / n->Sw;
    net_buf_alloc(a, &n->in, c->c_in, th, tw, 1);
    for (int i = 0; i < L; i++) {
        level_alloc(a, &n->down[i], i, p->down_c0[i] + c->down[i] * g, blk, 15);
        level_alloc(a, &n->tdpre[i], i, c->td[i], 5, 5);
    }
    level_alloc(a, &n->bott, L, p->bott_c0 + c->bottleneck * g, blk, 15);
    for (int j = 0; j < L; j++)
        level_alloc(a, &n->up[j], L - 1 - j, p->up_c0[j] + c->up[j] * g, blk, 15);
    net_buf_alloc(a, &n->out, c->c_out, th, tw, 5);
    net_buf_alloc(a, &n->target, c->c_out, th, tw, 1);
    net_buf_alloc(a, &n->dinit, c->f0, th, tw, 4);
    size_t pb = (size_t)COUNT_PROD("parameter bytes", p->params, (int64_t)sizeof(float));
    n->params = net_grab(a, pb);
    n->grads = net_grab(a, pb);
    n->wc = n->ops->act_bytes == sizeof(float) ? n->params
                 : net_grab(a, (size_t)COUNT_PROD("parameter bytes", p->params,
                                              (int64_t)n->ops->act_bytes));
    if (S > 1) nsp_alloc(a);
}

net_t *net_create(const plan_t *p, const kern_ops *ops, void *ctx, int batch, int dry, char *err,
                  size_t errlen)
{
    net_t *n = XCALLOC(1, sizeof *n, "network");
    n->plan = p;
    n->ops = ops;
    n->ctx = ctx;
    n->batch = batch;
    n->dry = dry;
    nsp_setup(n);
    alloc_t a = {.n = n};
    alloc_all(&a);
    if (!a.failed && n->S > 1 && nsp_open(n, err, errlen)) {
        net_free(n);
        return NULL;
    }
    if (a.failed) {
        snprintf(err, errlen, "a buffer of %.3g GB could not be allocated",
                 (double)a.failed_bytes / 1e9);
        net_free(n);
        return NULL;
    }
    return n;
}

size_t net_bytes_needed(const plan_t *p, const kern_ops *ops, int batch)
{
    net_t n = {.plan = p, .ops = ops, .batch = batch, .dry = 1};
    nsp_setup(&n);
    alloc_t a = {.n = &n};
    alloc_all(&a);
    return n.bytes;
}

void net_free(net_t *n)
{
    if (!n) return;
    nsp_release(n);
    if (!n->dry) {
        nbuf *bufs[] = {&n->in, &n->out, &n->target, &n->dinit, &n->bott};
        for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) buf_release(n, bufs[i]);
        for (int i = 0; i < n->plan->cfg.levels; i++) {
            buf_release(n, &n->down[i]);
            buf_release(n, &n->tdpre[i]);
            buf_release(n, &n->up[i]);
        }
        void *flat[] = {n->params, n->grads};
        for (size_t i = 0; i < 2; i++)
            if (flat[i]) n->ops->release(n->ctx, flat[i]);
        if (n->wc && n->wc != n->params) n->ops->release(n->ctx, n->wc);
    }
    free(n);
}

size_t net_bytes(const net_t *n) { return n->bytes; }

/* ---- parameters -------------------------------------------------------------- */

void net_init_params(net_t *n, uint64_t seed)
{
    if (n->dry) return;
    const plan_t *p = n->plan;
    float *host = XCALLOC((size_t)p->params, sizeof *host, "initial weights");
    for (int i = 0; i < p->n; i++) {
        const plan_layer *l = &p->layers[i];
        /* dense layers read ReLU'd maps (He); the others read raw values (LeCun) */
        int relu_fed = strstr(l->name, ".l") != NULL;
        int64_t fan_in = (int64_t)l->c_in * l->k * l->k;
        double sd = sqrt((relu_fed ? 2.0 : 1.0) / (double)fan_in);
        rng_t r = rng_stream(seed, 0x5745494748ULL /* "WEIGH" */, (uint64_t)i, 0);
        for (int64_t j = 0; j < l->weights; j++) host[l->off_w + j] = (float)(sd * rng_normal(&r));
    }
    net_set_params(n, host);
    free(host);
}

void net_set_params(net_t *n, const float *host)
{
    if (n->dry) return;
    size_t pb = (size_t)n->plan->params * sizeof(float);
    n->ops->h2d(n->ctx, n->params, host, pb);
    n->ops->cast_params(n->ctx, n->params, n->wc, n->plan->params);
}

void net_get_params(const net_t *n, float *host)
{
    if (n->dry) return;
    n->ops->d2h(n->ctx, host, n->params, (size_t)n->plan->params * sizeof(float));
}

void *net_grads(const net_t *n) { return n->grads; }

void net_param_arrays(const net_t *n, net_params *p)
{
    p->master = n->params;
    p->compute = n->wc;
    p->grads = n->grads;
}

void net_get_output(const net_t *n, float *host)
{
    if (n->dry) return;
    tview out = net_view(n, &n->out, n->out.x, 0, n->plan->cfg.c_out);
    n->ops->get_f32(n->ctx, &out, host);
}
