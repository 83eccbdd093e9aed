/* blk_workflow: the simulation-to-training workflow's numbers (docs/record.md
 * "workflow", docs/workflow.md): transport, sample rates, the trainer's
 * stall, latency from simulation to gradient, queue depth, the accounting of
 * every sample and what a failed producer lost.
 * defines: wfinfo_t, rec_workflow */
#ifndef EXADL_HARNESS_BLK_WORKFLOW_H
#define EXADL_HARNESS_BLK_WORKFLOW_H

#include "harness/blocks/block.h"

typedef struct {
    const char *mode;
    double producers, expected, produced, consumed, duplicates, corrupt, failed_producers;
    double lost_to_failure, unaccounted;
    double wall_s, produced_per_s, consumed_per_s, stall_s, stall_fraction, blocked_s;
    double lat_median_s, lat_lo_s, lat_hi_s, lat_max_s;
    double queue_bound, depth_max, depth_mean;
} wfinfo_t;

/* the record's workflow block; NULL: none */
static inline const wfinfo_t *rec_workflow(const record_t *r) { return r->blk[BLOCK_workflow]; }

/* its derived half (der_workflow.h) */
block_derive_fn workflow_derive;
block_rows_fn workflow_rows;

#endif
