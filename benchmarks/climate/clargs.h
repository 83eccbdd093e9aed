/* clargs: the climate command line: the options every training program takes
 * (benchmarks/train/tprog.h: --preset, then --config FILE, then single
 * parameters, whatever their order) over the climate configuration. */
#ifndef CLIMATE_CLARGS_H
#define CLIMATE_CLARGS_H

#include "benchmarks/networks/deepcam/cl_config.h"
#include "benchmarks/train/tprog.h"

typedef struct {
    cl_cfg cfg;
    tprog_args t; /* --record, --config, --describe, --sysinfo, --quiet, --dump-weights */
} args_t;

/* Parse argv; bad input: one line (rank 0), exit 2; --help: usage, exit 0. */
void args_parse(args_t *a, int argc, char **argv, int rank);

#endif
