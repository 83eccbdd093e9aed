/* text_table: a table printed once every row is known, each column as wide
 * as its widest cell, so that long values (FLOP/s with their CI, verdicts
 * with their advice) never shift the columns (exadl compare's tables). */
#ifndef EXADL_HARNESS_TEXT_TABLE_H
#define EXADL_HARNESS_TEXT_TABLE_H

#include "harness/util/util.h"

typedef struct {
    const char **cell; /* ncol per row */
    size_t ncol, nrow, cap;
} table_t;

/* Add a row of t->ncol cells (copied into the arena). */
void table_row(arena_t *a, table_t *t, const char *const *cells);
/* Print every row to stdout, the last column unpadded. */
void table_print(const table_t *t);

#endif
