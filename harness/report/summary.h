/* summary: the short table `exadl run` ends with (and `exadl summary RUN`
 * prints, and report.md opens with): per benchmark and scale the samples/s,
 * efficiency, FLOP/s and checks; collectives in their own rows (summary_coll.h);
 * the cells both tables print alike in summary_cells.h. */
#ifndef EXADL_HARNESS_SUMMARY_H
#define EXADL_HARNESS_SUMMARY_H

#include <stdio.h>

#include "harness/checks/refcheck.h"

/* markdown: a Markdown table; else aligned text. */
void summary_print(FILE *f, const mtable_t *t, const checks_t *ck, int markdown);

/* "6 passed, 1 failed, 5 not applicable" (static buffer). */
const char *checks_line(const checks_t *ck);

/* Find the row (bench, scale, metric); NULL when absent. */
const metric_t *mtable_find(const mtable_t *t, const char *bench, int scale, const char *metric);

#endif
