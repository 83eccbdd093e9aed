/* cf_args: the cosmoflow command line: the options every training program
 * takes (benchmarks/train/tprog.h: order of precedence, whatever the order
 * of the arguments: --preset, then --config FILE, then single parameters)
 * over CosmoFlow's configuration, and --write-data and --samples. */
#ifndef COSMOFLOW_CF_ARGS_H
#define COSMOFLOW_CF_ARGS_H

#include <stdint.h>

#include "benchmarks/cosmoflow/model/cf_config.h"
#include "benchmarks/train/tprog.h"

typedef struct {
    cf_cfg cfg;
    tprog_args t;           /* --record, --config, --describe, --sysinfo, --quiet, --dump-weights */
    const char *write_data; /* --write-data FILE: write synthetic samples and exit */
    int64_t samples;        /* --samples N for --write-data (default 4) */
} cf_args;

/* Parse argv; on bad input prints one line (rank 0) and exits 2; --help
 * prints the usage and exits 0. */
void cf_args_parse(cf_args *a, int argc, char **argv, int rank);

#endif
