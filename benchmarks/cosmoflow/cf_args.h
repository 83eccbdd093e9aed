/* cf_args: the cosmoflow command line: the options every training program
 * takes (benchmarks/train/tprog.h: order of precedence, whatever the order
 * of the arguments: --preset, then --config FILE, then single parameters)
 * over CosmoFlow's configuration, and --write-data and --samples; the data
 * set options (--make-data, --format, --val-samples, --shard-samples,
 * --shuffle, --prefetch) and time to train's (--eval-every, --target-loss,
 * --mllog), docs/data.md. */
#ifndef COSMOFLOW_CF_ARGS_H
#define COSMOFLOW_CF_ARGS_H

#include <stdint.h>

#include "benchmarks/cosmoflow/model/cf_config.h"
#include "benchmarks/cosmoflow/model/cf_feed.h"
#include "benchmarks/train/ckpt.h"
#include "benchmarks/train/tprog.h"
#include "benchmarks/train/ttt.h"

typedef struct {
    cf_cfg cfg;
    tprog_args t;           /* --record, --config, --describe, --sysinfo, --quiet, --dump-weights */
    const char *write_data; /* --write-data FILE: write synthetic samples and exit */
    int64_t samples;        /* --samples N for --write-data, --make-data, --data grf (default 4) */
    /* data sets (docs/data.md) */
    const char *make_data;  /* --make-data DIR: write a data set and exit */
    const char *format;     /* --format raw | hdf5 (default hdf5 where built, else raw) */
    int64_t val_samples;    /* --val-samples N (default 0) */
    int64_t shard_samples;  /* --shard-samples N per shard (default 16) */
    const char *stage;      /* --stage DIR: copy the set to node-local DIR first */
    char staged_data[600];  /* files:DIR after staging */
    int read_only;          /* --read-only true: read the batches of every step, no compute */
    int make_missing;       /* --make-missing true: write the GRF set of --data files:DIR first
                               when DIR has none */
    cf_feed_opts feed;      /* --shuffle, --prefetch; the grf sizes */
    ttt_cfg quality;        /* --eval-every, --target-loss, --mllog */
    ckpt_cfg ckpt;          /* --checkpoint-every, --checkpoint-dir, --restore */
} cf_args;

/* Parse argv; on bad input prints one line (rank 0) and exits 2; --help
 * prints the usage and exits 0. */
void cf_args_parse(cf_args *a, int argc, char **argv, int rank);

#endif
