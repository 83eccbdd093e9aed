/* report: a run's report.md, for people: the summary, the machine, the method,
 * per benchmark the scaling and FLOP-rate tables with their plots, the kernel
 * breakdown, collectives, reference checks (published numbers side by side),
 * and every launch with the log tail of those that failed.  Written whole. */
#ifndef EXADL_HARNESS_REPORT_H
#define EXADL_HARNESS_REPORT_H

#include "harness/model/ablation.h"
#include "harness/report/plots.h"
#include "harness/report/results.h"

/* ab (may be NULL): the gradient-reduction section (ablation.h). */
int report_write(arena_t *a, const char *path, const runinfo_t *ri, const analysis_t *an,
                 const mtable_t *t, const checks_t *ck, const plots_t *pl, const ablation_t *ab,
                 char *err, size_t errlen);

#endif
