/* Block model_parallel (blk_model_parallel.h): modelpar's model_parallel
 * block (docs/record.md "modelpar"; the rest of its record is the training
 * blocks'). */
#define _GNU_SOURCE
#include "harness/blocks/model_parallel/blk_model_parallel.h"

#include <math.h>

static int pair(const rd_t *c, const ytnode *m, const char *key, long long out[2])
{
    const ytnode *l;
    if (rd_list(c, m, key, &l)) return -1;
    if (!l) return rd_err(c, m, "model_parallel: %s is required", key);
    if (l->n != 2) return rd_err(c, l, "model_parallel: %s must list 2 numbers (rows, columns)", key);
    for (int a = 0; a < 2; a++) {
        if (rd_int_node(c, l->items[a], &out[a])) return -1;
        if (out[a] < 1) return rd_err(c, l->items[a], "model_parallel: %s must be at least 1", key);
    }
    return 0;
}

static int read_model_parallel(const rd_t *c, const ytnode *root, record_t *r)
{
    const ytnode *m;
    if (rd_map(c, root, "model_parallel", &m)) return -1;
    if (!m) return 0;
    mpinfo_t *p = rd_alloc(c, sizeof *p);
    double *hwm = NULL;
    size_t nhwm = 0;
    if (rd_int_req(c, m, "model_ranks", &p->model_ranks) ||
        rd_int_req(c, m, "replicas", &p->replicas) || pair(c, m, "grid", p->grid) ||
        pair(c, m, "tile", p->tile) ||
        rd_num_req(c, m, "parameters", RD_COUNT, &p->parameters) ||
        rd_num_req(c, m, "parameters_per_rank", RD_COUNT, &p->parameters_per_rank) ||
        rd_num(c, m, "halo_bytes_per_step", RD_COUNT, &p->halo_bytes) ||
        rd_num(c, m, "halo_bytes_per_step_formula", RD_COUNT, &p->halo_bytes_formula) ||
        rd_num(c, m, "allreduce_bytes_per_step_rank", RD_COUNT, &p->allreduce_bytes_rank) ||
        rd_num(c, m, "halo_s_per_step", RD_COUNT, &p->halo_s) ||
        rd_num(c, m, "dense", RD_COUNT, &p->dense) ||
        rd_num(c, m, "tp_bytes_per_step_rank0", RD_COUNT, &p->tp_bytes_rank) ||
        rd_num(c, m, "tp_bytes_per_step_rank_formula", RD_COUNT, &p->tp_bytes_formula) ||
        rd_num(c, m, "tp_s_per_step", RD_COUNT, &p->tp_s) ||
        rd_num(c, m, "memory_bytes_per_rank_formula", RD_COUNT, &p->memory_formula_bytes) ||
        rd_nums(c, m, "rank_hwm_bytes", RD_ANY, &hwm, &nhwm))
        return -1;
    if (p->model_ranks < 1 || p->replicas < 1 || p->grid[0] * p->grid[1] != p->model_ranks)
        return rd_err(c, m, "model_parallel: model_ranks %lld is not grid's product or below 1",
                      p->model_ranks);
    p->memory_hwm_bytes = NAN;
    for (size_t i = 0; i < nhwm; i++)
        if (hwm[i] >= 0 && !(hwm[i] <= p->memory_hwm_bytes)) p->memory_hwm_bytes = hwm[i];
    r->blk[BLOCK_model_parallel] = p;
    return 0;
}

static const metric_info_t catalog[] = {
    {"mp_parameters_per_rank", "parameters", 0, 0, "weights and biases of one rank's shard"},
    {"mp_halo_bytes_per_step", "bytes", -1, 0,
     "halo bytes sent by the ranks of a model group per step (forward and backward)"},
    {"mp_halo_s_per_step", "s", -1, 1, "halo exchange time per step, max over ranks"},
    {"mp_tp_bytes_per_step", "bytes", -1, 0,
     "tensor-parallel allgather and reduce-scatter bytes of rank 0 per step (the dense pair)"},
    {"mp_tp_s_per_step", "s", -1, 1, "tensor-parallel collectives' time per step, max over ranks"},
    {"mp_allreduce_bytes_per_step", "bytes", -1, 0,
     "data-parallel allreduce bytes per rank per step (2 (R-1)/R of a shard)"},
    {"mp_memory_hwm_bytes", "bytes", -1, 0,
     "memory high-water mark of the largest rank (VmHWM less VmRSS before its buffers)"},
    {"mp_memory_formula_bytes", "bytes", -1, 0,
     "memory per rank the formula predicts (buffers, optimizer, one shard copy)"},
    {NULL, NULL, 0, 0, NULL}};

const block_t block_model_parallel = {
    .name = "model_parallel", .key = "model_parallel", .read = read_model_parallel,
    .catalog = catalog, .derive = model_parallel_derive, .rows = model_parallel_rows,
    .rows_at = BLOCK_ROWS_RUN, .section = "model_parallel"};
