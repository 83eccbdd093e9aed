/* cmd_history_rows: which row of each run `exadl history` tabulates: the
 * metric and benchmark, at a scale, narrowed to one collective row by --op,
 * --bytes, --redop and --inplace (hsel_t); the largest scale the runs have
 * in common; how many rows a selection leaves (more than one is bad input,
 * never one picked silently).
 *
 * Split from cmd_history.c (which keeps the command line, the table, the
 * verdict and the plot) where the command stops asking what to show and
 * starts showing it: these functions only read the runs' metric tables.
 *
 * defines: hsel_t, hrows_pick, hrows_matches, hrows_largest_below, hrows_all_have */
#ifndef EXADL_HARNESS_CMD_HISTORY_ROWS_H
#define EXADL_HARNESS_CMD_HISTORY_ROWS_H

#include <stddef.h>

#include "harness/analysis/metrics.h"
#include "harness/report/results.h"
#include "harness/util/util.h"

/* which collective row: --op, --bytes, --redop, --inplace (NULL: any) */
typedef struct {
    const char *op, *bytes, *redop;
    int inplace;
} hsel_t;

/* The row of t for metric (of bench, NULL: any) at scale (0: any) that s
 * selects: within one benchmark the largest scale; NULL: none. */
const metric_t *hrows_pick(const mtable_t *t, const char *metric, const char *bench, int scale,
                           const hsel_t *s);
/* How many rows of t the selection leaves at scale; the first 6 described in which. */
size_t hrows_matches(const mtable_t *t, const char *metric, const char *bench, int scale,
                     const hsel_t *s, sb_t *which);
/* The largest scale below `below` at which one of the n runs r has the metric; 0: none. */
int hrows_largest_below(const results_t *r, size_t n, const char *metric, const char *bench,
                        int below);
/* 1 when every run of r that has the metric has it at scale (and one does). */
int hrows_all_have(const results_t *r, size_t n, const char *metric, const char *bench, int scale,
                   const hsel_t *sel);

#endif
