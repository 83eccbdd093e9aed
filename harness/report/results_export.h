/* results_export: results.csv and results.json beside results.yaml, for
 * spreadsheets and scripts, in the typed schema of docs/record.md: every
 * metric row of the run (benchmark, scale, metric, value, 95% CI, samples,
 * unit, the keys that tell rows apart: checks/rowkeys.h) with the run's
 * name, machine and exadl commit; results.json also the run's status, its
 * check counts and every check as results.yaml has them.  Text from records
 * is quoted (CSV: doubled quotes; JSON: escapes); NaN is empty / null. */
#ifndef EXADL_HARNESS_RESULTS_EXPORT_H
#define EXADL_HARNESS_RESULTS_EXPORT_H

#include <stddef.h>

typedef struct runctx runctx_t; /* report/runctx.h */

/* results.yaml's run.status: interrupted, reference_error, failed or ok */
const char *results_status(const runctx_t *c);

int results_write_csv(const runctx_t *c, const char *path, char *err, size_t errlen);
int results_write_json(const runctx_t *c, const char *path, char *err, size_t errlen);

#endif
