/* cmd_compare_proc: `exadl compare --mode procurement A B`: per metric and
 * scale the ratio B/A with its 95% CI, a winner per row and the geometric
 * mean of the headline speed ratios (ratio.h).  cmd_compare.c parses the
 * options into copts_t, loads the runs, lists their differences and runs
 * either this mode or regression mode.
 *
 * Split from cmd_compare.c by mode: procurement shares with regression only
 * the options and the rule for rows whose workload config differs, which
 * this header holds (copts_refused, copts_marked: one rule for both modes).
 *
 * defines: copts_t, copts_refused, copts_marked, cproc_run */
#ifndef EXADL_HARNESS_CMD_COMPARE_PROC_H
#define EXADL_HARNESS_CMD_COMPARE_PROC_H

#include <stddef.h>

#include "harness/analysis/metrics.h"
#include "harness/report/results.h"
#include "harness/report/results_diff.h"
#include "harness/util/util.h"

typedef struct {
    const char *only[64];
    size_t nonly;
    int all, allow, procurement, pool_flag;
    int ignore_intf; /* --ignore-interference: busy sides still decide (tags kept) */
    double threshold;
    const char *threshold_from; /* " (--threshold)", " (the suite's)", " (default)" */
    const char *run[64];
    size_t nrun;
} copts_t;

/* every row of `t` wanted; refused when its workload config differs */
static inline int copts_refused(const copts_t *o, const rdiffs_t *d, size_t nd, const metric_t *m)
{
    if (o->allow) return 0;
    for (size_t i = 0; i < nd; i++)
        if (results_config_differs(&d[i], m->bench)) return 1;
    return 0;
}

static inline int copts_marked(const rdiffs_t *d, size_t nd, const metric_t *m)
{
    for (size_t i = 0; i < nd; i++)
        if (results_config_differs(&d[i], m->bench)) return 1;
    return 0;
}

/* Procurement mode over the two runs r (A, B) and their differences d; the
 * exit status: 0, or 2 when no row could be compared. */
int cproc_run(arena_t *a, const copts_t *o, results_t *r, rdiffs_t *d);

#endif
