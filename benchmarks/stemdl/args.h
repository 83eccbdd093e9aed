/* args: the stemdl command line: the options every training program takes
 * (benchmarks/train/tprog.h: order of precedence, whatever the order of the
 * arguments: --preset, then --config FILE, then single parameters) over
 * stemdl's configuration, and its data set, time-to-train, checkpoint and
 * read-only options (benchmarks/train/tdataopt.h, st_data.h, docs/data.md). */
#ifndef STEMDL_ARGS_H
#define STEMDL_ARGS_H

#include "benchmarks/networks/fcdensenet/config.h"
#include "benchmarks/stemdl/st_data.h"
#include "benchmarks/train/ckpt.h"
#include "benchmarks/train/tprog.h"
#include "benchmarks/train/ttt.h"

typedef struct {
    cfg_t cfg;
    tprog_args t;     /* --record, --config, --describe, --sysinfo, --quiet, --dump-weights */
    st_data_opts data; /* --data, --make-data, --format, --samples, ... (docs/data.md) */
    ttt_cfg quality;  /* --eval-every, --target-loss, --mllog */
    ckpt_cfg ckpt;    /* --checkpoint-every, --checkpoint-dir, --restore */
    int read_only;    /* --read-only true: read the batches of every step, no compute */
} args_t;

/* Parse argv; on bad input prints one line (rank 0) and exits 2; --help
 * prints the usage and exits 0. */
void args_parse(args_t *a, int argc, char **argv, int rank);

#endif
