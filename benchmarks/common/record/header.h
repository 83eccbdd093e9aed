/* header: the keys every result record starts with (docs/record.md "Keys
 * common to every benchmark"), written by one function for every benchmark,
 * and the one form of a validation entry.
 *
 * defines: rec_header_t, rec_header_open, rec_header_close, rec_validation. */
#ifndef EXADL_RECORD_HEADER_H
#define EXADL_RECORD_HEADER_H

#include "benchmarks/common/record/record.h"
#include "benchmarks/common/sysinfo.h"

typedef struct {
    const char *benchmark;   /* the record kind: stemdl, collectives, orchestration */
    const char *status;      /* ok | failed | invalid */
    const char *error;       /* one line when status is not ok; NULL writes null */
    const char *started_utc; /* ISO 8601 */
    int argc;                /* command: the benchmark's argv as run */
    char *const *argv;
    const sysinfo_t *system;
    /* writes `config:` and its mapping (every parameter that ran); NULL writes
     * an empty mapping */
    void (*config)(rec_t *r, const void *arg);
    const void *config_arg;
    int ranks, gpus;
    const char *backend, *precision;
} rec_header_t;

/* Open a result record at path (rec_open), begin its top mapping and write
 * the common keys in the documented order: exadl_record, benchmark, status,
 * error, started_utc, command, system, config, ranks, gpus, backend,
 * precision.  The benchmark's own keys follow, then `validation`, then
 * rec_header_close.  NULL with err when the file cannot be created. */
rec_t *rec_header_open(const char *path, const rec_header_t *h, char *err, size_t errlen);
/* End the top mapping and move the record into place (rec_close); 0, or -1
 * with err. */
int rec_header_close(rec_t *r, char *err, size_t errlen);

/* One entry of the `validation` list (the caller opens it with
 * rec_key(r, "validation") and rec_seq_begin):
 *     {check, outcome: pass | fail | skipped, decides_status, detail}
 * decides_status: a fail makes the record invalid (0: informative only). */
void rec_validation(rec_t *r, const char *check, const char *outcome, int decides_status,
                    const char *detail);

#endif
