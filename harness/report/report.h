/* report: a run's report.md, for people, written whole by looping over the
 * sections of REPORT_SECTIONS (section.h): the summary, the machine, the
 * method, per benchmark the scaling and FLOP-rate tables with their plots and
 * kernel breakdown or the collectives table, the gradient-reduction modes side
 * by side, reference checks (published numbers side by side), and every
 * launch with the log tail of those that failed.  The same loop gives the
 * sections their turn at the metric table, the plots and the run folder. */
#ifndef EXADL_HARNESS_REPORT_H
#define EXADL_HARNESS_REPORT_H

#include "harness/report/runctx.h"

/* After the analysis, before the checks: each section's own numbers
 * (c->section[]) and the metric rows it adds to c->t. */
void report_build(runctx_t *c);
/* Every section's figures into dir, drawn in one gnuplot pass (c->pl; its
 * note says why some are missing). */
void report_plots(runctx_t *c, const char *dir);
/* The files of the sections' own in the run folder (model.yaml). */
void report_files(const runctx_t *c);
/* report.md: every section in order.  0, or -1 with err. */
int report_write(const runctx_t *c, const char *path, char *err, size_t errlen);

#endif
