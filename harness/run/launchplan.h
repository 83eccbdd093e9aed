/* plan: a suite turned into the list of launches (benchmark x repetition x
 * scale) with the exact command line of each, launcher included. */
#ifndef EXADL_HARNESS_LAUNCHPLAN_H
#define EXADL_HARNESS_LAUNCHPLAN_H

#include "harness/proc/argv.h"
#include "harness/suite/suite.h"
#include "harness/suite/suite_vars.h"

typedef struct {
    size_t index;                /* 0-based, in launch order */
    const bench_spec_t *b;
    int scale;                   /* MPI ranks */
    int nodes, ranks_per_node;
    int rep;                     /* 1-based repetition */
    const char *id;              /* "stemdl-n2-r1": names the record and the log */
    const char *record;          /* path the benchmark writes its record to */
    const char *log;             /* path of its stdout + stderr */
    const char *dir;             /* its own folder launches/<id>, when its command names
                                  * {launch_dir} (made before it starts); else NULL */
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

/* The benchmark's own command (no launcher): program, options, --record;
 * the placeholders of its config values and args filled in from v
 * (suite_vars.h). */
char **launchplan_bench_argv(arena_t *a, const suite_t *s, const bench_spec_t *b, int scale,
                       const char *record, const suite_vars_t *v);
/* The placeholders' values for launch id of the run folder rundir (NULL:
 * relative to it, "." and "launches/<id>", for printing a plan and for the
 * programs' --check-config before the folder exists). */
suite_vars_t launchplan_vars(arena_t *a, const char *rundir, const char *id);
/* 1 when b's config or args name {launch_dir}. */
int launchplan_uses_launch_dir(const bench_spec_t *b);
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
