/* Block network (blk_network.h): a training record's flops, network and
 * memory keys (docs/record.md "STEMDL"), with the counts the record leaves
 * out derived from the others; the per-configuration rows of the catalog
 * (der_network.c adds them, analysis.c takes them from the
 * first ok record of a benchmark). */
#define _GNU_SOURCE
#include "harness/blocks/network/blk_network.h"

#include <math.h>

#include "harness/blocks/training/blk_training.h"

const nwinfo_t network_none = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN,
                                NAN, NAN, NAN, NAN, NAN, NULL, NAN};

static int read_network(const rd_t *c, const ytnode *root, record_t *rec)
{
    const ytnode *f, *nw, *mem;
    if (rd_map(c, root, "flops", &f) || rd_map(c, root, "network", &nw) ||
        rd_map(c, root, "memory", &mem))
        return -1;
    nwinfo_t *r = rd_alloc(c, sizeof *r);
    *r = network_none;
    rec->blk[BLOCK_network] = r;
    if (rd_num(c, f, "executed_per_step", RD_ANY, &r->exec_per_step) ||
        rd_num(c, f, "executed_per_sample", RD_ANY, &r->exec_per_sample) ||
        rd_num(c, f, "convention_per_sample", RD_ANY, &r->conv_per_sample) ||
        rd_num(c, f, "convention_per_step", RD_ANY, &r->conv_per_step) ||
        rd_num(c, f, "forward_conv_per_sample", RD_ANY, &r->fwd_conv_per_sample))
        return -1;
    if (rd_num(c, nw, "conv_weights", RD_ANY, &r->conv_weights) ||
        rd_num(c, nw, "parameters", RD_ANY, &r->parameters) ||
        rd_num(c, mem, "rank0_bytes", RD_ANY, &r->memory_bytes))
        return -1;
    if (rd_num(c, nw, "spatial_ranks", RD_COUNT, &r->spatial_ranks) ||
        rd_str(c, nw, "spatial_plan", NULL, &r->spatial_plan) ||
        rd_num(c, nw, "halo_bytes_per_step", RD_COUNT, &r->halo_bytes) ||
        rd_num(c, nw, "halo_messages_per_step", RD_COUNT, &r->halo_msgs) ||
        rd_num(c, nw, "shuffle_bytes_per_step", RD_COUNT, &r->shuffle_bytes) ||
        rd_num(c, nw, "shuffle_messages_per_step", RD_COUNT, &r->shuffle_msgs) ||
        rd_num(c, nw, "predicted_step_s", RD_ANY, &r->predicted_step_s))
        return -1;
    /* derived where the record leaves them out (per step: the training
     * block's samples per step, read before this one) */
    double per_step = rec_training(rec)->samples_per_step;
    if (isnan(r->conv_per_sample) && !isnan(r->fwd_conv_per_sample))
        r->conv_per_sample = 3 * r->fwd_conv_per_sample;
    if (isnan(r->conv_per_step) && !isnan(r->conv_per_sample) && per_step > 0)
        r->conv_per_step = r->conv_per_sample * per_step;
    if (isnan(r->exec_per_sample) && !isnan(r->exec_per_step) && per_step > 0)
        r->exec_per_sample = r->exec_per_step / per_step;
    return 0;
}

static const metric_info_t catalog[] = {
    {"executed_flops_per_sample", "FLOP", 0, 0, "every kernel of one step / samples per step"},
    {"convention_flops_per_sample", "FLOP", 0, 0, "3 x forward conv FLOPs per sample"},
    {"forward_conv_flops_per_sample", "FLOP", 0, 0, "forward conv FLOPs per sample"},
    {"conv_weights", "weights", 0, 0, "conv weights (no biases)"},
    {"parameters", "parameters", 0, 0, "all trained parameters"},
    {NULL, NULL, 0, 0, NULL}};

/* the training section shows it (its "Network" line) */
const block_t block_network = {.name = "network", .key = "flops, network, memory",
                               .read = read_network, .catalog = catalog, .section = "training",
                               .no_derive = "its numbers per sample are the analysis' (bres_t), "
                                            "taken from the entry's first ok record",
                               .rows = network_rows, .rows_at = BLOCK_ROWS_CONFIG};
