/* results_pool: the two sides a regression verdict weighs for one metric row:
 * the baseline runs' samples and the new run's, at the finest level every run
 * involved keeps, and how busy the machine was while they were measured.
 * Shared by `exadl compare` and `exadl history`, so both judge alike.
 *
 * Levels: the timed steps of every launch (step_time_s and the per-step rates,
 * read from RUN/records/, one group per launch), else each launch's median
 * (results.yaml's launch_medians_s), else one value per run.  The energy
 * rows (docs/energy.md) have no steps: each launch's value from its record's
 * energy block, else one value per run.  Steps are used
 * only where the records of a run agree with its results.yaml (the same count
 * and median): records edited or missing fall back to the launches.
 * Interference: each launch's `interference: {verdict: quiet|busy|unknown}`
 * (absent: unknown). */
#ifndef EXADL_HARNESS_RESULTS_POOL_H
#define EXADL_HARNESS_RESULTS_POOL_H

#include "harness/analysis/boot.h"
#include "harness/report/results.h"

typedef enum { PL_STEPS, PL_LAUNCHES, PL_RUNS } plevel_t;
const char *plevel_name(plevel_t l); /* "steps", "launches", "runs" */

typedef struct {
    size_t launches, busy, quiet; /* ok launches behind the rows; of them busy, quiet */
} pinter_t;

typedef struct {
    vside_t base, nw;
    plevel_t level;
    size_t nruns;              /* baseline runs in the pool */
    size_t launches_base, launches_new; /* launches behind each side (steps level: groups) */
    pinter_t ib, in;           /* interference of each side */
} rpool_t;

/* The interference of the ok launches of (bench, scale) in a run (scale 0:
 * every scale; bench NULL: every benchmark). */
void results_interference(const results_t *r, const char *bench, int scale, pinter_t *out);

/* rows[i] is the row of runs[i] that matches m of nw (the caller matched
 * them).  0, or -1 with "FILE:LINE:COL: problem" when a record of a run is
 * damaged (bad input). */
int results_pool(arena_t *a, const results_t *const *runs, const metric_t *const *rows, size_t nb,
                 const results_t *nw, const metric_t *m, rpool_t *out, char *err, size_t errlen);

/* 1 when the workload config of `bench` differs between x and y: such rows
 * are not compared (compare and history refuse them alike). */
int results_workload_differs(arena_t *a, const results_t *x, const results_t *y, const char *bench);

/* The suite's `regression_threshold_pct` from the run folder's suite.yaml
 * (NaN when it has none).  0, or -1 with "FILE:LINE:COL: problem". */
int results_threshold(arena_t *a, const results_t *r, double *pct, char *err, size_t errlen);

#endif
