/* report: a run's report.md, for people, written whole by looping over the
 * sections of REPORT_SECTIONS (section.h): the summary, the machine, the
 * method, per benchmark the scaling and FLOP-rate tables with their plots and
 * kernel breakdown or the collectives table, the gradient-reduction modes side
 * by side, reference checks (published numbers side by side), and every
 * launch with the log tail of those that failed.  The same loop gives the
 * sections their turn at the plots and the run folder; a record block's
 * section reads that block's derived numbers (c->d, harness/blocks/derive.h). */
#ifndef EXADL_HARNESS_REPORT_H
#define EXADL_HARNESS_REPORT_H

#include "harness/report/runctx.h"

/* Every section's figures into dir, drawn in one gnuplot pass (c->pl; its
 * note says why some are missing). */
void report_plots(runctx_t *c, const char *dir);
/* The files of the sections' own in the run folder (model.yaml). */
void report_files(const runctx_t *c);
/* report.md: every section in order.  0, or -1 with err. */
int report_write(const runctx_t *c, const char *path, char *err, size_t errlen);

#endif
