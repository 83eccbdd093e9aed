/* Block workflow (blk_workflow.h): the workflow record's `workflow` block
 * (docs/record.md "workflow", docs/workflow.md). */
#define _GNU_SOURCE
#include "harness/blocks/workflow/blk_workflow.h"

static int read_workflow(const rd_t *c, const ytnode *root, record_t *r)
{
    const ytnode *w;
    if (rd_map(c, root, "workflow", &w)) return -1;
    if (!w) return 0;
    wfinfo_t *m = rd_alloc(c, sizeof *m);
    if (rd_str(c, w, "mode", NULL, &m->mode) ||
        rd_num_req(c, w, "producers", RD_COUNT, &m->producers) ||
        rd_num_req(c, w, "expected", RD_COUNT, &m->expected) ||
        rd_num(c, w, "produced", RD_COUNT, &m->produced) ||
        rd_num_req(c, w, "consumed", RD_COUNT, &m->consumed) ||
        rd_num_req(c, w, "duplicates", RD_COUNT, &m->duplicates) ||
        rd_num_req(c, w, "corrupt", RD_COUNT, &m->corrupt) ||
        rd_num_req(c, w, "failed_producers", RD_COUNT, &m->failed_producers) ||
        rd_num_req(c, w, "lost_to_failure", RD_COUNT, &m->lost_to_failure) ||
        rd_num(c, w, "unaccounted", RD_ANY, &m->unaccounted) ||
        rd_num_req(c, w, "wall_s", RD_COUNT, &m->wall_s) ||
        rd_num(c, w, "produced_per_s", RD_COUNT, &m->produced_per_s) ||
        rd_num(c, w, "consumed_per_s", RD_COUNT, &m->consumed_per_s) ||
        rd_num(c, w, "stall_s", RD_COUNT, &m->stall_s) ||
        rd_num(c, w, "stall_fraction", RD_COUNT, &m->stall_fraction) ||
        rd_num(c, w, "producer_blocked_s", RD_COUNT, &m->blocked_s) ||
        rd_num(c, w, "latency_median_s", RD_ANY, &m->lat_median_s) ||
        rd_num(c, w, "latency_ci_lo_s", RD_ANY, &m->lat_lo_s) ||
        rd_num(c, w, "latency_ci_hi_s", RD_ANY, &m->lat_hi_s) ||
        rd_num(c, w, "latency_max_s", RD_ANY, &m->lat_max_s) ||
        rd_num(c, w, "queue_bound", RD_COUNT, &m->queue_bound) ||
        rd_num(c, w, "queue_depth_max", RD_COUNT, &m->depth_max) ||
        rd_num(c, w, "queue_depth_mean", RD_ANY, &m->depth_mean))
        return -1;
    r->blk[BLOCK_workflow] = m;
    return 0;
}

/* param mode (mpi, files); docs/workflow.md */
static const metric_info_t catalog[] = {
    {"workflow_consumed_per_s", "samples/s", 1, 1,
     "samples trained on / wall time, producers and trainer at once"},
    {"workflow_produced_per_s", "samples/s", 1, 1, "samples the producers made / wall time"},
    {"workflow_stall_fraction", "fraction", -1, 1, "the trainer's time waiting for data / wall time"},
    {"workflow_latency_s", "s", -1, 1,
     "end of a sample's simulation to the end of the backward pass that used it, median (95% CI)"},
    {"workflow_lost_to_failure", "samples", -1, 1,
     "samples a failed producer did not deliver (expected - received)"},
    {NULL, NULL, 0, 0, NULL}};

const block_t block_workflow = {.name = "workflow", .key = "workflow", .read = read_workflow,
                                .catalog = catalog, .section = "workflow",
                                .derive = workflow_derive, .rows = workflow_rows,
                                .rows_at = BLOCK_ROWS_RUN};
