/* cf_rec: the cosmoflow result record (docs/record.md "cosmoflow") and the
 * human summary: the record kind and the `config` block here, everything
 * else from the runtime (benchmarks/train/trec.h), the network's `network`
 * and `spatial` blocks (cf_network.c) and the run's halo figures. */
#ifndef COSMOFLOW_CF_REC_H
#define COSMOFLOW_CF_REC_H

#include "benchmarks/common/sysinfo.h"
#include "benchmarks/cosmoflow/cf_args.h"
#include "benchmarks/train/train.h"

typedef struct {
    const cf_args *args;
    const train_job *job;
    const sysinfo_t *sys;
    const train_result *result; /* NULL when the run failed before training */
    const char *error;
    int argc;
    char **argv;
    const char *started_utc;
} cf_rec;

/* Write the record to path; 0, or -1 with err. */
int cf_rec_write(const cf_rec *s, const char *path, char *err, size_t errlen);
/* The short human summary on stdout (with the halo time per step). */
void cf_rec_print_summary(const cf_rec *s, const char *record_path);

#endif
