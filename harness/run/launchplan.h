/* plan: a suite turned into the list of launches (benchmark x repetition x
 * scale) with the exact command line of each, launcher included. */
#ifndef EXADL_HARNESS_LAUNCHPLAN_H
#define EXADL_HARNESS_LAUNCHPLAN_H

#include "harness/proc/argv.h"
#include "harness/suite/suite.h"

typedef struct {
    size_t index;                /* 0-based, in launch order */
    const bench_spec_t *b;
    int scale;                   /* MPI ranks */
    int nodes, ranks_per_node;
    int rep;                     /* 1-based repetition */
    const char *id;              /* "stemdl-n2-r1": names the record and the log */
    const char *record;          /* path the benchmark writes its record to */
    const char *log;             /* path of its stdout + stderr */
    char **argv;                 /* full command, launcher included, NULL-terminated */
    const kv_t *env;             /* variables to set (value NULL: unset) */
    size_t nenv;
} launch_t;

typedef struct {
    launch_t *l;
    size_t n;
} launchplan_t;

/* Launch order: for each benchmark, for each repetition, scales ascending (so
 * a slow drift of the machine does not fall on one scale).  rundir NULL gives
 * relative record and log paths (for printing a plan). */
void launchplan_build(arena_t *a, const suite_t *s, const char *rundir, launchplan_t *p);

/* The benchmark's own command (no launcher): program, options, --record. */
char **launchplan_bench_argv(arena_t *a, const suite_t *s, const bench_spec_t *b, int scale,
                       const char *record);
/* Wrap a benchmark command in the suite's launcher (harness/launchers/); b's
 * variables are what the launcher carries to other nodes (b NULL: none). */
/* The threads per rank a benchmark's config asks for (`threads:`); 0: not said. */
int launchplan_threads(const bench_spec_t *b);
char **launchplan_wrap(arena_t *a, const suite_t *s, const bench_spec_t *b, char **inner,
                      int scale, int nodes, int rpn);
/* Ranks per node the launcher is told (0: all on one node). */
int launchplan_ranks_per_node(const suite_t *s);
/* argv_join (argv as one shell-quoted line): harness/proc/argv.h */

#endif
