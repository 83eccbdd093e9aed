/* blk_network: a training record's counts of its network (docs/record.md
 * "STEMDL": the flops, network and memory keys): FLOPs per step and sample,
 * weights, parameters, memory; properties of the configuration, not the scale.
 * defines: nwinfo_t, network_none, rec_network */
#ifndef EXADL_HARNESS_BLK_NETWORK_H
#define EXADL_HARNESS_BLK_NETWORK_H

#include "harness/blocks/block.h"

/* the network's counts, per configuration; NaN: not said */
typedef struct {
    double exec_per_step, exec_per_sample, conv_per_sample, conv_per_step, fwd_conv_per_sample;
    double conv_weights, parameters, memory_bytes;
    /* a 2D network split spatially (stemdl --spatial, docs/spatial.md): the
     * ranks per sample, the per-level plan, rank 0's halo and shuffle traffic
     * per step; NaN / NULL: not split */
    double spatial_ranks, halo_bytes, halo_msgs, shuffle_bytes, shuffle_msgs;
    const char *spatial_plan;
    /* the plan model's prediction for the run (stemdl
     * --model-predicted-step-s, from exadl model --spatial --stemdl); NaN: none */
    double predicted_step_s;
} nwinfo_t;

/* the record's network counts (network_none when it has none: every number NaN) */
BLOCK_ACCESSOR(nwinfo_t, network, rec_network)

/* its derived half (der_network.c): the per-configuration rows */
block_rows_fn network_rows;

#endif
