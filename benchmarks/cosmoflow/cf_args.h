/* cf_args: the cosmoflow command line.  Order of precedence, whatever the
 * order of the arguments: --preset, then --config FILE, then single
 * parameters (as stemdl's). */
#ifndef COSMOFLOW_CF_ARGS_H
#define COSMOFLOW_CF_ARGS_H

#include <stdint.h>

#include "benchmarks/cosmoflow/model/cf_config.h"

typedef struct {
    cf_cfg cfg;
    const char *record;       /* --record FILE, or NULL */
    const char *config;       /* --config FILE, or NULL */
    int describe;             /* --describe: layer table, nothing allocated */
    int sysinfo;              /* --sysinfo: the record's system block */
    int quiet;                /* --quiet: no progress lines */
    const char *dump_weights; /* --dump-weights PATH: final weights, raw fp32, PATH.<rank> */
    const char *write_data;   /* --write-data FILE: write synthetic samples and exit */
    int64_t samples;          /* --samples N for --write-data (default 4) */
} cf_args;

/* Parse argv; on bad input prints one line (rank 0) and exits 2; --help
 * prints the usage and exits 0. */
void cf_args_parse(cf_args *a, int argc, char **argv, int rank);

#endif
