/* stats: summaries of timing samples the HPC way (Hoefler & Belli, SC15).
 *
 * Medians with a non-parametric 95% confidence interval (no normality assumed),
 * minimum and maximum.  Warm-up samples are never passed in: the caller drops
 * them before summarising. */
#ifndef EXADL_STATS_H
#define EXADL_STATS_H

#include <stddef.h>

typedef struct {
    size_t n;
    double median;
    double ci_lo, ci_hi; /* 95% CI of the median; [min, max] when n <= 5 */
    int ci_exact;        /* 1 when the rank formula applied (n > 5) */
    double min, max;
    double mean;         /* for costs only; never average rates this way */
} stats_summary_t;

/* 1-based ranks of the 95% CI of the median for n > 5:
 *   lo = floor((n - 1.96 sqrt n) / 2),  hi = ceil(1 + (n + 1.96 sqrt n) / 2),
 * clamped to [1, n].  Returns 0 (and lo = 1, hi = n) when n <= 5. */
int stats_ci_ranks(size_t n, size_t *lo, size_t *hi);

/* Summarise n samples (not modified).  n == 0 gives all fields NaN. */
void stats_summarize(const double *x, size_t n, stats_summary_t *out);

/* Median of n samples (copied and sorted internally). */
double stats_median(const double *x, size_t n);

/* Harmonic mean of positive rates: the right mean for rates over equal work. */
double stats_hmean(const double *x, size_t n);

/* Sort in place, ascending. */
void stats_sort(double *x, size_t n);

#endif
