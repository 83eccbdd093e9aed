/* suite_values: reading the values of a suite (scales, env, config, lists),
 * shared by suite.c; every error is positioned (FILE:LINE:COL). */
#ifndef EXADL_HARNESS_SUITE_VALUES_H
#define EXADL_HARNESS_SUITE_VALUES_H

#include "benchmarks/common/ytree.h"
#include "harness/suite/machine.h"
#include "harness/suite/suite_bench.h"

#define MAX_SCALES 64
#define MAX_SCALE 10000000

typedef struct {
    arena_t *a;
    const ytdoc *d;
    char *err;
    size_t errlen;
    const machine_t *m;
    const char *dir;
} ctx_t;

int suite_err_at(ctx_t *c, const ytnode *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* a text value's placeholders (suite_vars.h): -1 with "FILE:LINE:COL: WHAT:
 * problem", the column the offending brace's */
int suite_check_vars(ctx_t *c, const ytnode *n, const char *what);
int suite_scalar_str(ctx_t *c, const ytnode *n, const char *what, const char **out);
int suite_int_in(ctx_t *c, const ytnode *n, const char *what, long long lo, long long hi,
                 long long *out);
/* a number in [lo, hi]; else "WHAT: V is out of range (allowed LO to HI)" */
int suite_num_in(ctx_t *c, const ytnode *n, const char *what, double lo, double hi, double *out);
/* The ranges of a suite's times and rates: a timeout of 1e-9 s (every
 * launch times out) or a grace of 1e308 s is a mistake, not a setting. */
#define SUITE_TIMEOUT_MIN_S 0.1
#define SUITE_TIMEOUT_MAX_S 2592000.0 /* 30 days */
#define SUITE_GRACE_MIN_S 0.01
#define SUITE_GRACE_MAX_S 3600.0
#define SUITE_PEAK_MAX_FLOPS 1e21
/* lo, lo*f, ... up to hi (and hi itself) */
int suite_powers(ctx_t *c, const ytnode *n, long long lo, long long hi, long long f, int *v,
                 size_t *nv);
/* a list, a number, auto, or {min, max, factor}: sorted, arena-allocated */
int suite_parse_scales(ctx_t *c, const ytnode *n, int **out, size_t *nout);
/* env: map of NAME: value|null, merged into (*out, *nout) (same names replaced);
 * *cap is the room *out owns: 0 when it is shared (the suite's env a
 * benchmark starts from), which is then copied before it changes */
int suite_parse_env(ctx_t *c, const ytnode *n, kv_t **out, size_t *nout, size_t *cap);
int suite_parse_config(ctx_t *c, const ytnode *n, bench_spec_t *b);
int suite_parse_strlist(ctx_t *c, const ytnode *n, const char *what, const char ***out,
                        size_t *nout);
int suite_parse_scaling(ctx_t *c, const ytnode *n, scaling_kind *out);

#endif
