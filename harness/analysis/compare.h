/* compare: what `exadl compare` and `exadl history` share about rows: which
 * metrics are shown, which rows of two runs are the same row, and how a value
 * and its CI are written.  The verdicts are verdict.h's (one statistic for
 * both commands). */
#ifndef EXADL_HARNESS_COMPARE_H
#define EXADL_HARNESS_COMPARE_H

#include <stdio.h>

#include "harness/analysis/metrics.h"

/* The default metrics compare shows. */
extern const char *const compare_default_metrics[];

/* Two rows of the same (benchmark, scale, metric, op, bytes, dtype, inplace). */
int compare_same_row(const metric_t *x, const metric_t *y);
/* The row's metric is among only[] (NULL: the default set; all: every one). */
int compare_wanted(const metric_t *m, const char *const *only, size_t nonly, int all);
/* "12.3 [12.1, 12.5] samples/s", "3.64 [2.50, 5.66] GFLOP/s": the value and
 * its CI in the metric's unit, one SI prefix for all three where the unit is
 * FLOP/s or FLOP; the value alone without a CI; "-" for NULL. */
void compare_fmt_value(char *buf, size_t len, const metric_t *m);
void compare_fmt_ci(char *buf, size_t len, double v, double lo, double hi, const char *unit);

#endif
