/* verdict: regression, no change, improvement or inconclusive for one metric
 * of a new run against a pool of baseline runs, from the ratio of medians
 * new / baseline and its 95% CI (boot.h: a staged percentile bootstrap of
 * the pooled samples of each side, Efron & Tibshirani 1993).  With the
 * threshold t (percent) and the band [1/(1+t/100), 1+t/100] (symmetric on the
 * log scale, so a step time and its rate agree):
 *   REGRESSION   the whole CI beyond the band, on the worse side
 *   improvement  the whole CI beyond the band, on the better side
 *   no change    the whole CI inside the band
 *   inconclusive otherwise, with the launches per side that would narrow the
 *                CI enough to decide (if the spread stays as it is).
 * Interference only slows a run down: a new run measured while the machine
 * was busy cannot show a regression, a busy baseline cannot show an
 * improvement (both read as inconclusive); the other two cases still decide. */
#ifndef EXADL_HARNESS_VERDICT_H
#define EXADL_HARNESS_VERDICT_H

#include <stddef.h>

#include "harness/analysis/boot.h"

typedef enum { RV_NOCHANGE, RV_REGRESSION, RV_IMPROVEMENT, RV_CHANGED, RV_INCONCLUSIVE } rverdict_t;
const char *rverdict_name(rverdict_t v);

/* why a verdict is inconclusive */
typedef enum {
    RW_NONE,
    RW_WIDE,      /* the CI holds a boundary of the band */
    RW_ONE_EACH,  /* one observation a side: no spread to judge by */
    RW_NO_RATIO,  /* a median is zero, negative or missing */
    RW_BUSY_NEW,  /* slower, but the new run was measured on a busy machine */
    RW_BUSY_BASE, /* faster, but the baseline was measured on a busy machine */
} rwhy_t;

typedef struct {
    double base, nw;            /* the medians of each side */
    double r, lo, hi;           /* nw / base and its 95% CI (NaN: none) */
    double change_pct;          /* (r - 1) * 100 */
    size_t nbase, nnew;         /* groups (launches or runs) per side */
    double half_pct;            /* the CI's half-width on the side that matters, in % */
    double need_pct;            /* the half-width that would decide, in % (NaN: none) */
    size_t need_base, need_new; /* RW_WIDE: groups per side that would decide (0: none would) */
    rverdict_t v;
    rwhy_t why;
} vjudge_t;

/* better: +1 higher is better, -1 lower, 0 neither (then RV_CHANGED past the
 * band).  busy_*: that side was measured under interference. */
void verdict_judge(const vside_t *base, const vside_t *nw, int better, double threshold_pct,
                   int busy_base, int busy_new, vjudge_t *out);

#endif
