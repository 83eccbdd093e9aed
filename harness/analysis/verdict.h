/* verdict: regression or improvement of one metric against a pool of
 * baseline runs, decided by the variation across launches and runs, not by
 * the iterations inside one launch (whose spread says nothing about the next
 * launch).  Observations are per-launch values where the results keep them
 * (training step times), else one value per run.  Welch's t on the
 * observations of the pool and of the new run; a change counts when it is
 * past the threshold AND significant at 95%; past the threshold but not
 * significant is "inconclusive", with the launches per side that would
 * resolve a difference of that size (80% power). */
#ifndef EXADL_HARNESS_VERDICT_H
#define EXADL_HARNESS_VERDICT_H

#include <stddef.h>

typedef enum { RV_SAME, RV_REGRESSION, RV_IMPROVEMENT, RV_CHANGED, RV_INCONCLUSIVE } rverdict_t;
const char *rverdict_name(rverdict_t v);

typedef struct {
    double base, change_pct;  /* baseline: median of the pool; change of the new value */
    size_t npool, nnew;       /* observations on each side */
    double spread_pct;        /* sd of the observations / baseline, in percent (NaN: one) */
    double t, tcrit;          /* Welch's t and its 95% two-sided critical value */
    int need;                 /* inconclusive: launches per side that would resolve it */
    rverdict_t v;
} rjudge_t;

/* pool: baseline observations; obs: the new run's; value: its headline value
 * (the pooled median); better: +1 higher is better, -1 lower, 0 neither.
 * runs: one value per baseline run: with two or more, the new value must
 * also lie outside the 95% prediction interval of the runs (t with runs - 1
 * degrees of freedom), so that a drift from run to run, which the launches of
 * one run cannot show, never reads as a regression. */
void verdict_judge(const double *pool, size_t npool, const double *obs, size_t nobs, double value,
                   const double *runs, size_t nruns, int better, double threshold_pct,
                   rjudge_t *out);

/* 97.5% quantile of Student's t with df degrees of freedom (df >= 1). */
double verdict_tcrit(double df);

#endif
