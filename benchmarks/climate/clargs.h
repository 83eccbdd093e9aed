/* clargs: the climate command line: the options every training program takes
 * (benchmarks/train/tprog.h: --preset, then --config FILE, then single
 * parameters, whatever their order) over the climate configuration, and the
 * time-to-quality options of benchmarks/train/tdataopt.h that apply to
 * samples made in memory (--eval-every, --target-loss, --mllog,
 * --val-samples). */
#ifndef CLIMATE_CLARGS_H
#define CLIMATE_CLARGS_H

#include "benchmarks/networks/deepcam/cl_config.h"
#include "benchmarks/train/tprog.h"
#include "benchmarks/train/ttt.h"

typedef struct {
    cl_cfg cfg;
    tprog_args t; /* --record, --config, --describe, --sysinfo, --quiet, --dump-weights */
    ttt_cfg quality;      /* --eval-every, --target-loss, --mllog (benchmarks/train/ttt.h) */
    int64_t val_samples;  /* --val-samples: the synthetic validation split */
} args_t;

/* Parse argv; bad input: one line (rank 0), exit 2; --help: usage, exit 0. */
void args_parse(args_t *a, int argc, char **argv, int rank);

#endif
