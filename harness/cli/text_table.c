/* text_table (text_table.h). */
#include "harness/cli/text_table.h"

#include <stdio.h>
#include <string.h>

void table_row(arena_t *a, table_t *t, const char *const *cells)
{
    if ((t->nrow + 1) * t->ncol > t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 16 * t->ncol;
        const char **c = ar_alloc(a, nc * sizeof *c);
        if (t->nrow) memcpy(c, t->cell, t->nrow * t->ncol * sizeof *c);
        t->cell = c, t->cap = nc;
    }
    for (size_t k = 0; k < t->ncol; k++) t->cell[t->nrow * t->ncol + k] = ar_strdup(a, cells[k]);
    t->nrow++;
}

void table_print(const table_t *t)
{
    size_t w[16] = {0};
    for (size_t r = 0; r < t->nrow; r++)
        for (size_t k = 0; k < t->ncol && k < 16; k++) {
            size_t l = strlen(t->cell[r * t->ncol + k]);
            if (l > w[k]) w[k] = l;
        }
    for (size_t r = 0; r < t->nrow; r++) {
        for (size_t k = 0; k < t->ncol; k++) {
            const char *c = t->cell[r * t->ncol + k];
            if (k + 1 == t->ncol) printf("%s\n", c);
            else printf("%-*s  ", (int)w[k], c);
        }
    }
}
