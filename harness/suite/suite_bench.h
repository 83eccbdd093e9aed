/* suite_bench: one benchmark entry of a suite and its scaling mode, the types
 * the suite parser (suite.h) and its value readers (suite_values.h) share;
 * types only, so neither module includes the other.
 * defines: scaling_kind, bench_spec_t */
#ifndef EXADL_HARNESS_SUITE_BENCH_H
#define EXADL_HARNESS_SUITE_BENCH_H

#include <stddef.h>

#include "harness/util/util.h"

/* weak: fixed batch per rank; strong: fixed global batch (global_batch);
 * spatial: the program's batch unchanged at every scale while more ranks
 * split each sample (cosmoflow --spatial auto): strong scaling of one
 * sample's work, efficiency T(N0) N0 / (N T(N)) */
typedef enum { SCALING_WEAK, SCALING_STRONG, SCALING_SPATIAL } scaling_kind;

/* kv_t (a key and its value): harness/util/util.h */

typedef struct {
    const char *name;         /* unique within the suite */
    const char *program;      /* as written */
    const char *program_path; /* resolved; NULL when not found */
    int optional;             /* skipped (not failed) when the program is unusable */
    kv_t *config;
    size_t nconfig;
    const char *config_file;  /* resolved path, passed as --config */
    const char **args;        /* extra arguments, as written */
    size_t nargs;
    scaling_kind scaling;
    long long global_batch;   /* strong scaling: samples per step over all ranks */
    int *scales;
    size_t nscales;
    int repetitions;
    double timeout_s;
    kv_t *env;                /* suite env, then the benchmark's own */
    size_t nenv;
    int line;                 /* where it was defined */
} bench_spec_t;

#endif
