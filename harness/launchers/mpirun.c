/* mpirun: an Open MPI job, `mpirun -np N [--map-by ppr:RPN:node -x VAR...]
 * ARGS CMD`.  The program is launcher_command, else $EXADL_MPIRUN (the tests
 * and run.sh point it at the right installation), else mpirun from PATH. */
#include <stdlib.h>

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

const launcher_t launcher_mpirun = {
    .name = "mpirun",
    .summary = "an Open MPI job, mpirun -np N [default]; the program: launcher_command, "
               "$EXADL_MPIRUN, mpirun",
    .usage = "mpirun",
    .wrap = mpirun_wrap,
    .uses = LAUNCHER_USES_COMMAND | LAUNCHER_USES_ARGS,
    .exports = mpirun_exports,
};
