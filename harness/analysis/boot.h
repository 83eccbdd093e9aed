/* boot: the 95% CI of a ratio of medians, new / baseline, by a staged
 * percentile bootstrap (Efron & Tibshirani, An Introduction to the Bootstrap,
 * 1993, ch. 13 for the percentile interval; Davison & Hinkley, Bootstrap
 * Methods and their Application, 1997, sec. 3.8 for resampling clustered
 * data).  Each side is a set of groups (the launches of the runs, or one
 * observation per run); each resample draws, independently per side, as many
 * groups as the side has, with replacement, then within each drawn group as
 * many observations as it holds, with replacement, and takes the median of
 * the pooled draw.  Drawing the launches first keeps what the steps of one
 * launch share (the machine's state while it ran) from reading as many
 * independent observations.  A side of two or more runs (a baseline pool) is
 * drawn in three stages, runs first; a side of one run (the new run) takes on
 * the other side's run-to-run variation: its median times the ratio of a
 * drawn run's median to the other side's median, so that a drift between
 * runs, which the launches of one run cannot show, never reads as a change
 * (Davison & Hinkley sec. 3.8 again).  The generator has a fixed seed: the
 * same input always gives the same interval, so re-analysis gives the same
 * verdict. */
#ifndef EXADL_HARNESS_BOOT_H
#define EXADL_HARNESS_BOOT_H

#include <stddef.h>

typedef struct {
    const double *x;    /* the observations, group after group */
    const size_t *gend; /* end (exclusive) of each group in x */
    size_t ngroup;
    const size_t *rend; /* end (exclusive) of each run in the groups (NULL: one run) */
    size_t nrun;
} vside_t;

#define BOOT_RESAMPLES 4000

/* Observations in a side (the end of its last group). */
size_t boot_count(const vside_t *s);
/* The median of every observation of a side (NaN: none). */
double boot_median(const vside_t *s);

/* r = median(new) / median(base) and its 95% percentile CI [lo, hi].  A side
 * with a single observation has no spread of its own: it borrows the other
 * side's (its value times a draw from the other side over that side's median).
 * lo and hi are NaN when both sides hold one observation, or the medians are
 * not both positive (r is NaN then too, unless both are finite). */
void boot_ratio(const vside_t *base, const vside_t *nw, double *r, double *lo, double *hi);

#endif
