/* The cells both tables of the summary print (summary_cells.h). */
#include "harness/report/summary_cells.h"

#include <string.h>

void summary_row(FILE *f, int md, const char *const *cells, const int *w, int n)
{
    for (int i = 0; i < n; i++) {
        if (md) fprintf(f, "| %s ", cells[i]);
        else fprintf(f, "%-*s%s", w[i], cells[i], i + 1 < n ? "  " : "");
    }
    fprintf(f, md ? "|\n" : "\n");
}

void summary_checks_cell(const checks_t *ck, const char *bench, int scale, char *buf, size_t len)
{
    int p = 0, nf = 0;
    for (size_t j = 0; j < ck->n; j++) {
        const check_t *c = &ck->c[j];
        if (!c->bench || strcmp(c->bench, bench) || c->scale != scale) continue;
        if (c->outcome == CK_PASS) p++;
        else if (c->outcome == CK_FAIL) nf++;
    }
    if (p + nf == 0) snprintf(buf, len, "-");
    else snprintf(buf, len, "%d/%d %s", p, p + nf, nf ? "FAIL" : "PASS");
}
