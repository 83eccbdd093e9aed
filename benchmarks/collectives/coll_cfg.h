/* coll_cfg: the collectives program's command line (docs/collectives.md):
 * the options, their defaults, the usage text (its --op part generated from
 * the registry) and the sizes a run measures.
 * defines: coll_cfg_t, coll_cfg_parse, coll_cfg_sizes */
#ifndef EXADL_COLL_CFG_H
#define EXADL_COLL_CFG_H

#include <stddef.h>

#include "benchmarks/collectives/bench.h"
#include "benchmarks/collectives/coll.h"

#define COLL_MAX_SIZES 128

typedef struct {
    int backend;
    int ops[COLL_NOPS + 1]; /* picked, indexed like coll_ops */
    int dtypes[DT_COUNT], redops[RED_COUNT];
    int root;
    size_t min_bytes, max_bytes;
    int min_given;
    long long factor;
    int iters, warmup;      /* -1: adaptive */
    int per_call;           /* --timing per-call (0: batched, the default) */
    double batch_target_s;  /* --batch-us: the least duration of a batch */
    int batch_calls;        /* --batch N: calls per batch (0: from --batch-us) */
    int inplace_mode;       /* 0 out-of-place, 1 in-place, 2 both */
    unsigned long long seed;
    const char *record;
    coll_check_opts_t chk;
} coll_cfg_t;

extern const char *const coll_inplace_names[]; /* "no", "yes", "both" */
extern const char *const coll_timing_names[];  /* "batched", "per-call" */

/* Parse argv (--help prints the usage and exits 0); a bad option is one
 * line and exit status 2 (mpiopt.h). */
void coll_cfg_parse(int argc, char **argv, coll_cfg_t *c);

/* The sizes of one operation and type: MIN, MIN*F, ... <= MAX.  Without -b
 * the first size is raised so that every rank gets one element.  At most
 * COLL_MAX_SIZES; returns how many. */
int coll_cfg_sizes(const coll_cfg_t *c, const coll_op_t *op, coll_dtype_t t, int nranks,
                   size_t *out);

#endif
