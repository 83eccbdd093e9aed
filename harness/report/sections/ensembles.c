/* Report section: many models at once (docs/ensembles.md).  One row per
 * training entry and scale whose first record carries an ensemble block
 * (K trainers of P ranks): each trainer's rate (its samples per step / its
 * median step time) and the aggregate (their sum, bounded by the trainers'
 * 95% CIs), set against
 *   - one trainer alone: an entry of the same work (config but trainers and
 *     tournament) at P ranks with one trainer; ensemble throughput efficiency
 *     = aggregate / (K x its rate), the LBANN effective efficiency of
 *     throughput (speedup over one trainer / resource ratio K);
 *   - one trainer of the same size: the same work at K x P ranks with one
 *     trainer; ratio = aggregate / its rate;
 *   - interference: the slowest trainer's median step in the ensemble / the
 *     lone trainer's median step;
 * and the tournament: rounds, median exchange time and bytes, adoptions,
 * best final loss of the trainers against the same-size trainer's.
 * Metrics ensemble_aggregate_samples_per_s, ensemble_efficiency,
 * ensemble_vs_one_trainer, tournament_exchange_s. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/stats.h"
#include "harness/blocks/ensemble/blk_ensemble.h"
#include "harness/blocks/training/blk_training.h"
#include "harness/report/runctx.h"

typedef struct {
    const bres_t *b;
    const sres_t *s;
    const eninfo_t *en;
    double agg, agg_lo, agg_hi;     /* samples/s */
    double slowest_med;             /* the slowest trainer's median step */
    const sres_t *alone, *whole;    /* one trainer of P ranks; one of K x P ranks */
    double eff, eff_lo, eff_hi, ratio, ratio_lo, ratio_hi, interference;
    double exch, bytes, best_loss;
    int adopted;
} enrow_t;

typedef struct {
    enrow_t *r;
    size_t n;
} ensembles_t;

static int same(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

/* the same training work: program, network, image, batch, steps, kernels */
static int same_work(const bres_t *ba, const record_t *a, const bres_t *bb, const record_t *b)
{
    static const char *const also[] = {"kernels", "optimizer", "size", "split", NULL};
    return same(ba->program, bb->program) && same(a->backend, b->backend) &&
           training_same_work(a, b, also);
}

static const sres_t *single(const runctx_t *c, const bres_t *b, const record_t *rec, long long ranks)
{
    for (size_t i = 0; i < c->an.nb; i++)
        for (size_t k = 0; k < c->an.b[i].ns; k++) {
            const sres_t *s = &c->an.b[i].s[k];
            if (s->rec && !rec_ensemble(s->rec) && s->scale == ranks && isfinite(s->thr) &&
                same_work(b, rec, &c->an.b[i], s->rec))
                return s;
        }
    return NULL;
}

static void fill(const runctx_t *c, enrow_t *r)
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
    double *x = malloc((e->nrounds + 1) * sizeof *x);
    r->exch = r->bytes = NAN;
    r->adopted = 0;
    if (e->nrounds) {
        memcpy(x, e->exchange_s, e->nrounds * sizeof *x);
        r->exch = stats_median(x, e->nrounds);
        r->bytes = e->exchange_bytes[0];
        for (size_t i = 0; i < e->nrounds; i++) r->adopted += (int)e->adopted[i];
    }
    free(x);
}

static void *build(const runctx_t *c)
{
    ensembles_t *E = ar_alloc(c->a, sizeof *E);
    size_t cap = 0;
    for (size_t i = 0; i < c->an.nb; i++) cap += c->an.b[i].ns;
    E->r = ar_alloc(c->a, (cap + 1) * sizeof *E->r);
    for (size_t i = 0; i < c->an.nb; i++)
        for (size_t k = 0; k < c->an.b[i].ns; k++) {
            const sres_t *s = &c->an.b[i].s[k];
            if (!s->rec || !rec_ensemble(s->rec)) continue;
            enrow_t *r = &E->r[E->n++];
            r->b = &c->an.b[i], r->s = s, r->en = rec_ensemble(s->rec);
            fill(c, r);
        }
    return E;
}

static void add(const runctx_t *c, mtable_t *t, const enrow_t *r, const char *name, double v,
                double lo, double hi)
{
    if (!isfinite(v)) return;
    kv_t *p = ar_alloc(c->a, 2 * sizeof *p);
    p[0] = (kv_t){"trainers", ar_printf(c->a, "%lld", r->en->trainers)};
    const metric_info_t *mi = metric_info(name);
    metric_t m = {.bench = r->b->name, .program = r->b->program, .kind = r->b->kind,
                  .scale = r->s->scale, .metric = name, .value = v, .lo = lo, .hi = hi,
                  .n = (double)r->en->t[0].nstep, .unit = mi ? mi->unit : "",
                  .better = mi ? mi->better : 0, .params = p, .nparams = 1};
    mtable_add(c->a, t, &m);
}

static void metrics(const runctx_t *c, const void *self, mtable_t *t)
{
    const ensembles_t *E = self;
    for (size_t i = 0; i < E->n; i++) {
        const enrow_t *r = &E->r[i];
        add(c, t, r, "ensemble_aggregate_samples_per_s", r->agg, r->agg_lo, r->agg_hi);
        add(c, t, r, "ensemble_efficiency", r->eff, r->eff_lo, r->eff_hi);
        add(c, t, r, "ensemble_vs_one_trainer", r->ratio, r->ratio_lo, r->ratio_hi);
        add(c, t, r, "tournament_exchange_s", r->exch, NAN, NAN);
    }
}

static void num(sb_t *o, double v, const char *fmt)
{
    if (isfinite(v)) sb_printf(o, fmt, v);
    else sb_puts(o, "-");
}

static void bounded(sb_t *o, double v, double lo, double hi)
{
    if (isfinite(v)) sb_printf(o, "%.3g [%.3g, %.3g]", v, lo, hi);
    else sb_puts(o, "-");
}

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    (void)c;
    const ensembles_t *E = self;
    if (!E->n) return;
    sb_puts(o, "\n## Ensembles and tournaments (docs/ensembles.md)\n\n"
               "One row per training entry and scale run as K trainers of P ranks (--trainers K; "
               "each trainer a data-parallel run of its own). A trainer's rate: its samples per "
               "step / its median step time (max over its ranks); aggregate: the sum over the "
               "trainers, bounded by the sum of the trainers' 95% CI bounds (first record at "
               "the scale). **Ensemble throughput efficiency = aggregate / (K x the rate of one "
               "trainer alone)**: one trainer alone is the entry of the same work with one "
               "trainer at P ranks (its throughput, all repetitions pooled); this is LBANN's "
               "effective efficiency (speedup over one trainer / resource ratio K) taken on "
               "throughput. vs 1 trainer of K x P: aggregate / the rate of one trainer of all "
               "the ranks. Interference: the slowest trainer's median step in the ensemble / "
               "the lone trainer's median step (1: none). Tournament (LTFB): rounds, median "
               "exchange time (the leaders' swap and the broadcast inside each trainer), bytes "
               "a leader sends, trainers that adopted their partner's model; loss: the best "
               "trainer's final training loss against the same-size single trainer's (the same "
               "samples per step; each trainer saw 1/K of them).\n\n"
               "| entry | scale | K x P | aggregate samples/s [bounds] | efficiency vs K x alone "
               "[bounds] | vs 1 trainer of K x P [bounds] | interference | rounds | exchange ms "
               "| MB/round | adopted | best loss | 1-trainer loss |\n"
               "|---|---:|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < E->n; i++) {
        const enrow_t *r = &E->r[i];
        sb_printf(o, "| %s | %d | %lld x %lld | ", r->b->name, r->s->scale, r->en->trainers,
                  r->en->ranks_per_trainer);
        bounded(o, r->agg, r->agg_lo, r->agg_hi), sb_puts(o, " | ");
        bounded(o, r->eff, r->eff_lo, r->eff_hi), sb_puts(o, " | ");
        bounded(o, r->ratio, r->ratio_lo, r->ratio_hi), sb_puts(o, " | ");
        num(o, r->interference, "%.3g"), sb_printf(o, " | %zu | ", r->en->nrounds);
        num(o, r->exch * 1e3, "%.3g"), sb_puts(o, " | ");
        num(o, r->bytes * 1e-6, "%.3g"), sb_printf(o, " | %d | ", r->adopted);
        num(o, r->best_loss, "%.5g"), sb_puts(o, " | ");
        const record_t *w = r->whole ? r->whole->rec : NULL;
        num(o, w ? training_final_loss(w) : NAN, "%.5g");
        sb_puts(o, " |\n");
    }
    for (size_t i = 0; i < E->n; i++)
        if (!E->r[i].alone || !E->r[i].whole) {
            sb_puts(o, "\n(-: the suite has no entry of the same work with one trainer at P, or "
                       "at K x P, ranks.)\n");
            break;
        }
}

const section_t section_ensembles = {.name = "ensembles", .build = build, .metrics = metrics, .md = md};
