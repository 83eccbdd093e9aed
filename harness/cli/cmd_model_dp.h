/* cmd_model_dp: `exadl model`'s data-parallel model (docs/model.md) behind
 * its command line: cmd_model.c parses the options into mopts_t (and hands
 * --spatial and --model-parallel to their own files); model_dp_run gathers
 * the inputs (RUN, --network's describe, the machine file, the measured
 * straggler spread and request cost), predicts, and writes model.yaml, the
 * plots and the reference checks.
 *
 * Split from cmd_model.c where the parsed options meet the model: the parser
 * is what the option fuzzer (tests/fuzz/fuzz_options.c) includes.
 *
 * defines: mopts_t, model_dp_parse_scales, model_dp_run */
#ifndef EXADL_HARNESS_CMD_MODEL_DP_H
#define EXADL_HARNESS_CMD_MODEL_DP_H

#include <stddef.h>

#include "harness/model/model.h"
#include "harness/util/util.h"

/* `exadl model`'s options (cmd_model.c: parse_args) */
typedef struct {
    const char *run, *from, *base, *preset, *config, *dfile, *machine, *scales, *modes, *out;
    const char *calib; /* --calibrate-from RUN */
    const char *refs[16];
    int nrefs;
    double rate, cycle_ms, fusion, jitter, creq;
    int convention, batch, groups, quiet, have_algo;
    double grad_bytes;
    ar_algo_t algo;
} mopts_t;

/* --scales: a comma list of GPU counts (1 to 1e8) into *out (of a); 0, or -1. */
int model_dp_parse_scales(arena_t *a, const char *text, int **out, size_t *n);
/* Predict and write what o asks (argv: the command line, for model.yaml);
 * the exit status: 0, 1 (a reference check failed or a file could not be
 * written), 2 (bad input, one line said why). */
int model_dp_run(arena_t *a, const mopts_t *o, int argc, char **argv);

#endif
