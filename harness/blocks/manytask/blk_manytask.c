/* Block manytask (blk_manytask.h): the manytask record (docs/record.md
 * "manytask", docs/ensembles.md): the launcher and the `tasks` block (rate,
 * latency percentiles, failures and retries). */
#define _GNU_SOURCE
#include "harness/blocks/manytask/blk_manytask.h"

static int read_manytask(const rd_t *c, const ytnode *root, record_t *r)
{
    const ytnode *cfg, *t;
    if (rd_map(c, root, "config", &cfg) || rd_map(c, root, "tasks", &t)) return -1;
    if (!t) return 0;
    mtinfo_t *m = rd_alloc(c, sizeof *m);
    if ((cfg && (rd_str(c, cfg, "launcher", NULL, &m->launcher) ||
                 rd_num(c, cfg, "tasks", RD_COUNT, &m->tasks) ||
                 rd_num(c, cfg, "concurrency", RD_COUNT, &m->concurrency) ||
                 rd_num(c, cfg, "retries", RD_COUNT, &m->retries))) ||
        rd_num_req(c, t, "wall_s", RD_COUNT, &m->wall_s) ||
        rd_num_req(c, t, "tasks_per_s", RD_COUNT, &m->tasks_per_s) ||
        rd_num_req(c, t, "done", RD_COUNT, &m->done) || rd_num_req(c, t, "failed", RD_COUNT, &m->failed) ||
        rd_num(c, t, "attempts", RD_COUNT, &m->attempts) ||
        rd_num(c, t, "failed_attempts", RD_COUNT, &m->failed_attempts) ||
        rd_num(c, t, "latency_p50_s", RD_COUNT, &m->p50_s) ||
        rd_num(c, t, "latency_p90_s", RD_COUNT, &m->p90_s) ||
        rd_num(c, t, "latency_p99_s", RD_COUNT, &m->p99_s) ||
        rd_num(c, t, "latency_max_s", RD_COUNT, &m->max_s))
        return -1;
    r->blk[BLOCK_manytask] = m;
    return 0;
}

/* param launcher; docs/ensembles.md */
static const metric_info_t catalog[] = {
    {"tasks_per_s", "tasks/s", 1, 1, "tasks done / wall time, C at a time through the launcher"},
    {"task_latency_p50_s", "s", -1, 1, "launch to exit of a successful attempt, median"},
    {"task_latency_p99_s", "s", -1, 1, "launch to exit of a successful attempt, 99th percentile"},
    {NULL, NULL, 0, 0, NULL}};

const block_t block_manytask = {.name = "manytask", .key = "tasks, config.launcher",
                                .read = read_manytask, .catalog = catalog, .section = "manytask",
                                .derive = manytask_derive, .rows = manytask_rows,
                                .rows_at = BLOCK_ROWS_RUN};
