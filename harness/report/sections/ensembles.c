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
 * ensemble_vs_one_trainer, tournament_exchange_s.  The numbers are the
 * ensemble block's (harness/blocks/ensemble/). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/blocks/ensemble/der_ensemble.h"
#include "harness/blocks/training/blk_training.h"
#include "harness/report/runctx.h"

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

const section_t section_ensembles = {.name = "ensembles", .md = md};
