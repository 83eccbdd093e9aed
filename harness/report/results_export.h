/* results_export: results.csv and results.json beside results.yaml, for
 * spreadsheets and scripts: every metric row of the run (benchmark, scale,
 * metric, value, 95% CI, samples, unit, a collective row's op, bytes,
 * dtype, inplace) with the run's name, machine and exadl commit.  Text from
 * records is quoted (CSV: doubled quotes; JSON: escapes); NaN is empty / null. */
#ifndef EXADL_HARNESS_RESULTS_EXPORT_H
#define EXADL_HARNESS_RESULTS_EXPORT_H

#include <stddef.h>

typedef struct runctx runctx_t; /* report/runctx.h */

int results_write_csv(const runctx_t *c, const char *path, char *err, size_t errlen);
int results_write_json(const runctx_t *c, const char *path, char *err, size_t errlen);

#endif
