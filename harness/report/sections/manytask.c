/* Report section: many-task throughput (docs/ensembles.md, Merlin): one row
 * per manytask launch (every repetition: each is one measurement of N tasks)
 * with its launcher, N and C, tasks per second (tasks done / wall time),
 * the launch latency percentiles of successful attempts (fork of the
 * launcher to its exit, nearest rank), failed attempts and tasks failed for
 * good after the retries.  Metrics tasks_per_s, task_latency_p50_s,
 * task_latency_p99_s (param launcher; the first record of each entry). */
#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include "harness/blocks/manytask/blk_manytask.h"
#include "harness/report/runctx.h"

static void metrics(const runctx_t *c, const void *self, mtable_t *t)
{
    (void)self;
    for (size_t i = 0; i < c->an.nb; i++)
        for (size_t k = 0; k < c->an.b[i].ns; k++) {
            const sres_t *s = &c->an.b[i].s[k];
            const mtinfo_t *m = s->rec ? rec_manytask(s->rec) : NULL;
            if (!m) continue;
            kv_t *p = ar_alloc(c->a, sizeof *p);
            p[0] = (kv_t){"launcher", m->launcher ? m->launcher : "?"};
            const char *names[] = {"tasks_per_s", "task_latency_p50_s", "task_latency_p99_s"};
            double v[] = {m->tasks_per_s, m->p50_s, m->p99_s};
            for (int j = 0; j < 3; j++) {
                const metric_info_t *mi = metric_info(names[j]);
                metric_t x = {.bench = c->an.b[i].name, .program = c->an.b[i].program,
                              .kind = c->an.b[i].kind, .scale = s->scale, .metric = names[j],
                              .value = v[j], .lo = NAN, .hi = NAN, .n = m->done,
                              .unit = mi ? mi->unit : "", .better = mi ? mi->better : 0,
                              .params = p, .nparams = 1};
                if (isfinite(x.value)) mtable_add(c->a, t, &x);
            }
        }
}

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    (void)self;
    int any = 0;
    for (size_t i = 0; i < c->ri.no; i++) any |= c->ri.o[i].rec && rec_manytask(c->ri.o[i].rec);
    if (!any) return;
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
    for (size_t i = 0; i < c->ri.no; i++) {
        const record_t *r = c->ri.o[i].rec;
        if (!r || !rec_manytask(r)) continue;
        const mtinfo_t *m = rec_manytask(r);
        sb_printf(o, "| %s | %s | %.0f | %.0f | %.4g | %.3g | %.3g | %.3g | %.3g | %.0f | %.0f |\n",
                  c->ri.o[i].bench, m->launcher ? m->launcher : "?", m->tasks, m->concurrency,
                  m->tasks_per_s, m->p50_s, m->p90_s, m->p99_s, m->max_s, m->failed_attempts,
                  m->failed);
    }
}

const section_t section_manytask = {.name = "manytask", .metrics = metrics, .md = md};
