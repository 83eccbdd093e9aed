/* blk_orchestration: the orchestration benchmark's results (docs/collectives.md
 * "The orchestration benchmark"): one row per mode and grouping.
 * defines: orow_t, orchinfo_t, orchestration_none, rec_orch */
#ifndef EXADL_HARNESS_BLK_ORCHESTRATION_H
#define EXADL_HARNESS_BLK_ORCHESTRATION_H

#include "harness/blocks/block.h"

/* a row: one mode and grouping */
typedef struct {
    const char *mode, *grouping;
    long long groups, ranks, tensors;
    double cycles, median_s, per_cycle_s;
    double requests;        /* per step, all ranks together (NaN: not said) */
} orow_t;

typedef struct {
    orow_t *o;
    size_t no;
} orchinfo_t;

/* the record's orchestration rows (orchestration_none when it has none: no rows) */
BLOCK_ACCESSOR(orchinfo_t, orchestration, rec_orch)

#endif
