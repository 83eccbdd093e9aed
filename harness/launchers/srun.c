/* srun: one Slurm job step, `srun --ntasks=N --nodes=M --ntasks-per-node=RPN
 * --kill-on-bad-exit=1 ARGS CMD`.  Slurm carries the environment to every
 * node itself, so there is nothing to export. */
#include "harness/launchers/launcher.h"

static char **srun_wrap(arena_t *a, const launcher_job_t *j, char *const *inner)
{
    argv_t v = {0};
    int rpn = j->ranks_per_node;
    argv_push(a, &v, j->command ? j->command : "srun");
    argv_pushf(a, &v, "--ntasks=%d", j->scale);
    argv_pushf(a, &v, "--nodes=%d", j->nodes);
    if (rpn) argv_pushf(a, &v, "--ntasks-per-node=%d", rpn < j->scale ? rpn : j->scale);
    argv_push(a, &v, "--kill-on-bad-exit=1"); /* one failed rank ends the step */
    argv_push_list(a, &v, j->args, j->nargs);
    argv_push_argv(a, &v, inner);
    return argv_done(a, &v);
}

const launcher_t launcher_srun = {
    .name = "srun",
    .summary = "a Slurm job step: srun --ntasks=N --nodes=M --ntasks-per-node=RPN",
    .usage = "srun",
    .wrap = srun_wrap,
    .uses = LAUNCHER_USES_COMMAND | LAUNCHER_USES_ARGS,
};
