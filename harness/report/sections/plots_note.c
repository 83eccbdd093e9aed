/* Report section: one line saying why plots are missing (no gnuplot, or
 * gnuplot failed), when some are. */
#include "harness/report/runctx.h"

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    (void)self;
    if (c->pl.note) sb_printf(o, "\nPlots: %s.\n", c->pl.note);
}

const section_t section_plots_note = {.name = "plots_note", .md = md};
