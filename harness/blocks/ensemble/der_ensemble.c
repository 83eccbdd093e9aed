/* Block ensemble, its derived half (der_ensemble.h): per ensemble entry and
 * scale the trainers' aggregate rate against one trainer alone and one of the
 * same size (entries of the same training work), and the tournament. */
#define _GNU_SOURCE
#include "harness/blocks/ensemble/der_ensemble.h"

#include <math.h>
#include <string.h>

#include "harness/blocks/training/blk_training.h"

static int same(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

/* the same training work: program, network, image, batch, steps, kernels */
static int same_work(const bres_t *ba, const record_t *a, const bres_t *bb, const record_t *b)
{
    static const char *const also[] = {"kernels", "optimizer", "size", "split", NULL};
    return same(ba->program, bb->program) && same(a->backend, b->backend) &&
           training_same_work(a, b, also);
}

static const sres_t *single(const blkctx_t *c, const bres_t *b, const record_t *rec,
                            long long ranks)
{
    for (size_t i = 0; i < c->an->nb; i++)
        for (size_t k = 0; k < c->an->b[i].ns; k++) {
            const sres_t *s = &c->an->b[i].s[k];
            if (s->rec && !rec_ensemble(s->rec) && s->scale == ranks && isfinite(s->thr) &&
                same_work(b, rec, &c->an->b[i], s->rec))
                return s;
        }
    return NULL;
}

static void fill(const blkctx_t *c, enrow_t *r)
{
    const eninfo_t *e = r->en;
    double per = e->samples_per_trainer_step;
    r->agg = r->agg_lo = r->agg_hi = 0;
    r->slowest_med = 0;
    r->best_loss = NAN;
    for (long long t = 0; t < e->trainers; t++) {
        stats_summary_t st;
        stats_summarize(e->t[t].step_s, e->t[t].nstep, &st);
        r->agg += per / st.median;
        r->agg_lo += per / st.ci_hi;
        r->agg_hi += per / st.ci_lo;
        if (st.median > r->slowest_med) r->slowest_med = st.median;
        double l = e->t[t].final_loss;
        if (isfinite(l) && !(l >= r->best_loss)) r->best_loss = l;
    }
    r->eff = r->eff_lo = r->eff_hi = r->ratio = r->ratio_lo = r->ratio_hi = r->interference = NAN;
    r->alone = single(c, r->b, r->s->rec, e->ranks_per_trainer);
    r->whole = single(c, r->b, r->s->rec, e->trainers * e->ranks_per_trainer);
    double K = (double)e->trainers;
    if (r->alone) {
        const sres_t *a = r->alone;
        r->eff = r->agg / (K * a->thr);
        r->eff_lo = r->agg_lo / (K * a->thr_hi);
        r->eff_hi = r->agg_hi / (K * a->thr_lo);
        r->interference = r->slowest_med / a->st.median;
    }
    if (r->whole) {
        const sres_t *w = r->whole;
        r->ratio = r->agg / w->thr;
        r->ratio_lo = r->agg_lo / w->thr_hi;
        r->ratio_hi = r->agg_hi / w->thr_lo;
    }
    double *x = ar_alloc(c->a, (e->nrounds + 1) * sizeof *x); /* stats_median sorts */
    r->exch = r->bytes = NAN;
    r->adopted = 0;
    if (e->nrounds) {
        memcpy(x, e->exchange_s, e->nrounds * sizeof *x);
        r->exch = stats_median(x, e->nrounds);
        r->bytes = e->exchange_bytes[0];
        for (size_t i = 0; i < e->nrounds; i++) r->adopted += (int)e->adopted[i];
    }
}

void *ensemble_derive(const blkctx_t *c)
{
    ensembles_t *E = ar_alloc(c->a, sizeof *E);
    size_t cap = 0;
    for (size_t i = 0; i < c->an->nb; i++) cap += c->an->b[i].ns;
    E->r = ar_alloc(c->a, (cap + 1) * sizeof *E->r);
    for (size_t i = 0; i < c->an->nb; i++)
        for (size_t k = 0; k < c->an->b[i].ns; k++) {
            const sres_t *s = &c->an->b[i].s[k];
            if (!s->rec || !rec_ensemble(s->rec)) continue;
            enrow_t *r = &E->r[E->n++];
            r->b = &c->an->b[i], r->s = s, r->en = rec_ensemble(s->rec);
            fill(c, r);
        }
    return E;
}

static void add(const blkctx_t *c, mtable_t *t, const enrow_t *r, const char *name, double v,
                double lo, double hi)
{
    kv_t *p = blocks_param(c->a, "trainers", ar_printf(c->a, "%lld", r->en->trainers));
    blocks_put(c->a, t, r->b, r->s->scale, name, v, lo, hi, (double)r->en->t[0].nstep, p, 1);
}

void ensemble_rows(const blkctx_t *c, const void *self, size_t entry, mtable_t *t)
{
    (void)entry;
    const ensembles_t *E = self;
    for (size_t i = 0; i < E->n; i++) {
        const enrow_t *r = &E->r[i];
        add(c, t, r, "ensemble_aggregate_samples_per_s", r->agg, r->agg_lo, r->agg_hi);
        add(c, t, r, "ensemble_efficiency", r->eff, r->eff_lo, r->eff_hi);
        add(c, t, r, "ensemble_vs_one_trainer", r->ratio, r->ratio_lo, r->ratio_hi);
        add(c, t, r, "tournament_exchange_s", r->exch, NAN, NAN);
    }
}
