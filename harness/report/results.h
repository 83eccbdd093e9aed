/* results: a run's results.yaml, written atomically (every derived metric,
 * every launch with how it ended, the checks) and read back by `exadl check`,
 * `compare`, `history` and `summary` (results_load.c).
 * defines: results_write, results_t, results_load, results_copy_node */
#ifndef EXADL_HARNESS_RESULTS_H
#define EXADL_HARNESS_RESULTS_H

#include "benchmarks/common/record/record.h"
#include "harness/checks/refcheck.h"

#define RESULTS_FORMAT_VERSION 1

typedef struct runctx runctx_t; /* report/runctx.h */

/* results.yaml of a finished `exadl run` (c->ri: the run and harness_cost
 * blocks; the analysis, metric table and checks).  0, or -1 with err. */
int results_write(const runctx_t *c, const char *path, char *err, size_t errlen);

typedef struct {
    const char *path, *dir, *name;
    const char *suite, *started_utc, *host, *status;
    const char *machine;          /* the machine's name: run.machine, else the host */
    const char *version, *commit; /* the exadl that wrote it (NULL: an older exadl) */
    const ytnode *root;           /* the whole file (config and launches for compare) */
    int launches, launches_failed;
    mtable_t t;
    checks_t checks;
    const char **references; /* absolute */
    size_t nreferences;
    const ytnode *system;
} results_t;

/* RUN is a run folder or its results.yaml.  0, or -1 with a message. */
int results_load(arena_t *a, const char *run, results_t *r, char *err, size_t errlen);

/* The `system` block, or any YAML node, written as it was read. */
void results_copy_node(rec_t *w, const ytnode *n);

#endif
