/* The CosmoFlow training step on this rank's sub-volume (cf_net.h): every
 * kernel through counted.h; the halo exchanges and the feature gather as
 * rows of their own in the kernel table ("halo" per conv layer, "gather"),
 * with their wall time and no FLOPs. */
#include <stdio.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/cosmoflow/model/cf_host.h"
#include "benchmarks/cosmoflow/model/cf_net.h"

/* Bands of interior planes computed while the D phase of an exchange is in
 * flight; MPI is given a chance to progress between them. */
enum { OVERLAP_BANDS = 4 };

static void *W(const cf_net *n, const cf_layer *L)
{
    return n->wc ? (char *)n->wc + L->off_w * (int64_t)n->esz : NULL;
}
static void *Bias(const cf_net *n, const cf_layer *L)
{
    return n->wc ? (char *)n->wc + L->off_b * (int64_t)n->esz : NULL;
}
static float *dW(const cf_net *n, const cf_layer *L) { return n->grads ? n->grads + L->off_w : NULL; }
static float *dB(const cf_net *n, const cf_layer *L) { return n->grads ? n->grads + L->off_b : NULL; }

/* n rows of c features as a 3D view (extents 1) for bias and leaky ReLU. */
static t3view vec(void *p, int n, int c)
{
    t3view v = {.p = p, .n = n, .c = c, .d = 1, .h = 1, .w = 1, .sn = c, .sc = 1, .sd = c, .sh = c, .sw = c};
    return v;
}

static void comm_row(kc_t *kc, const char *kernel, const char *layer, double t)
{
    ktab_row *r = ktab_row_for(kc->tab, kernel, layer);
    r->calls++;
    r->time_s += t;
}

/* planes [z0, z0 + nz) of a view along D */
static t3view planes(const t3view *v, int z0, int nz, size_t esz)
{
    t3view r = *v;
    r.d = nz;
    if (v->p) r.p = (char *)v->p + z0 * v->sd * (int64_t)esz;
    return r;
}

/* Output planes [z0, z1) of the convolution in -> out (forward: x -> y;
 * data gradient: dyp -> dx; both read planes [z0, z1 + k - 1) of in). */
static void conv_band(cf_net *n, kc_t *kc, int bwd, const cf_layer *L, const t3view *in,
                      const void *w, const t3view *out, int z0, int z1)
{
    if (z1 <= z0) return;
    int k = L->k;
    const char *name = L->name;
    t3view i = planes(in, z0, z1 - z0 + k - 1, n->esz), o = planes(out, z0, z1 - z0, n->esz);
    if (bwd) kc_conv3d_bwd_data(kc, name, &i, w, k, &o);
    else kc_conv3d_fwd(kc, name, &i, w, k, &o);
}

/* The halo exchange of P and the convolution P -> out.  With overlap, the
 * planes whose inputs need no D halo are computed while the D phase is in
 * flight, then the one or two boundary bands. */
static void exchange_conv(cf_net *n, kc_t *kc, int bwd, const cf_layer *L, const t3view *P,
                          const void *w, const t3view *out)
{
    int e = out->d, h = L->halo;
    const char *name = L->name;
    const cf_comm *c = &n->m->comm;
    if (n->dry || c->cart == MPI_COMM_NULL) {
        conv_band(n, kc, bwd, L, P, w, out, 0, e);
        return;
    }
    int64_t b0 = n->halo.bytes;
    double t0 = timer_now_s();
    n->halo.halo = h; /* this layer's: kernels may differ per block */
    cf_halo_start(&n->halo, P);
    double comm_s = timer_now_s() - t0;
    int lo = c->nbr[0][0] != MPI_PROC_NULL ? h : 0;
    int hi = c->nbr[0][1] != MPI_PROC_NULL ? e - h : e;
    if (n->p->cfg.overlap && hi > lo && (lo > 0 || hi < e)) {
        int step = (hi - lo + OVERLAP_BANDS - 1) / OVERLAP_BANDS;
        for (int z = lo; z < hi; z += step) {
            conv_band(n, kc, bwd, L, P, w, out, z, z + step < hi ? z + step : hi);
            t0 = timer_now_s();
            cf_halo_progress(&n->halo);
            comm_s += timer_now_s() - t0;
        }
        t0 = timer_now_s();
        cf_halo_finish(&n->halo);
        comm_s += timer_now_s() - t0;
        conv_band(n, kc, bwd, L, P, w, out, 0, lo);
        conv_band(n, kc, bwd, L, P, w, out, hi, e);
    } else {
        cf_halo_finish(&n->halo);
        comm_s += timer_now_s() - t0;
        conv_band(n, kc, bwd, L, P, w, out, 0, e);
    }
    comm_row(kc, "halo", name, comm_s);
    n->halo_bytes += n->halo.bytes - b0;
}

static void dense_fwd(cf_net *n, kc_t *kc, const cf_layer *L, const void *x, void *y, int act)
{
    kc_dense_fwd(kc, L->name, x, W(n, L), n->batch, L->ci, L->co, y);
    t3view v = vec(y, n->batch, L->co);
    kc_bias3d_fwd(kc, L->name, &v, Bias(n, L));
    if (act) kc_lrelu_fwd(kc, L->name, &v, &v, (float)n->p->cfg.slope);
}

double cf_net_forward(cf_net *n, kc_t *kc)
{
    const cf_plan *p = n->p;
    int B = p->cfg.blocks;
    float slope = (float)p->cfg.slope;
    int avg = !strcmp(p->cfg.pool, "avg");
    n->halo_bytes = n->gather_bytes = 0;
    for (int l = 0; l < B; l++) {
        const cf_layer *L = &p->layers[l];
        exchange_conv(n, kc, 0, L, &n->xp[l], W(n, L), &n->y[l]);
        kc_bias3d_fwd(kc, L->name, &n->y[l], Bias(n, L));
        kc_lrelu_fwd(kc, L->name, &n->y[l], &n->y[l], slope);
        t3view dst = l + 1 < B ? cf_interior(&n->xp[l + 1], p->layers[l + 1].halo, n->esz) : n->feat;
        if (avg) cf_avgpool_fwd(n, kc, L->name, &n->y[l], &dst);
        else kc_pool3d_fwd(kc, L->name, &n->y[l], &dst);
    }
    if (n->pt->ranks_per_sample > 1 && !n->dry) {
        double t0 = timer_now_s();
        int64_t bytes;
        cf_gather(&n->m->comm, p, n->pt, n->ops, n->ctx, n->host, &n->feat, &n->fin,
                  n->gather_host, n->gather_dev, &bytes);
        comm_row(kc, "gather", "fc1", timer_now_s() - t0);
        n->gather_bytes += bytes;
    }
    const cf_layer *f1 = &p->layers[B], *f2 = &p->layers[B + 1], *f3 = &p->layers[B + 2];
    int drop = p->cfg.dropout > 0;
    dense_fwd(n, kc, f1, n->fin.p, n->a1, 1);
    if (drop) cf_dropout_fwd(n, kc, f1, n->a1, n->mask1);
    dense_fwd(n, kc, f2, n->a1, n->a2, 1);
    if (drop) cf_dropout_fwd(n, kc, f2, n->a2, n->mask2);
    dense_fwd(n, kc, f3, n->a2, n->out, 0);
    if (p->cfg.out_scale > 0) cf_tanh_fwd(n, kc, n->out);
    n->fwd_count++;
    return kc_mse_fwd(kc, "loss", n->out, n->tgt, (int64_t)n->batch * p->cfg.targets);
}

/* A dense layer's gradients: the weight and bias gradients on the group's
 * spatial rank 0 (zeros elsewhere: the others hold the same numbers, and
 * the runtime sums over every rank), then dx = dy W. */
static void dense_bwd(cf_net *n, kc_t *kc, int id, const void *x, const void *dy, void *dx,
                      net_grad_ready_fn ready, void *user)
{
    const cf_layer *L = &n->p->layers[id];
    if (n->pt->srank == 0) {
        kc_dense_bwd_weights(kc, L->name, x, dy, n->batch, L->ci, L->co, dW(n, L));
        t3view v = vec((void *)dy, n->batch, L->co);
        kc_bias3d_bwd(kc, L->name, &v, dB(n, L));
    } else {
        /* the gradient is fp32: (weights + biases) * 4 bytes in the set's elements */
        int64_t elems = (L->nw + L->co) * (int64_t)sizeof(float) / (int64_t)n->esz;
        tview z = {dW(n, L), 1, 1, 1, (int)elems, elems};
        kc_zero(kc, L->name, &z);
    }
    if (ready) ready(user, id, dW(n, L), L->nw + L->co);
    kc_dense_bwd_data(kc, L->name, dy, W(n, L), n->batch, L->ci, L->co, dx);
}

void cf_net_backward(cf_net *n, kc_t *kc, net_grad_ready_fn ready, void *user)
{
    const cf_plan *p = n->p;
    int B = p->cfg.blocks;
    float slope = (float)p->cfg.slope;
    int avg = !strcmp(p->cfg.pool, "avg");
    kc_mse_bwd(kc, "loss", n->out, n->tgt, (int64_t)n->batch * p->cfg.targets, n->dout);
    t3view v2 = vec(n->a2, n->batch, p->cfg.dense2), d2 = vec(n->da2, n->batch, p->cfg.dense2);
    t3view v1 = vec(n->a1, n->batch, p->cfg.dense1), d1 = vec(n->da1, n->batch, p->cfg.dense1);
    /* dropout in place keeps the leaky ReLU's signs where it keeps a unit;
     * where it drops one, the masked gradient is 0 whatever the sign */
    int drop = p->cfg.dropout > 0;
    if (p->cfg.out_scale > 0) cf_tanh_bwd(n, kc, n->out, n->dout);
    dense_bwd(n, kc, B + 2, n->a2, n->dout, n->da2, ready, user);
    if (drop) cf_dropout_bwd(n, kc, &p->layers[B + 1], n->da2, n->mask2);
    kc_lrelu_bwd(kc, p->layers[B + 1].name, &v2, &d2, &d2, slope);
    dense_bwd(n, kc, B + 1, n->a1, n->da2, n->da1, ready, user);
    if (drop) cf_dropout_bwd(n, kc, &p->layers[B], n->da1, n->mask1);
    kc_lrelu_bwd(kc, p->layers[B].name, &v1, &d1, &d1, slope);
    dense_bwd(n, kc, B, n->fin.p, n->da1, n->dfin.p, ready, user);
    if (n->pt->ranks_per_sample > 1) {
        /* every rank has the whole input gradient: its own sub-box is a copy */
        t3view mine = n->dfin;
        mine.d = n->pt->units[0], mine.h = n->pt->units[1], mine.w = n->pt->units[2];
        if (mine.p)
            mine.p = (char *)mine.p + (n->pt->unit_off[0] * mine.sd + n->pt->unit_off[1] * mine.sh +
                                       n->pt->unit_off[2] * mine.sw) * (int64_t)n->esz;
        kc_copy3d(kc, "scatter", "fc1", &mine, &n->dfeat);
    }
    for (int l = B - 1; l >= 0; l--) {
        const cf_layer *L = &p->layers[l];
        const t3view *src = l == B - 1 ? &n->dfeat : &n->dx[l + 1];
        if (avg) cf_avgpool_bwd(n, kc, L->name, src, &n->dy[l]);
        else kc_pool3d_bwd(kc, L->name, &n->y[l], src, &n->dy[l]);
        kc_lrelu_bwd(kc, L->name, &n->y[l], &n->dy[l], &n->dy[l], slope);
        kc_bias3d_bwd(kc, L->name, &n->dy[l], dB(n, L));
        kc_conv3d_bwd_weights(kc, L->name, &n->xp[l], &n->dy[l], L->k, dW(n, L));
        if (ready) ready(user, l, dW(n, L), L->nw + L->co);
        if (l == 0) break; /* the input needs no gradient */
        t3view in = cf_interior(&n->dyp[l], L->halo, n->esz);
        kc_copy3d(kc, "copy", L->name, &n->dy[l], &in);
        exchange_conv(n, kc, 1, L, &n->dyp[l], W(n, L), &n->dx[l]);
    }
}
