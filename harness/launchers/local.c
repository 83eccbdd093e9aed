/* local: the benchmark as one plain process, no MPI launcher (a singleton MPI
 * job where the benchmark uses MPI). */
#include "harness/launchers/launcher.h"

static const char *local_check_scale(arena_t *a, int scale)
{
    if (scale <= 1) return NULL;
    return ar_printf(a, "launcher local starts one process; scale %d needs mpirun, srun or a "
                        "template", scale);
}

static char **local_wrap(arena_t *a, const launcher_job_t *j, char *const *inner)
{
    (void)j;
    argv_t v = {0};
    argv_push_argv(a, &v, inner);
    return argv_done(a, &v);
}

const launcher_t launcher_local = {
    .name = "local",
    .summary = "one process, no MPI launcher (scales above 1 are refused)",
    .usage = "local",
    .check_scale = local_check_scale,
    .wrap = local_wrap,
};
