#include "benchmarks/modelpar/mp_net.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/rng.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/modelpar/mp_halo.h"
#include "benchmarks/modelpar/mp_net_impl.h"
#include "benchmarks/modelpar/mp_pair.h"
#include "benchmarks/modelpar/mp_stats.h"


static float *take(mp_net *n, int64_t floats, int *ok)
{
    n->bytes += (size_t)floats * sizeof(float);
    if (n->dry || !*ok) return NULL;
    float *p = n->ops->alloc(n->ctx, (size_t)floats * sizeof(float));
    if (!p) *ok = 0;
    return p;
}

static int64_t a_floats(const mp_geom *g, int n, int l)
{
    const mp_layer *L = &g->layer[l];
    return (int64_t)n * (g->th + 2 * L->pad) * (g->tw + 2 * L->pad) * L->ci;
}

void *mp_net_create(const void *model, const kern_ops *ops, void *ctx, int batch, int dry,
                    char *err, size_t errlen)
{
    const mp_model *m = model;
    const mp_geom *g = &m->g;
    mp_net *n = XCALLOC(1, sizeof *n, "modelpar instance");
    n->m = m, n->ops = ops, n->ctx = ctx, n->n = batch, n->dry = dry;
    if (!dry && m->st) m->st->base_rss_bytes = mp_stats_rss_bytes("VmRSS:");
    int ok = 1;
    int64_t maxco = 0, maxin = 0;
    n->master = take(n, g->params_rank, &ok);
    n->grads = take(n, g->params_rank, &ok);
    for (int l = 0; l < MP_LAYERS; l++) {
        const mp_layer *L = &g->layer[l];
        n->A[l] = take(n, a_floats(g, batch, l), &ok);
        if (l > 0) n->dA[l] = take(n, a_floats(g, batch, l), &ok);
        n->Z[l] = take(n, g->tile * batch * L->co, &ok);
        if (L->co > maxco) maxco = L->co;
        if (L->in > maxin) maxin = L->in;
    }
    n->target = take(n, g->tile * batch * g->cfg.channels, &ok);
    n->dZ = take(n, g->tile * batch * maxco, &ok);
    n->patch = take(n, batch * maxin, &ok);
    n->dpatch = take(n, batch * maxin, &ok);
    int64_t stage = mp_geom_stage_floats(g, batch);
    n->send = take(n, stage, &ok);
    n->recv = take(n, stage, &ok);
    if (g->cfg.sparsity > 0) {
        int64_t code = g->tile * batch * g->cfg.hidden2;
        n->zeros = take(n, code, &ok);
        n->sg = take(n, code, &ok);
        n->sg2 = take(n, code, &ok);
        n->lam = take(n, 1, &ok);
        if (n->lam) *n->lam = (float)(g->cfg.sparsity * (double)g->tile);
    }
    if (g->dslice) {
        int64_t rows = g->positions * batch;
        n->X = take(n, rows * g->cfg.hidden2, &ok);
        n->Yp = take(n, rows * g->cfg.hidden2, &ok);
        n->H = take(n, rows * g->dslice, &ok);
        n->dH = take(n, rows * g->dslice, &ok);
        n->U = take(n, g->tile * batch * g->cfg.hidden2, &ok);
    }
    if (!ok) {
        snprintf(err, errlen, "cannot allocate %zu bytes of buffers", n->bytes);
        mp_net_free(n);
        return NULL;
    }
    if (!dry && m->st) m->st->alloc_bytes = (int64_t)n->bytes;
    return n;
}

void mp_net_free(void *inst)
{
    mp_net *n = inst;
    if (!n) return;
    float **all[] = {&n->master, &n->grads, &n->target, &n->dZ, &n->patch, &n->dpatch, &n->send,
                     &n->recv,   &n->X,     &n->Yp,     &n->H,  &n->dH,    &n->U,
                     &n->zeros,  &n->sg,    &n->sg2,    &n->lam};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (*all[i]) n->ops->release(n->ctx, *all[i]);
    for (int l = 0; l < MP_LAYERS; l++) {
        if (n->A[l]) n->ops->release(n->ctx, n->A[l]);
        if (n->dA[l]) n->ops->release(n->ctx, n->dA[l]);
        if (n->Z[l]) n->ops->release(n->ctx, n->Z[l]);
    }
    free(n);
}

size_t mp_net_bytes(const void *inst) { return ((const mp_net *)inst)->bytes; }

size_t mp_net_bytes_needed(const void *model, const kern_ops *ops, int batch)
{
    (void)ops;
    return (size_t)mp_geom_bytes(&((const mp_model *)model)->g, batch);
}

void mp_net_params(const void *inst, net_params *p)
{
    const mp_net *n = inst;
    p->master = n->master;
    p->compute = n->master;
    p->grads = n->grads;
}

/* Weights of a position depend on the seed, the layer and the position in
 * the whole image only, so that every partition starts from the same model. */
void mp_net_init_params(void *inst, uint64_t seed)
{
    mp_net *n = inst;
    const mp_geom *g = &n->m->g;
    for (int l = 0; l < MP_LAYERS; l++) {
        const mp_layer *L = &g->layer[l];
        double a = 1.0 / sqrt((double)L->in);
        int64_t per = (int64_t)L->co * L->in;
        for (int64_t t = 0; t < g->tile; t++) {
            int64_t y = g->ty * g->th + t / g->tw, x = g->tx * g->tw + t % g->tw;
            rng_t r = rng_stream(seed, 0x10CA1u + (uint64_t)l, (uint64_t)(y * g->cfg.size + x), 0);
            float *w = n->master + L->off_w + t * per;
            for (int64_t j = 0; j < per; j++) w[j] = (float)((2 * rng_uniform(&r) - 1) * a);
            memset(n->master + L->off_b + t * L->co, 0, (size_t)L->co * sizeof(float));
        }
    }
    /* the pair: hidden unit j's row of tp1 and column of tp2, whoever holds it */
    int h2 = g->cfg.hidden2, ds = g->dslice;
    for (int j = 0; j < ds; j++) {
        int64_t gj = (int64_t)g->shard * ds + j;
        rng_t r1 = rng_stream(seed, 0x7E1, (uint64_t)gj, 0), r2 = rng_stream(seed, 0x7E2, (uint64_t)gj, 0);
        for (int i = 0; i < h2; i++) {
            n->master[g->off_tp1 + (int64_t)j * h2 + i] =
                (float)((2 * rng_uniform(&r1) - 1) / sqrt((double)h2));
            n->master[g->off_tp2 + (int64_t)i * ds + j] =
                (float)((2 * rng_uniform(&r2) - 1) / sqrt((double)g->cfg.dense));
        }
    }
}

void mp_net_get_params(const void *inst, float *host)
{
    const mp_net *n = inst;
    memcpy(host, n->master, (size_t)n->m->g.params_rank * sizeof *host);
}

void mp_net_set_params(void *inst, const float *host)
{
    mp_net *n = inst;
    memcpy(n->master, host, (size_t)n->m->g.params_rank * sizeof *host);
}

/* The tile and its halo of the whole image (zeros outside it), and the
 * target (the tile itself) position-major [tile][n][c]. */
void mp_net_load(void *inst, const float *input, const float *target)
{
    (void)target;
    mp_net *n = inst;
    const mp_geom *g = &n->m->g;
    int S = g->cfg.size, C = g->cfg.channels, p = g->layer[0].pad;
    int Hp = g->th + 2 * p, Wp = g->tw + 2 * p;
    for (int i = 0; i < n->n; i++)
        for (int r = 0; r < Hp; r++)
            for (int c = 0; c < Wp; c++) {
                int y = g->ty * g->th + r - p, x = g->tx * g->tw + c - p;
                float *q = n->A[0] + (((size_t)i * Hp + r) * Wp + c) * C;
                const float *s = input + (((size_t)i * S + y) * S + x) * C;
                int in = y >= 0 && y < S && x >= 0 && x < S;
                for (int k = 0; k < C; k++) q[k] = in ? s[k] : 0.0f;
                if (in && r >= p && r < p + g->th && c >= p && c < p + g->tw) {
                    int64_t t = (int64_t)(r - p) * g->tw + (c - p);
                    memcpy(n->target + (t * n->n + i) * C, s, (size_t)C * sizeof *s);
                }
            }
}

/* Views: a position's receptive field in A[l], a patch, a position's row of Z. */
static t3view field(const mp_net *n, int l, int64_t t, float *base)
{
    const mp_geom *g = &n->m->g;
    const mp_layer *L = &g->layer[l];
    int k = g->cfg.kernel, Wp = g->tw + 2 * L->pad, Hp = g->th + 2 * L->pad;
    int64_t y = t / g->tw, x = t % g->tw;
    return (t3view){.p = base ? base + (y * Wp + x) * L->ci : NULL, .n = n->n, .c = L->ci, .d = 1, .h = k,
                    .w = k, .sn = (int64_t)Hp * Wp * L->ci, .sc = 1, .sd = 0,
                    .sh = (int64_t)Wp * L->ci, .sw = L->ci};
}

static t3view patchv(const mp_net *n, int l, float *p)
{
    const mp_layer *L = &n->m->g.layer[l];
    int k = n->m->g.cfg.kernel;
    return (t3view){.p = p, .n = n->n, .c = L->ci, .d = 1, .h = k, .w = k, .sn = L->in, .sc = 1,
                    .sd = 0, .sh = (int64_t)k * L->ci, .sw = L->ci};
}

static t3view rowv(const mp_net *n, int co, float *p)
{
    return (t3view){.p = p, .n = n->n, .c = co, .d = 1, .h = 1, .w = 1, .sn = co, .sc = 1,
                    .sd = co, .sh = co, .sw = co};
}

/* The interior of A[l] (or dA[l]) against a position-major [tile][n][c] buffer. */
static void interior(const mp_net *n, int l, float *buf, float *pm, t3view *a, t3view *b)
{
    const mp_geom *g = &n->m->g;
    const mp_layer *L = &g->layer[l];
    int Wp = g->tw + 2 * L->pad, Hp = g->th + 2 * L->pad, c = L->ci;
    *a = (t3view){.p = buf ? buf + ((int64_t)L->pad * Wp + L->pad) * c : NULL, .n = n->n, .c = c, .d = 1,
                  .h = g->th, .w = g->tw, .sn = (int64_t)Hp * Wp * c, .sc = 1, .sd = 0,
                  .sh = (int64_t)Wp * c, .sw = c};
    *b = (t3view){.p = pm, .n = n->n, .c = c, .d = 1, .h = g->th, .w = g->tw, .sn = c, .sc = 1,
                  .sd = 0, .sh = (int64_t)g->tw * n->n * c, .sw = (int64_t)n->n * c};
}

static mp_halo_buf hbuf(const mp_net *n, int l, float *p)
{
    const mp_geom *g = &n->m->g;
    return (mp_halo_buf){.p = p, .n = n->n, .th = g->th, .tw = g->tw,
                         .pad = g->layer[l].pad, .c = g->layer[l].ci};
}

static void exchange(mp_net *n, kc_t *kc, int l, int backward)
{
    if (kc->dry || n->m->g.M == 1) return;
    double t0 = timer_now_s();
    mp_halo_buf b = hbuf(n, l, backward ? n->dA[l] : n->A[l]);
    if (backward) mp_halo_backward(n->m, &b, n->send, n->recv, &n->halo_bytes, &n->halo_msgs);
    else mp_halo_forward(n->m, &b, n->send, n->recv, &n->halo_bytes, &n->halo_msgs);
    n->halo_s += timer_now_s() - t0;
}

double mp_net_forward(void *inst, kc_t *kc)
{
    mp_net *n = inst;
    const mp_geom *g = &n->m->g;
    n->halo_s = 0, n->tp_s = 0, n->halo_bytes = 0, n->halo_msgs = 0, n->tp_bytes = 0;
    double loss = 0;
    for (int l = 0; l < MP_LAYERS; l++) {
        const mp_layer *L = &g->layer[l];
        if (l > 0) exchange(n, kc, l, 0);
        int64_t per = (int64_t)L->co * L->in;
        for (int64_t t = 0; t < g->tile; t++) {
            t3view src = field(n, l, t, n->A[l]), dst = patchv(n, l, n->patch);
            kc_copy3d(kc, "gather", L->name, &src, &dst);
            float *z = n->Z[l] ? n->Z[l] + t * n->n * L->co : NULL;
            kc_dense_fwd(kc, L->name, n->patch, n->master ? n->master + L->off_w + t * per : NULL,
                         n->n, L->in, L->co, z);
            t3view zv = rowv(n, L->co, z);
            kc_bias3d_fwd(kc, L->name, &zv, n->master ? n->master + L->off_b + t * L->co : NULL);
        }
        if (l < MP_LAYERS - 1) {
            t3view all = {.p = n->Z[l], .n = (int)(g->tile * n->n), .c = L->co, .d = 1, .h = 1,
                          .w = 1, .sn = L->co, .sc = 1, .sd = L->co, .sh = L->co, .sw = L->co};
            kc_lrelu_fwd(kc, L->name, &all, &all, (float)g->cfg.slope);
            float *out = n->Z[l];
            if (l == 1) loss += mp_sparsity_forward(n, kc, out);
            if (l == 1 && g->dslice) mp_pair_forward(n, kc, out), out = n->U;
            t3view a, b;
            interior(n, l + 1, n->A[l + 1], out, &a, &b);
            kc_copy3d(kc, "scatter", L->name, &b, &a);
        } else {
            int64_t cnt = (int64_t)n->n * L->co;
            for (int64_t t = 0; t < g->tile; t++)
                loss += kc_mse_fwd(kc, "loss", n->Z[l] ? n->Z[l] + t * cnt : NULL,
                                   n->target ? n->target + t * cnt : NULL, cnt);
        }
    }
    /* the model group's loss: the sum over its tiles (every rank returns it) */
    if (!kc->dry && n->m->mpi && g->M > 1)
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &loss, 1, MPI_DOUBLE, MPI_SUM, n->m->group));
    return loss;
}

void mp_net_backward(void *inst, kc_t *kc, net_grad_ready_fn ready, void *user)
{
    mp_net *n = inst;
    const mp_geom *g = &n->m->g;
    const int k = g->cfg.kernel;
    for (int l = MP_LAYERS - 1; l >= 0; l--) {
        const mp_layer *L = &g->layer[l];
        int64_t cnt = (int64_t)n->n * L->co, per = (int64_t)L->co * L->in;
        float *dz = n->dZ;
        if (l == MP_LAYERS - 1) {
            for (int64_t t = 0; t < g->tile; t++)
                kc_mse_bwd(kc, "loss", n->Z[l] ? n->Z[l] + t * cnt : NULL,
                           n->target ? n->target + t * cnt : NULL, cnt, dz ? dz + t * cnt : NULL);
        } else {
            t3view a, b;
            interior(n, l + 1, n->dA[l + 1], dz, &a, &b);
            kc_copy3d(kc, "gather", L->name, &a, &b);
            if (l == 1 && g->dslice) mp_pair_backward(n, kc, dz, ready, user);
            if (l == 1) mp_sparsity_backward(n, kc, n->Z[l], dz);
            t3view all = {.p = n->Z[l], .n = (int)(g->tile * n->n), .c = L->co, .d = 1, .h = 1,
                          .w = 1, .sn = L->co, .sc = 1, .sd = L->co, .sh = L->co, .sw = L->co};
            t3view dall = all;
            dall.p = dz;
            kc_lrelu_bwd(kc, L->name, &all, &dall, &dall, (float)g->cfg.slope);
        }
        if (l > 0 && !kc->dry) memset(n->dA[l], 0, (size_t)a_floats(g, n->n, l) * sizeof(float));
        int64_t sstride = (int64_t)(g->th + 2 * L->pad) * (g->tw + 2 * L->pad) * L->ci;
        for (int64_t t = 0; t < g->tile; t++) {
            float *dzt = dz ? dz + t * cnt : NULL;
            t3view dv = rowv(n, L->co, dzt);
            kc_bias3d_bwd(kc, L->name, &dv, n->grads ? n->grads + L->off_b + t * L->co : NULL);
            t3view src = field(n, l, t, n->A[l]), dst = patchv(n, l, n->patch);
            kc_copy3d(kc, "gather", L->name, &src, &dst);
            kc_dense_bwd_weights(kc, L->name, n->patch, dzt, n->n, L->in, L->co,
                                 n->grads ? n->grads + L->off_w + t * per : NULL);
            if (l == 0) continue;
            kc_dense_bwd_data(kc, L->name, dzt, n->master ? n->master + L->off_w + t * per : NULL,
                              n->n, L->in, L->co, n->dpatch);
            t3view fv = field(n, l, t, n->dA[l]);
            for (int ky = 0; ky < k; ky++) {
                tview s = {.p = n->dpatch ? n->dpatch + (int64_t)ky * k * L->ci : NULL,
                           .n = n->n, .c = 1, .h = 1, .w = k * L->ci, .sstride = L->in};
                tview d = {.p = fv.p ? (float *)fv.p + ky * fv.sh : NULL, .n = n->n, .c = 1,
                           .h = 1, .w = k * L->ci, .sstride = sstride};
                kc_add(kc, L->name, &s, &d);
            }
        }
        if (ready && n->grads) ready(user, mp_lc_id(g, l), n->grads + L->off_w, L->params_rank);
        if (l > 0) exchange(n, kc, l, 1);
    }
    if (!kc->dry && n->m->st)
        mp_stats_step(n->m, n->halo_s, n->halo_bytes, n->halo_msgs, n->tp_s, n->tp_bytes);
}
