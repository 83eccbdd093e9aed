/* blk_gradient_reduction: a training record's gradient_reduction block
 * (docs/record.md): the engine's settings, its tensors and groups, the
 * per-step costs and rank 0's timeline.
 * defines: grtensor_t, grinfo_t, rec_gr */
#ifndef EXADL_HARNESS_BLK_GRADIENT_REDUCTION_H
#define EXADL_HARNESS_BLK_GRADIENT_REDUCTION_H

#include "harness/blocks/block.h"

typedef struct {
    const char *name;
    double bytes;
    long long group;
} grtensor_t;

typedef struct {
    const char *transport, *orchestration, *grouping;
    /* who ran the engine's cycles: none | thread | inline, and why (one
     * line); NULL in records older than the engine option */
    const char *engine, *engine_reason;
    long long groups, cache_capacity;
    double fusion_bytes, cycle_ms;
    grtensor_t *t;          /* backward order */
    size_t nt;
    const char **labels;    /* group labels (groups of them; NULL entries when absent) */
    double *exposed_s, *negotiation_s, *reduce_s, *backward_end_s, *cycles;
    size_t nsteps;
    double *timeline;       /* ntl x groups x 3: ready, start, end */
    size_t ntl;
} grinfo_t;

/* the record's gradient_reduction block; NULL: none */
static inline const grinfo_t *rec_gr(const record_t *r) { return r->blk[BLOCK_gradient_reduction]; }

/* its derived half (der_gradient_reduction.c): the modes side by side
 * (ablation_t, harness/model/ablation.h) and their rows */
block_derive_fn gradient_reduction_derive;
block_rows_fn gradient_reduction_rows;

#endif
