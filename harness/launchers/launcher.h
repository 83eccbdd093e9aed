/* launcher: how one launch's command is started on its ranks: a plain process,
 * an Open MPI job, a Slurm job step, or a site's command template.  Each
 * launcher is one launcher_t in its own file (local.c, mpirun.c, srun.c,
 * template.c) and one line of registry.c, the only list of them: suite
 * parsing, the "did you mean" suggestions, `exadl validate` and the help text
 * all loop over that list.  A launcher sets no MPI variables of its own.
 * defines: launcher_t, launcher_job_t, launch_facts_t, launchers[],
 * launcher_by_name, launcher_select, launcher_wrap, launcher_read_log */
#ifndef EXADL_HARNESS_LAUNCHER_H
#define EXADL_HARNESS_LAUNCHER_H

#include <stddef.h>

#include "harness/proc/argv.h"
#include "harness/util/util.h"

/* One launch as a launcher sees it: the suite's launcher settings and the
 * shape of the job. */
typedef struct {
    const char *text;          /* the suite's `launcher:` text when a text chose the
                                  launcher (a template), else NULL */
    const char *command;       /* launcher_command; NULL: the launcher's own default */
    const char *const *args;   /* launcher_args, placed before the benchmark */
    size_t nargs;
    int scale;                 /* ranks */
    int nodes;                 /* ceil(scale / ranks_per_node); 1 when that is 0 */
    int ranks_per_node;        /* as the suite resolved it; 0: one node holds every rank */
    const char *const *env;    /* names of the variables the launch sets (NULL-terminated,
                                  or NULL): what exports carries to other nodes */
    const char *mpi;           /* srun's --mpi=VALUE (suite launcher_mpi, or the site's
                                  choice, harness/run/slurm.c); NULL: none given */
    int threads;               /* threads per rank the benchmark's config asks for (its
                                  `threads:`); 0: not said, the launcher binds as it likes */
    int cores_per_node;        /* online cores of a node; 0: unknown */
} launcher_job_t;

/* What a launcher's own lines in a launch's log say (read_log): each NULL or 0
 * where it says nothing. */
typedef struct {
    const char *step;          /* the batch system's step ID ("7.3") */
    const char *hosts;         /* the hosts the launch ran on, comma-separated */
    const char *cause;         /* why ranks died: "task 1 on n01: Killed" */
    int not_started;           /* the launcher could not start the job (no step created) */
    const char *not_started_why; /* its message */
    const char *bindings;      /* the cores each rank was bound to, as the launcher
                                  reported them ("rank 0: [B/.]; rank 1: [./B]") */
    int min_cores_bound;       /* the fewest cores a bound rank got (0: not reported;
                                  -1: no rank bound, all cores open to them) */
    int allocation_over;       /* it says the allocation has ended ("Job/step already
                                  completing or completed", "has expired"): true even while
                                  the job's state still reads RUNNING */
} launch_facts_t;

typedef struct launcher {
    const char *name;    /* unique; `exadl validate` prints it */
    const char *summary; /* one line for the help and the docs */
    const char *usage;   /* how a suite asks for it, in "unknown launcher: use ..." */
    const char *example; /* a `launcher:` text that chooses it, where matches does */
    /* NULL: a suite chooses the launcher by writing its name.  Else the
     * launcher is chosen by the text of `launcher:` (1: this text is mine),
     * never by its name. */
    int (*matches)(const char *text);
    /* The chosen text is usable: NULL, else what is wrong (pointer NULL: no check). */
    const char *(*check_text)(arena_t *a, const char *text);
    /* The launcher can start `scale` ranks: NULL, else why not (pointer NULL: any). */
    const char *(*check_scale)(arena_t *a, int scale);
    /* The full command: the launcher's program and options around inner (the
     * benchmark's argv, kept whole and in order). */
    char **(*wrap)(arena_t *a, const launcher_job_t *j, char *const *inner);
    /* Options that carry the launch's variables to the ranks on other nodes;
     * put right after the launcher's program when a launch spans nodes.  NULL
     * where the launcher carries the environment itself (srun) or never
     * leaves the node. */
    void (*exports)(arena_t *a, argv_t *v, const char *const *env);
    /* Which of the suite's launcher_command and launcher_args wrap uses
     * (LAUNCHER_USES_*): a suite giving one the launcher would ignore is
     * refused, not run without it. */
    unsigned uses;
    /* Each launch is a job step of a batch allocation (srun): exadl must run
     * inside one, whose size bounds the scales; probes (peak, describe) run
     * through the launcher on a compute node; a launch that fails because the
     * allocation ended is not a failure but the end of the run (interrupted,
     * harness/run/slurm.c); `exadl run` and `validate` try a 1-rank step
     * first (preflight). */
    int job_steps;
    /* Facts from the launcher's own lines in a launch's log text (NULL: none). */
    void (*read_log)(arena_t *a, const char *log, launch_facts_t *f);
} launcher_t;

#define LAUNCHER_USES_COMMAND 1u
#define LAUNCHER_USES_ARGS 2u

/* ---- registry.c ------------------------------------------------------------------ */
/* Every launcher, NULL-terminated, in the order help and messages list them. */
extern const launcher_t *const launchers[];
/* The launcher a suite without `launcher:` gets. */
const launcher_t *launcher_default(void);
/* The launcher registered under name, or NULL. */
const launcher_t *launcher_by_name(const char *name);
/* The launcher a suite's `launcher:` text chooses (a name, or a text a
 * launcher matches), or NULL. */
const launcher_t *launcher_select(const char *text);
/* The nearest name a suite may write, for "did you mean", or NULL. */
const char *launcher_suggest(const char *text);
/* "local, mpirun, srun, or a command template containing {cmd}" */
char *launcher_usage(arena_t *a);
/* One line per launcher, "  NAME  summary", under a heading. */
char *launcher_help(arena_t *a);
/* The launcher's checks (NULL when fine or when it has none). */
const char *launcher_check_text(arena_t *a, const launcher_t *l, const char *text);
const char *launcher_check_scale(arena_t *a, const launcher_t *l, int scale);
/* The full command of one launch: l->wrap, plus l->exports when the launch
 * spans nodes. */
char **launcher_wrap(arena_t *a, const launcher_t *l, const launcher_job_t *j,
                     char *const *inner);
/* l->read_log over a log's text (f zeroed first; nothing when l has none). */
void launcher_read_log(arena_t *a, const launcher_t *l, const char *log, launch_facts_t *f);

#endif
