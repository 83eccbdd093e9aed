/* mt: the many-task throughput benchmark's engine (docs/ensembles.md,
 * Merlin): N short tasks, at most C running at once, each started through a
 * launcher (the task alone, `mpirun -np 1`, or an `srun` job step).
 * Retry policy: a failed attempt (non-zero exit, a signal, or a task that
 * cannot be started) goes back to the end of the queue until the task has
 * failed retries + 1 times; then it counts as failed for good.
 * Planted failures (tests): the first `plant_attempts` attempts of every
 * plant_every-th task (task ids 0, K, 2K, ...) run `false` through the same
 * launcher instead of the task.
 *
 * defines: mt_cfg, mt_result, mt_run, mt_launchers */
#ifndef MANYTASK_MT_H
#define MANYTASK_MT_H

#include <stddef.h>

extern const char *const mt_launchers[]; /* direct, mpirun, srun; NULL-ended */

typedef struct {
    int tasks, concurrency, retries;
    int launcher;            /* index into mt_launchers */
    char *const *task;       /* argv of the task, NULL-ended */
    int plant_every, plant_attempts;
} mt_cfg;

typedef struct {
    double wall_s;           /* first start to last end */
    int done, failed;        /* tasks that succeeded; that failed retries + 1 times */
    int attempts, failed_attempts;
    double *latency_s;       /* per attempt: start to exit (attempts of them) */
    int *ok;                 /* per attempt: 1 succeeded */
    char first_error[256];
} mt_result;

/* Run the tasks; 0, or -1 with err when nothing can be started. */
int mt_run(const mt_cfg *c, mt_result *r, char *err, size_t errlen);
void mt_result_free(mt_result *r);

#endif
