/* compare: two runs side by side, metric by metric, with the change in
 * percent and whether it is beyond the noise (95% confidence intervals that
 * do not overlap).  A regression is a change for the worse that is both
 * significant and larger than the threshold. */
#ifndef EXADL_HARNESS_COMPARE_H
#define EXADL_HARNESS_COMPARE_H

#include <stdio.h>

#include "harness/analysis/metrics.h"

typedef enum { V_SAME, V_BETTER, V_WORSE, V_IMPROVED, V_REGRESSION, V_NOCI, V_ONLY_A, V_ONLY_B } verdict_t;
const char *verdict_name(verdict_t v);

typedef struct {
    const metric_t *a, *b;  /* either may be NULL (only in one run) */
    double change_pct;      /* (b - a) / a * 100 */
    int significant;        /* CIs do not overlap (-1: no CI on a side) */
    verdict_t v;
} cmp_row_t;

/* Judge one pair (both present).  threshold in percent. */
void compare_pair(const metric_t *a, const metric_t *b, double threshold, cmp_row_t *out);

/* Rows of metrics named in only[] (NULL: the default set; all: every metric).
 * Returns the rows (arena) and their count; *regressions counts V_REGRESSION. */
cmp_row_t *compare_tables(arena_t *a, const mtable_t *ta, const mtable_t *tb,
                          const char *const *only, size_t nonly, int all, double threshold,
                          size_t *n, int *regressions);

/* The default metrics compare shows. */
extern const char *const compare_default_metrics[];

/* Two rows of the same (benchmark, scale, metric, op, bytes, dtype, inplace). */
int compare_same_row(const metric_t *x, const metric_t *y);
/* The row's metric is among only[] (NULL: the default set; all: every one). */
int compare_wanted(const metric_t *m, const char *const *only, size_t nonly, int all);
/* "12.3 [12.1, 12.5]" (SI prefixes for FLOP/s), "-" for NULL. */
void compare_fmt_value(char *buf, size_t len, const metric_t *m);

void compare_print(FILE *f, arena_t *a, const cmp_row_t *r, size_t n, double threshold);

#endif
