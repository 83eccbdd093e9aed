/* summary_cells: what the training rows of the summary (summary.c) and the
 * collectives rows (summary_coll.c) print alike, so that each of the two
 * includes this and neither includes the other's header.
 * defines: summary_row, summary_checks_cell */
#ifndef EXADL_HARNESS_SUMMARY_CELLS_H
#define EXADL_HARNESS_SUMMARY_CELLS_H

#include <stdio.h>

#include "harness/checks/refcheck.h"

/* One row of n cells: a Markdown row (markdown non-zero), or aligned text in
 * columns of widths w. */
void summary_row(FILE *f, int markdown, const char *const *cells, const int *w, int n);
/* The checks cell of a benchmark at a scale: "3/3 PASS", "2/3 FAIL", or "-"
 * where no check passed or failed. */
void summary_checks_cell(const checks_t *ck, const char *bench, int scale, char *buf, size_t len);

#endif
