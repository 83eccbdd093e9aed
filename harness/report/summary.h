/* summary: the short table `exadl run` ends with (and `exadl summary RUN`
 * prints, and report.md opens with): per benchmark and scale the samples/s,
 * efficiency, FLOP/s and checks; collectives in their own rows (summary_coll.h). */
#ifndef EXADL_HARNESS_SUMMARY_H
#define EXADL_HARNESS_SUMMARY_H

#include <stdio.h>

#include "harness/checks/refcheck.h"

/* markdown: a Markdown table; else aligned text. */
void summary_print(FILE *f, const mtable_t *t, const checks_t *ck, int markdown);

/* What the training rows (summary.c) and the collectives rows
 * (summary_coll.c) print alike: one row of n cells (a Markdown row, or
 * aligned text in columns of widths w), and the checks cell of a benchmark
 * at a scale: "3/3 PASS", "2/3 FAIL", or "-" where no check passed or failed. */
void summary_row(FILE *f, int markdown, const char *const *cells, const int *w, int n);
void summary_checks_cell(const checks_t *ck, const char *bench, int scale, char *buf, size_t len);

/* "6 passed, 1 failed, 5 not applicable" (static buffer). */
const char *checks_line(const checks_t *ck);

/* Find the row (bench, scale, metric); NULL when absent. */
const metric_t *mtable_find(const mtable_t *t, const char *bench, int scale, const char *metric);

#endif
