/* straggler: the slowest of p ranks sets a synchronous step.  From per-rank
 * compute times of a run (one row per step, one column per rank) it fits the
 * spread across ranks: x[s][r] = mu_s + e[s][r], e independent normal with mean
 * 0 and standard deviation sigma (mu_s, the step's own level, may drift; only
 * the spread within a step makes stragglers).  sigma is the pooled within-step
 * standard deviation, cv = sigma / mean(x).  The expected slowest of p is then
 * mean (1 + cv z(p)), z(p) = E[max of p standard normals] (model_max_normal).
 * The fit checks itself on its own samples: the measured mean over steps of
 * (max - mean over ranks) against the normal's sigma z(R) for the R ranks
 * measured.  Pure arithmetic.  docs/model.md "Straggler term".
 * defines: straggler_t, straggler_fit, straggler_expected_max */
#ifndef EXADL_HARNESS_STRAGGLER_H
#define EXADL_HARNESS_STRAGGLER_H

#include <stddef.h>

typedef struct {
    size_t steps, ranks;
    double mean_s;           /* mean of every sample */
    double sigma_s;          /* pooled within-step standard deviation */
    double cv;               /* sigma_s / mean_s */
    double dof;              /* steps x (ranks - 1) */
    double excess_measured_s;  /* mean over steps of max - mean over the ranks */
    double excess_normal_s;    /* sigma_s (z(ranks) - 0): the normal's value of it */
} straggler_t;

/* x: steps x ranks, row-major.  0, or -1 when ranks < 2, steps < 1 or a
 * sample is not finite or the mean is not above 0. */
int straggler_fit(const double *x, size_t steps, size_t ranks, straggler_t *out);

/* Several fits of one workload as one (pooled variance, weighted by their
 * degrees of freedom; the check values averaged the same way). */
int straggler_pool(const straggler_t *f, size_t n, straggler_t *out);

/* mean (1 + cv z(p)): the expected slowest rank's time at p ranks. */
double straggler_expected_max(const straggler_t *s, int p);

#endif
