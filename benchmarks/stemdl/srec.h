/* srec: the stemdl result record (docs/record.md) and the human summary:
 * the record kind and the `config` block here, everything else from the
 * runtime (benchmarks/train/trec.h) and the network's own block. */
#ifndef STEMDL_SREC_H
#define STEMDL_SREC_H

#include "benchmarks/common/sysinfo.h"
#include "benchmarks/stemdl/args.h"
#include "benchmarks/train/train.h"

typedef struct {
    const args_t *args;
    const train_job *job;       /* the network, its model, run parameters, backend, ranks */
    const sysinfo_t *sys;
    const train_result *result; /* NULL when the run failed before training */
    const char *error;          /* status failed: why */
    int argc;
    char **argv;
    const char *started_utc;
} srec_t;

/* Write the record to path; 0, or -1 with err. */
int srec_write(const srec_t *s, const char *path, char *err, size_t errlen);
/* The short human summary on stdout. */
void srec_print_summary(const srec_t *s, const char *record_path);

#endif
