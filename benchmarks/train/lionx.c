#include "benchmarks/train/lionx.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/signx.h"
#include "benchmarks/common/rng.h"
#include "benchmarks/common/signpack.h"
#include "benchmarks/common/timer.h"

struct lionx {
    lionx_cfg cfg;
    comm_t *comm;
    MPI_Comm xcomm;         /* the engine thread's collectives */
    kc_t kc;                /* engine thread: lion_sign, counted in tab */
    ktab_t tab;
    int n, p;               /* ranks; bits per weight on the wire */
    float *m;
    int T, S;
    gsync_tensor *t;        /* by tensor id (the engine's slot) */
    net_slice *s;
    int *slice_of;          /* tensor -> slice */
    int64_t *res_off;       /* tensor -> first word of its agreed update in res */
    uint64_t *res;          /* agreed updates, word-aligned per tensor */
    uint64_t *local, *wire; /* scratch: local signs (1 bit), the words on the wire */
    uint64_t *mine;         /* pbit, selective: this rank's signs as fields, kept */
    int64_t *run_off;       /* scratch: a batch's tensors' word offsets */
    signx_run *runs;        /* scratch: a batch's tensors' tie seeds (1bit) */
    signx_buf xb;
    lion_hyper h;
    uint64_t step_seed;
    /* selective sync: per slice, weights that disagreed and weights seen since the last check */
    double *dis, *seen;
    int64_t step_dis, step_seen;
    lionx_step st;
};

static int64_t words_all(const gsync_tensor *t, int n, int p)
{
    int64_t w = 0;
    for (int i = 0; i < n; i++) w += sp_words(t[i].count, p);
    return w;
}

lionx_t *lionx_create(const lionx_cfg *cfg, comm_t *comm, const kern_ops *ops, void *ctx,
                      const gsync_tensor *tensors, int ntensors, const net_slice *slices,
                      int nslices, float *m)
{
    CHECK(ops->lion_sign && ops->lion_apply, "kernel set %s has no Lion kernels", ops->name);
    lionx_t *x = XCALLOC(1, sizeof *x, "update exchange");
    x->cfg = *cfg;
    x->comm = comm;
    CHECK_MPI(MPI_Comm_dup(comm->world, &x->xcomm));
    x->n = comm->size;
    x->p = cfg->pbit ? sp_bits(comm->size) : 1;
    x->m = m;
    x->T = ntensors;
    x->S = nslices;
    x->t = XMALLOC((size_t)ntensors * sizeof *x->t, "exchange tensors");
    memcpy(x->t, tensors, (size_t)ntensors * sizeof *x->t);
    x->s = XMALLOC((size_t)nslices * sizeof *x->s, "exchange slices");
    memcpy(x->s, slices, (size_t)nslices * sizeof *x->s);
    x->slice_of = XMALLOC((size_t)ntensors * sizeof *x->slice_of, "exchange slices");
    x->res_off = XMALLOC((size_t)ntensors * sizeof *x->res_off, "exchange offsets");
    x->run_off = XMALLOC((size_t)ntensors * sizeof *x->run_off, "exchange offsets");
    x->runs = XMALLOC((size_t)(ntensors ? ntensors : 1) * sizeof *x->runs, "exchange tie seeds");
    int64_t rw = 0;
    for (int i = 0; i < ntensors; i++) {
        const gsync_tensor *t = &tensors[i];
        x->slice_of[i] = -1;
        for (int k = 0; k < nslices; k++)
            if (t->off >= slices[k].off && t->off + t->count <= slices[k].off + slices[k].count)
                x->slice_of[i] = k;
        CHECK(x->slice_of[i] >= 0, "tensor %s lies in no parameter slice", t->name);
        x->res_off[i] = rw;
        rw += sp_words(t->count, x->p);
    }
    x->res = XCALLOC((size_t)(rw ? rw : 1), sizeof *x->res, "agreed updates");
    int64_t lw = words_all(tensors, ntensors, 1), ww = words_all(tensors, ntensors, x->p);
    x->local = XCALLOC((size_t)(lw ? lw : 1), sizeof *x->local, "local signs");
    x->wire = XCALLOC((size_t)(ww > lw ? ww : lw ? lw : 1), sizeof *x->wire, "exchange words");
    if (cfg->pbit && cfg->sync == LX_SYNC_SELECTIVE)
        x->mine = XCALLOC((size_t)(ww ? ww : 1), sizeof *x->mine, "local sign fields");
    x->dis = XCALLOC((size_t)nslices, sizeof *x->dis, "disagreement");
    x->seen = XCALLOC((size_t)nslices, sizeof *x->seen, "disagreement");
    ktab_init(&x->tab, 2 * nslices + 8);
    x->kc = (kc_t){.ops = ops, .ctx = ctx, .tab = &x->tab, .timing = cfg->timing};
    return x;
}

void lionx_free(lionx_t *x)
{
    if (!x) return;
    MPI_Comm_free(&x->xcomm);
    signx_buf_free(&x->xb);
    ktab_free(&x->tab);
    free(x->t);
    free(x->s);
    free(x->slice_of);
    free(x->res_off);
    free(x->run_off);
    free(x->runs);
    free(x->res);
    free(x->local);
    free(x->wire);
    free(x->mine);
    free(x->dis);
    free(x->seen);
    free(x);
}

int lionx_bits(const lionx_t *x) { return x->p; }

void lionx_begin(lionx_t *x, const lion_hyper *h, int64_t step)
{
    x->h = *h;
    x->step_seed = rng_mix(rng_mix(x->cfg.seed) ^ (uint64_t)step * 0x9e3779b97f4a7c15ULL);
    double dis = x->st.disagreement;
    memset(&x->st, 0, sizeof x->st);
    x->st.disagreement = dis;
    x->step_dis = x->step_seen = 0;
}

/* What needs the local signs after the exchange: 1bit always (a popcount);
 * pbit only for the selective rule (a pass over every weight). */
static int measure(const lionx_t *x) { return !x->cfg.pbit || x->cfg.sync == LX_SYNC_SELECTIVE; }

/* The engine's exchange of one fused batch (engine thread). */
static void exchange_run(void *ctx, float *const *bufs, const int64_t *counts, const int *slots,
                         int nb)
{
    lionx_t *x = ctx;
    double t0 = timer_now_s();
    int64_t lw = 0;
    for (int i = 0; i < nb; i++) {
        const gsync_tensor *t = &x->t[slots[i]];
        lion_hyper h = x->h;
        h.tie_seed = rng_mix(x->step_seed + (uint64_t)slots[i]);
        x->run_off[i] = lw;
        /* a tied vote's bits by tensor and step, not by batch: the same
         * whatever the engine fused (run to run, fusion follows timing) */
        x->runs[i] = (signx_run){.word0 = lw,
                                 .seed = rng_mix(x->step_seed ^ ((uint64_t)slots[i] + 1) *
                                                                    0xc2b2ae3d27d4eb4fULL)};
        kc_lion_sign(&x->kc, x->s[x->slice_of[slots[i]]].name, x->m + t->off, bufs[i],
                     x->local + lw, counts[i], &h);
        lw += sp_words(counts[i], 1);
    }
    double t1 = timer_now_s();
    int64_t ww = 0;
    if (!x->cfg.pbit) {
        memcpy(x->wire, x->local, (size_t)lw * sizeof *x->wire);
        ww = lw;
        x->st.wire_bytes +=
            signx_vote_runs(x->xcomm, x->wire, ww, x->runs, nb, &x->xb, x->cfg.poll_us);
    } else {
        for (int i = 0; i < nb; i++) {
            sp_spread(x->local + x->run_off[i], counts[i], x->p, x->wire + ww);
            ww += sp_words(counts[i], x->p);
        }
        if (x->mine) memcpy(x->mine, x->wire, (size_t)ww * sizeof *x->mine);
        x->st.wire_bytes += signx_sum(x->xcomm, x->wire, ww, &x->xb, x->cfg.poll_us);
    }
    double t2 = timer_now_s();
    int64_t lo = 0, wo = 0;
    for (int i = 0; i < nb; i++) {
        int id = slots[i];
        int64_t nw = sp_words(counts[i], x->p);
        memcpy(x->res + x->res_off[id], x->wire + wo, (size_t)nw * sizeof *x->res);
        if (measure(x)) {
            int64_t d = x->cfg.pbit ? sp_disagree_fields(x->mine + wo, x->wire + wo, x->p, x->n,
                                                         counts[i])
                                    : sp_disagree_bits(x->local + lo, x->wire + wo, counts[i]);
            x->dis[x->slice_of[id]] += (double)d;
            x->seen[x->slice_of[id]] += (double)counts[i];
            x->step_dis += d;
            x->step_seen += counts[i];
        }
        lo += sp_words(counts[i], 1);
        wo += nw;
    }
    x->st.kernel_s += t1 - t0;
    x->st.collective_s += t2 - t1;
}

gsync_exchange lionx_exchange(lionx_t *x)
{
    gsync_exchange e = {.run = exchange_run, .ctx = x};
    return e;
}

void lionx_apply(lionx_t *x, kc_t *kc, float *master, void *compute, size_t act_bytes)
{
    int copy = compute && compute != (void *)master;
    x->st.disagreement = measure(x) && x->step_seen > 0 ? (double)x->step_dis / (double)x->step_seen
                                                        : NAN;
    for (int k = 0; k < x->S; k++)
        for (int i = 0; i < x->T; i++) {
            if (x->slice_of[i] != k) continue;
            const gsync_tensor *t = &x->t[i];
            void *wc = copy ? (char *)compute + (size_t)t->off * act_bytes : NULL;
            kc_lion_apply(kc, x->s[k].name, master ? master + t->off : NULL, wc,
                          x->res + x->res_off[i], x->p, x->n, t->count, &x->h);
        }
}

/* The mean of the ranks' momenta over [off, off + count): bytes this rank sends. */
static int64_t mean_over_ranks(lionx_t *x, float *m, int64_t count)
{
    int64_t left = count;
    float *p = m;
    while (left > 0) {
        int c = left > INT_MAX / 2 ? INT_MAX / 2 : (int)left;
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, p, c, MPI_FLOAT, MPI_SUM, x->comm->world));
        p += c;
        left -= c;
    }
    float inv = 1.0f / (float)x->n;
    for (int64_t i = 0; i < count; i++) m[i] *= inv;
    return (int64_t)(2.0 * (x->n - 1) / x->n * (double)count * sizeof(float));
}

void lionx_momentum_sync(lionx_t *x, kc_t *kc, int64_t step)
{
    if (x->cfg.sync == LX_SYNC_NONE || step % x->cfg.sync_every != 0) return;
    double t0 = timer_now_s();
    int64_t synced_w = 0;
    int *pick = XCALLOC((size_t)x->S, sizeof *pick, "momentum sync");
    if (x->cfg.sync == LX_SYNC_EVERY) {
        for (int k = 0; k < x->S; k++) pick[k] = 1;
    } else {
        /* each layer's disagreement over the last K steps, and the whole
         * network's (the last entry), the largest of any rank */
        double *d = XMALLOC((size_t)(x->S + 1) * sizeof *d, "disagreement");
        double all_dis = 0, all_seen = 0;
        for (int k = 0; k < x->S; k++) {
            d[k] = x->seen[k] > 0 ? x->dis[k] / x->seen[k] : 0;
            all_dis += x->dis[k], all_seen += x->seen[k];
        }
        d[x->S] = all_seen > 0 ? all_dis / all_seen : 0;
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, d, x->S + 1, MPI_DOUBLE, MPI_MAX, x->comm->world));
        x->st.sync_bytes += (int64_t)(2.0 * (x->n - 1) / x->n * (x->S + 1) * sizeof(double));
        for (int k = 0; k < x->S; k++) pick[k] = d[k] > x->cfg.sync_threshold * d[x->S];
        free(d);
    }
    for (int k = 0; k < x->S; k++) {
        x->dis[k] = x->seen[k] = 0;
        if (!pick[k]) continue;
        if (!kc->dry) x->st.sync_bytes += mean_over_ranks(x, x->m + x->s[k].off, x->s[k].count);
        synced_w += x->s[k].count;
        x->st.synced++;
    }
    free(pick);
    ktab_row *row = ktab_row_for(kc->tab, "momentum_sync", "all");
    row->calls++;
    row->flops += synced_w;
    row->time_s += timer_now_s() - t0;
}

const lionx_step *lionx_last(const lionx_t *x) { return &x->st; }

void lionx_take_rows(lionx_t *x, ktab_t *tab)
{
    ktab_accumulate(tab, &x->tab);
    ktab_reset(&x->tab);
}
