/* workload: what the harness knows about each benchmark program, from ONE
 * table (registry.c): its program, the `benchmark:` value of its records,
 * how to ask it for its network's counts without running it, its
 * exact-reference file, the option that checks its configuration (check_config),
 * whether it prints a record's system block, whether
 * its records feed the scaling model, and the report sections its suite
 * entries get.  Commands, checks, the model and the report look workloads up
 * here instead of testing program names.  A record kind not in the table is
 * still analysed: the report then shows every per-benchmark section that
 * finds data in it (report/sections/benchmarks.c).
 * defines: workload_t, workloads, workload_of_kind, workload_named,
 *          workload_describer, workload_trainer, workload_describes,
 *          workload_programs */
#ifndef EXADL_HARNESS_WORKLOAD_H
#define EXADL_HARNESS_WORKLOAD_H

#include "harness/util/util.h"

typedef struct {
    const char *name;     /* how suites, references (where: benchmark) and messages say it */
    const char *program;  /* its program in exadl's bin/ */
    const char *kind;     /* the `benchmark:` value of its records */
    /* `PROGRAM DESCRIBE --key value ...` prints "metric value" lines of the
     * configuration without running it (NULL: it cannot); the metrics it
     * answers, NULL-terminated */
    const char *describe;
    const char *const *describe_metrics;
    const char *exact_reference; /* its exact counts, from the project root (NULL: none) */
    /* `PROGRAM OPTIONS... CHECK_CONFIG` reads the options and configuration a
     * launch would get, runs nothing, and exits 0, or 2 with its own one-line
     * error (benchmarks/common/opt.h): what `exadl validate` asks (NULL: it
     * cannot) */
    const char *check_config;
    int sysinfo;          /* `PROGRAM --sysinfo` prints the `system:` block of a record */
    int trains;           /* records hold training steps and a gradient_reduction block:
                             the scaling model's workload and the ablation's rows */
    const char *const *sections; /* per-benchmark report sections, NULL-terminated */
} workload_t;

/* The table, in registry.c; ends with an entry whose name is NULL. */
extern const workload_t workloads[];

/* The workload whose records say `benchmark: KIND`; NULL when none. */
const workload_t *workload_of_kind(const char *kind);
/* The workload a suite entry or a reference's `where: benchmark` names: its
 * name, record kind or program (the first in table order); NULL when none. */
const workload_t *workload_named(const char *name);
/* The workload that answers `describe` for a reference's where: benchmark
 * (NULL: the first that can describe); NULL when it cannot. */
const workload_t *workload_describer(const char *bench);
/* The first workload whose records feed the scaling model (NULL: none). */
const workload_t *workload_trainer(void);
/* Whether w's describe answers metric. */
int workload_describes(const workload_t *w, const char *metric);
/* "stemdl, collectives": the distinct programs, in table order. */
const char *workload_programs(arena_t *a);

#endif
