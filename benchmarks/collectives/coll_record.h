/* report: the common keys of a collectives or orchestration record. */
#ifndef EXADL_COLL_REPORT_H
#define EXADL_COLL_REPORT_H

#include "benchmarks/common/record/record.h"
#include "benchmarks/common/sysinfo.h"

/* Open the record and write the keys docs/record.md makes common, up to and
 * including `system`; the caller adds config, ranks, ... and closes with
 * coll_report_close.  NULL (with a message on stderr) when it cannot be
 * created. */
rec_t *coll_report_open(const char *path, const char *benchmark, const char *status,
                        const char *error, const char *started_utc, int argc, char **argv,
                        const sysinfo_t *si);
/* End the top mapping and move the file into place; 0 or -1 (message printed). */
int coll_report_close(rec_t *r);
/* validation: one entry */
void coll_report_validation(rec_t *r, const char *check, const char *outcome, const char *detail);

#endif
