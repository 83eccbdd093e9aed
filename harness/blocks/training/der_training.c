/* Block training, its derived half (blk_training.h): each entry's per-scale
 * rows.  Its numbers (sres_t: pooled step times, throughput, efficiency,
 * FLOP rates, fraction of peak) are the analysis' (harness/analysis/
 * analysis_train.c): the grouping by entry and scale that every block's
 * derive reads, so they are made before any block's (docs/architecture.md
 * "A record block"). */
#define _GNU_SOURCE
#include <math.h>

#include "harness/blocks/derive.h"
#include "harness/blocks/training/blk_training.h"

void training_rows(const blkctx_t *c, const void *self, size_t entry, mtable_t *t)
{
    (void)self;
    const bres_t *b = &c->an->b[entry];
    arena_t *a = c->a;
    double nan = NAN;
    kv_t *p = b->params;
    size_t np = b->nparams;
    for (size_t i = 0; i < b->ns; i++) {
        const sres_t *s = &b->s[i];
        int sc = s->scale;
        double n = (double)s->n, d = s->devices > 0 ? s->devices : sc;
        blocks_put(a, t, b, sc, "launches_ok", s->nok, nan, nan, s->nlaunch, p, np);
        if (!s->n) continue;
        blocks_put(a, t, b, sc, "step_time_s", s->st.median, s->st.ci_lo, s->st.ci_hi, n, p, np);
        blocks_put(a, t, b, sc, "throughput_samples_per_s", s->thr, s->thr_lo, s->thr_hi, n, p,
                   np);
        blocks_put(a, t, b, sc, "throughput_per_device", s->thr / d, s->thr_lo / d, s->thr_hi / d,
                   n, p, np);
        blocks_put(a, t, b, sc, "efficiency", s->eff, s->eff_lo, s->eff_hi, n, p, np);
        /* FLOP rates: the CI follows the step-time CI (sustained uses the mean) */
        double flo = s->st.median / s->st.ci_hi, fhi = s->st.median / s->st.ci_lo;
        blocks_put(a, t, b, sc, "sustained_flops", s->sustained, s->sustained * flo,
                   s->sustained * fhi, n, p, np);
        blocks_put(a, t, b, sc, "peak_flops", s->peak, nan, nan, n, p, np);
        blocks_put(a, t, b, sc, "sustained_flops_per_device", s->sustained / d,
                   s->sustained * flo / d, s->sustained * fhi / d, n, p, np);
        blocks_put(a, t, b, sc, "peak_flops_per_device", s->peak / d, nan, nan, n, p, np);
        blocks_put(a, t, b, sc, "convention_sustained_flops", s->conv_sustained,
                   s->conv_sustained * flo, s->conv_sustained * fhi, n, p, np);
        blocks_put(a, t, b, sc, "convention_peak_flops", s->conv_peak, nan, nan, n, p, np);
        blocks_put(a, t, b, sc, "convention_sustained_flops_per_device", s->conv_sustained / d,
                   s->conv_sustained * flo / d, s->conv_sustained * fhi / d, n, p, np);
        blocks_put(a, t, b, sc, "convention_peak_flops_per_device", s->conv_peak / d, nan, nan, n,
                   p, np);
        blocks_put(a, t, b, sc, "fraction_of_peak", s->frac_peak, nan, nan, n, p, np);
    }
}
