/* The model-parallel model's inputs from a run (mpar_input.h). */
#define _GNU_SOURCE
#include "harness/model/mpar_input.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/stats.h"
#include "harness/blocks/model_parallel/blk_model_parallel.h"
#include "harness/blocks/training/blk_training.h"
#include "harness/blocks/update_exchange/blk_update_exchange.h"

static int cfg_int(const record_t *r, const char *key, int dflt)
{
    const char *s = record_config(r, key);
    return s ? atoi(s) : dflt;
}

void mpar_point_config(const record_t *r, mpc_t *c)
{
    const mpinfo_t *m = rec_model_parallel(r);
    c->M = (int)m->model_ranks;
    c->gy = (int)m->grid[0], c->gx = (int)m->grid[1];
    c->replicas = (int)m->replicas;
    c->batch = cfg_int(r, "batch", 1);
    const char *cy = record_config(r, "cycle_ms");
    c->cycle_s = cy ? atof(cy) / 1e3 : 1e-3; /* the runtime's default: 1 ms */
}

static int usable(const outcome_t *x)
{
    const record_t *r = x->rec;
    return x->status == LS_OK && r && rec_model_parallel(r) && rec_training(r)->nstep > 0 &&
           rec_training(r)->rank_steps > 0;
}

/* the median over timed steps of the slowest rank's forward + backward */
static double compute_median(arena_t *a, const trinfo_t *t)
{
    double *v = ar_alloc(a, (t->rank_steps + 1) * sizeof *v);
    for (size_t s = 0; s < t->rank_steps; s++) {
        v[s] = 0;
        for (size_t k = 0; k < t->rank_cols; k++)
            if (t->rank_compute_s[s * t->rank_cols + k] > v[s])
                v[s] = t->rank_compute_s[s * t->rank_cols + k];
    }
    return stats_median(v, t->rank_steps);
}

/* the measured points: the first usable record of each (entry, scale) and the
 * median over the timed steps of all its launches */
static size_t points(arena_t *a, const outcome_t *o, size_t n, mppoint_t **out)
{
    mppoint_t *p = ar_alloc(a, (n + 1) * sizeof *p);
    size_t np = 0;
    for (size_t i = 0; i < n; i++) {
        if (!usable(&o[i])) continue;
        int seen = 0;
        for (size_t j = 0; j < np; j++)
            seen |= !strcmp(p[j].bench, o[i].bench) && p[j].scale == o[i].scale;
        if (seen) continue;
        size_t tot = 0, k = 0;
        for (size_t j = i; j < n; j++)
            if (usable(&o[j]) && !strcmp(o[j].bench, o[i].bench) && o[j].scale == o[i].scale)
                tot += rec_training(o[j].rec)->nstep;
        double *s = ar_alloc(a, (tot + 1) * sizeof *s);
        for (size_t j = i; j < n; j++)
            if (usable(&o[j]) && !strcmp(o[j].bench, o[i].bench) && o[j].scale == o[i].scale) {
                const trinfo_t *t = rec_training(o[j].rec);
                for (size_t q = 0; q < t->nstep; q++)
                    s[k++] = t->step_s[q];
            }
        p[np++] = (mppoint_t){o[i].bench, o[i].scale, o[i].rec, stats_median(s, k)};
    }
    *out = p;
    return np;
}

static int work(arena_t *a, const mppoint_t *b, mpw_t *w, char *err, size_t errlen)
{
    const record_t *r = b->rec;
    const mpinfo_t *m = rec_model_parallel(r);
    memset(w, 0, sizeof *w);
    w->size = cfg_int(r, "size", 0), w->channels = cfg_int(r, "channels", 0);
    w->hidden1 = cfg_int(r, "hidden1", 0), w->hidden2 = cfg_int(r, "hidden2", 0);
    w->kernel = cfg_int(r, "kernel", 0), w->dense = cfg_int(r, "dense", 0);
    if (w->size < 1 || w->channels < 1 || w->hidden1 < 1 || w->hidden2 < 1 || w->kernel < 1) {
        snprintf(err, errlen,
                 "%s: the record's config lacks size, channels, hidden1, hidden2 or kernel",
                 r->path);
        return -1;
    }
    w->params = m->parameters;
    w->base_M = (int)m->model_ranks;
    w->base_batch = cfg_int(r, "batch", 1);
    double comp = compute_median(a, rec_training(r));
    double xch = (isfinite(m->halo_s) ? m->halo_s : 0) + (isfinite(m->tp_s) ? m->tp_s : 0);
    w->compute_s = comp > xch ? comp - xch : 0;
    const trinfo_t *t = rec_training(r);
    double ks = t->kernels_steps > 0 ? t->kernels_steps : (double)t->nstep;
    for (size_t k = 0; k < t->nk; k++)
        if (t->k[k].kernel &&
            (!strcmp(t->k[k].kernel, "adam") || !strcmp(t->k[k].kernel, "lion")) &&
            isfinite(t->k[k].time_s))
            w->opt_s += t->k[k].time_s / ks;
    w->other_s = b->step_s > comp + w->opt_s ? b->step_s - comp - w->opt_s : 0;
    return 0;
}

/* the run's own exchanges as one link: t = m alpha + b beta over the points
 * with model groups (t their halo + tp time, m the busiest rank's messages,
 * b its bytes), least squares with alpha, beta >= 0 (one of them 0 where
 * the two-term fit makes the other negative) */
static int own_link(const mpin_t *in, mlink_t *l, size_t *rows)
{
    double smm = 0, smb = 0, sbb = 0, stm = 0, stb = 0;
    *rows = 0;
    for (size_t i = 0; i < in->npt; i++) {
        const mpinfo_t *m = rec_model_parallel(in->pt[i].rec);
        mpc_t c;
        mpar_point_config(in->pt[i].rec, &c);
        if (c.M < 2 || !isfinite(m->halo_s)) continue;
        mpw_t w = in->w;
        w.dense = (int)(isfinite(m->dense) ? m->dense : 0);
        mpb_t b;
        mpar_bytes(&w, &c, &b);
        double t = m->halo_s + (isfinite(m->tp_s) ? m->tp_s : 0);
        double msg = b.halo_msgs_rank + (w.dense > 0 ? 4.0 * (c.M - 1) : 0);
        double by = b.halo_rank_max + b.tp_rank;
        smm += msg * msg, smb += msg * by, sbb += by * by, stm += t * msg, stb += t * by;
        (*rows)++;
    }
    if (!*rows || !(sbb > 0)) return -1;
    double det = smm * sbb - smb * smb, al = NAN, be = NAN;
    if (*rows >= 2 && det > 1e-12 * smm * sbb) {
        al = (stm * sbb - stb * smb) / det;
        be = (stb * smm - stm * smb) / det;
    }
    if (!(al >= 0 && be >= 0)) { /* one term: the one with the smaller residual */
        double a1 = smm > 0 ? stm / smm : 0, b1 = stb / sbb;
        double ra = smm > 0 ? -stm * stm / smm : 0, rb = -stb * stb / sbb; /* residual - sum t^2 */
        if (smm > 0 && ra < rb)
            al = a1, be = 0;
        else
            al = 0, be = b1;
    }
    *l = (mlink_t){al, be, 0};
    return 0;
}

/* the replicas' allreduce as measured: its exchange time over the bytes each
 * rank sends (the update exchange's wire bytes), summed over the points with
 * replicas; beta only (the ring's 2 (R-1)/R n beta is then the measured time) */
static int own_ar_link(arena_t *a, const mpin_t *in, mlink_t *l, size_t *rows)
{
    double s = 0, by = 0;
    *rows = 0;
    for (size_t i = 0; i < in->npt; i++) {
        const record_t *r = in->pt[i].rec;
        const uxinfo_t *u = rec_ux(r);
        if (rec_model_parallel(r)->replicas < 2 || !u || !u->nsteps || !u->exchange_s ||
            !u->wire_bytes)
            continue;
        double *t = ar_alloc(a, u->nsteps * sizeof *t), *b = ar_alloc(a, u->nsteps * sizeof *b);
        for (size_t k = 0; k < u->nsteps; k++)
            t[k] = u->exchange_s[k], b[k] = u->wire_bytes[k];
        double mt = stats_median(t, u->nsteps), mb = stats_median(b, u->nsteps);
        if (!(mb > 0) || !isfinite(mt)) continue;
        s += mt, by += mb;
        (*rows)++;
    }
    if (!*rows) return -1;
    *l = (mlink_t){0, s / by, 0};
    return 0;
}

int mpar_inputs_from_run(arena_t *a, const outcome_t *o, size_t n, const mfile_t *mf, mpin_t *in,
                         char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    in->npt = points(a, o, n, &in->pt);
    /* the base: no replicas, the fewest model ranks */
    const mppoint_t *b = NULL;
    for (size_t i = 0; i < in->npt; i++) {
        const mpinfo_t *m = rec_model_parallel(in->pt[i].rec),
                       *bm = b ? rec_model_parallel(b->rec) : NULL;
        if (!b || (m->replicas < bm->replicas) ||
            (m->replicas == bm->replicas && m->model_ranks < bm->model_ranks))
            b = &in->pt[i];
    }
    if (!b) {
        snprintf(err, errlen,
                 "no modelpar record with its model_parallel block and per-rank "
                 "compute times: the model-parallel model needs one");
        return -1;
    }
    if (work(a, b, &in->w, err, errlen)) return -1;
    in->base_bench = b->bench, in->base_scale = b->scale, in->base_step_s = b->step_s;
    in->work_source = ar_printf(a,
                                "%s at %d rank(s) (model ranks %d, batch %d, median step %.4g s): "
                                "compute %.4g s, optimizer %.4g s, other %.4g s per step",
                                b->bench, b->scale, in->w.base_M, in->w.base_batch, b->step_s,
                                in->w.compute_s, in->w.opt_s, in->w.other_s);
    minputs_t mi;
    memset(&mi, 0, sizeof mi);
    char why[512];
    if (model_net_from_run(a, o, n, mf, &mi, why, sizeof why) == 0) {
        in->net = mi.net;
        in->net_source = mi.net_source;
        return 0;
    }
    size_t rows;
    mlink_t l;
    memset(&in->net, 0, sizeof in->net);
    if (own_link(in, &l, &rows) == 0) {
        in->net.intra = in->net.inter = l;
        in->net.algo = AR_RING;
        in->net_source =
            ar_printf(a,
                      "the run's own halo and tensor-parallel exchanges (%zu launch "
                      "configurations, time = messages alpha + bytes beta of the "
                      "busiest rank): alpha %.3g s, beta %.3g s/B (%.3g GB/s); no "
                      "allreduce sweep, no --machine",
                      rows, l.alpha_s, l.beta_s, l.beta_s > 0 ? 1e-9 / l.beta_s : INFINITY);
    } else {
        in->net_source = ar_printf(a,
                                   "none (%s; no model group of 2 or more ranks): exchanges "
                                   "predicted as 0",
                                   why);
    }
    if (own_ar_link(a, in, &l, &rows) == 0) {
        memset(&in->ar_net, 0, sizeof in->ar_net);
        in->ar_net.intra = in->ar_net.inter = l;
        in->ar_net.algo = AR_RING;
        in->have_ar = 1;
        in->net_source =
            ar_printf(a,
                      "%s; the allreduce from the run's %zu launch configuration(s) "
                      "with replicas: their exchange time over the bytes a rank "
                      "sends, beta %.3g s/B (%.3g GB/s)",
                      in->net_source, rows, l.beta_s, l.beta_s > 0 ? 1e-9 / l.beta_s : INFINITY);
    }
    return 0;
}
