/* ratio: procurement's answer, "B is r x A [95% CI]", for one metric, and the
 * overall picture across the suite's headline metrics.  The CI of a ratio of
 * medians by the delta method on the log scale: the 95% half-widths of
 * log(A) and log(B) add in quadrature; each side's half-width is the larger
 * of its median's CI (iterations pooled) and 1.96 sd/sqrt(n) of the log of
 * its per-launch values (the variation across launches).  Winner: the side
 * the CI points to; a CI that holds 1 is a tie. */
#ifndef EXADL_HARNESS_RATIO_H
#define EXADL_HARNESS_RATIO_H

#include "harness/analysis/metrics.h"

typedef struct {
    double r, lo, hi; /* B / A and its 95% CI (NaN: no CI on a side) */
    int winner;       /* 1 A, 2 B, 0 tie or no direction, -1 no CI */
} ratio_t;

void ratio_of(const metric_t *a, const metric_t *b, ratio_t *out);

/* The faster-is-larger ratio of a metric (r, or 1/r where lower is better). */
double ratio_speed(const metric_t *m, double r);

typedef struct {
    size_t n;                   /* ratios behind it */
    double gmean, gsd, min, max; /* geometric mean, geometric sd, range */
    double lo, hi;              /* 95% CI of the geometric mean (NaN: a ratio has none) */
} ratio_summary_t;

/* Geometric mean of the speed ratios x[0..n) with their 95% CIs [lo, hi]:
 * the CI of the mean propagated from the rows' CIs, their half-widths on the
 * log scale averaged: exact were the rows' errors fully correlated, wider
 * than needed otherwise, so it never claims more than the rows support. */
void ratio_summarize(const double *x, const double *lo, const double *hi, size_t n,
                     ratio_summary_t *out);

/* The metrics the overall summary uses: one per workload and scale. */
int ratio_headline(const char *metric);

#endif
