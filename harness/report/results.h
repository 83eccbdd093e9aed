/* results: a run's results.yaml, written atomically (every derived metric,
 * every launch with how it ended, the checks) and read back by `exadl check`,
 * `compare`, `history` and `summary`. */
#ifndef EXADL_HARNESS_RESULTS_H
#define EXADL_HARNESS_RESULTS_H

#include "benchmarks/common/record/record.h"
#include "harness/checks/refcheck.h"

#define RESULTS_FORMAT_VERSION 1

typedef struct {
    const char *name;        /* benchmark skipped */
    const char *reason;
} skipped_t;

typedef struct {
    const char *dir, *name;  /* run folder and its base name */
    const char *suite, *suite_file, *started_utc, *finished_utc, *host, *command;
    int interrupted, exit_status;
    outcome_t *o;
    size_t no;
    skipped_t *skipped;
    size_t nskipped;
    const char **references; /* paths relative to the run folder */
    size_t nreferences;
    double wall_s, launches_s, probe_s, analysis_s, plots_s, report_s;
    const char *plots_note;  /* why plots are missing, or NULL */
} runinfo_t;

int results_write(const char *path, const runinfo_t *ri, const analysis_t *an,
                  const mtable_t *t, const checks_t *ck, char *err, size_t errlen);

typedef struct {
    const char *path, *dir, *name;
    const char *suite, *started_utc, *host, *status;
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
