/* args: the stemdl command line.  Order of precedence, whatever the order of
 * the arguments: --preset, then --config FILE, then single parameters. */
#ifndef STEMDL_ARGS_H
#define STEMDL_ARGS_H

#include "benchmarks/stemdl/model/config.h"

typedef struct {
    cfg_t cfg;
    const char *record;   /* --record FILE, or NULL */
    const char *config;   /* --config FILE, or NULL */
    int describe;         /* --describe: layer table, nothing allocated */
    int sysinfo;          /* --sysinfo: the record's system block */
    int quiet;            /* --quiet: no progress lines */
    const char *dump_weights; /* --dump-weights PATH: final weights, raw fp32, PATH.<rank> */
} args_t;

/* Parse argv; on bad input prints one line (rank 0) and exits 2; --help
 * prints the usage and exits 0. */
void args_parse(args_t *a, int argc, char **argv, int rank);

#endif
