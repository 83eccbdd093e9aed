/* Report section: many-task throughput (docs/ensembles.md, Merlin): one row
 * per manytask launch (every repetition: each is one measurement of N tasks)
 * with its launcher, N and C, tasks per second (tasks done / wall time),
 * the launch latency percentiles of successful attempts (fork of the
 * launcher to its exit, nearest rank), failed attempts and tasks failed for
 * good after the retries.  Metrics tasks_per_s, task_latency_p50_s,
 * task_latency_p99_s (param launcher; the first record of each entry).  The
 * numbers are the manytask block's (harness/blocks/manytask/). */
#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include "harness/blocks/manytask/der_manytask.h"
#include "harness/report/runctx.h"

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    (void)c;
    const mtrun_t *M = self;
    if (!M->nl) return;
    sb_puts(o, "\n## Many-task throughput (docs/ensembles.md)\n\n"
               "N short tasks, at most C at once, each started through the launcher (direct: the "
               "task alone; mpirun: `mpirun -np 1`; srun: a job step `srun -n1 -N1 --exclusive`). "
               "Tasks/s: tasks done / wall time from the first start to the last exit. Latency: "
               "from the fork of the launcher to its exit, successful attempts, nearest-rank "
               "percentiles (a short task's latency is the launch cost). Retry policy: a failed "
               "attempt is queued again at the end until its task has failed retries + 1 times; "
               "then it counts as failed. One row per launch.\n\n"
               "| entry | launcher | N | C | tasks/s | p50 s | p90 s | p99 s | max s | failed "
               "attempts | failed tasks |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < M->nl; i++) {
        const mtinfo_t *m = M->l[i].m;
        sb_printf(o, "| %s | %s | %.0f | %.0f | %.4g | %.3g | %.3g | %.3g | %.3g | %.0f | %.0f |\n",
                  M->l[i].bench, m->launcher ? m->launcher : "?", m->tasks, m->concurrency,
                  m->tasks_per_s, m->p50_s, m->p90_s, m->p99_s, m->max_s, m->failed_attempts,
                  m->failed);
    }
}

const section_t section_manytask = {.name = "manytask", .md = md};
