/* mpirun: an Open MPI job, `mpirun -np N [--map-by ppr:RPN:node -x VAR...]
 * ARGS CMD`.  The program is launcher_command, else $EXADL_MPIRUN (the tests
 * and run.sh point it at the right installation), else mpirun from PATH. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/launchers/launcher.h"

static char **mpirun_wrap(arena_t *a, const launcher_job_t *j, char *const *inner)
{
    argv_t v = {0};
    const char *env = getenv("EXADL_MPIRUN");
    argv_push(a, &v, j->command ? j->command : env && *env ? env : "mpirun");
    argv_push(a, &v, "-np");
    argv_pushf(a, &v, "%d", j->scale);
    if (j->nodes > 1) { /* spread evenly rather than filling the first node's slots */
        argv_push(a, &v, "--map-by");
        argv_pushf(a, &v, "ppr:%d:node", j->ranks_per_node);
    }
    argv_push_list(a, &v, j->args, j->nargs);
    argv_push_argv(a, &v, inner);
    return argv_done(a, &v);
}

/* Open MPI sets the variables only on the node mpirun runs on unless told */
static void mpirun_exports(arena_t *a, argv_t *v, const char *const *env)
{
    for (size_t i = 0; env[i]; i++) {
        argv_push(a, v, "-x");
        argv_push(a, v, env[i]);
    }
}

/* why ranks died, as mpirun says it: "mpirun noticed that process rank 1 with
 * PID 42 on node n01 exited on signal 9 (Killed)." or, for an exit code, the
 * "Process name: [[J,0],R]" / "Exit code: N" pair */
static void mpirun_read_log(arena_t *a, const char *log, launch_facts_t *f)
{
    const char *p = strstr(log, "mpirun noticed that process rank ");
    int rank, code;
    char node[128], how[160];
    if (p && sscanf(p, "mpirun noticed that process rank %d with PID %*d on node %127s %159[^\n]",
                    &rank, node, how) == 3) {
        size_t l = strlen(how);
        if (l && how[l - 1] == '.') how[l - 1] = 0;
        f->cause = ar_printf(a, "rank %d on %s: %s", rank, node, how);
        return;
    }
    p = strstr(log, "Process name:");
    const char *c = p ? strstr(p, "Exit code:") : NULL;
    if (p && c && sscanf(p, "Process name: [[%*d,%*d],%d]", &rank) == 1 &&
        sscanf(c, "Exit code: %d", &code) == 1)
        f->cause = ar_printf(a, "rank %d: exit code %d (the first rank to fail)", rank, code);
}

const launcher_t launcher_mpirun = {
    .name = "mpirun",
    .summary = "an Open MPI job, mpirun -np N [default]; the program: launcher_command, "
               "$EXADL_MPIRUN, mpirun",
    .usage = "mpirun",
    .wrap = mpirun_wrap,
    .uses = LAUNCHER_USES_COMMAND | LAUNCHER_USES_ARGS,
    .exports = mpirun_exports,
    .read_log = mpirun_read_log,
};
