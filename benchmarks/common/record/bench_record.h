/* bench_record: the common keys of an MPI benchmark's record (collectives,
 * orchestration; docs/record.md), so both programs write them one way.
 * defines: bench_record_open, bench_record_close, bench_record_validation */
#ifndef EXADL_BENCH_RECORD_H
#define EXADL_BENCH_RECORD_H

#include "benchmarks/common/record/record.h"
#include "benchmarks/common/sysinfo.h"

/* Open the record and write the keys docs/record.md makes common, up to and
 * including `system`; the caller adds config, ranks, ... and closes with
 * bench_record_close.  benchmark is also the program named in messages.
 * NULL (with a message on stderr) when it cannot be created. */
rec_t *bench_record_open(const char *path, const char *benchmark, const char *status,
                         const char *error, const char *started_utc, int argc, char **argv,
                         const sysinfo_t *si);
/* End the top mapping and move the file into place; 0 or -1 (message printed). */
int bench_record_close(rec_t *r);
/* validation: one entry */
void bench_record_validation(rec_t *r, const char *check, const char *outcome,
                             const char *detail);

#endif
