/* check_report: report-check.md, what `exadl check` writes beside a run's
 * report.md: the new verdict first, the failed checks (value, bound, margin),
 * the warnings, then every check grouped (a check that expands to many rows,
 * such as wrong: 0 over every collective size, is one line with its count;
 * only its failing rows are listed one by one).  report.md stays as the run
 * wrote it, so both verdicts can be handed over. */
#ifndef EXADL_HARNESS_CHECK_REPORT_H
#define EXADL_HARNESS_CHECK_REPORT_H

#include "harness/report/results.h"

/* Write PATH; files: the reference files checked.  0, or -1 with err. */
int check_report_write(const char *path, const results_t *r, const checks_t *ck,
                       const char *const *files, size_t nfiles, char *err, size_t errlen);

#endif
