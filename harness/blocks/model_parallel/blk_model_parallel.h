/* blk_model_parallel: modelpar's `model_parallel` block (docs/record.md
 * "modelpar", docs/modelparallel.md): the model groups and their grid of tiles,
 * parameters per rank, bytes exchanged per step by kind (halo as run and
 * by the formula, the tensor-parallel collectives of the dense pair, the
 * data-parallel allreduce), the halo and tensor-parallel time, memory per
 * rank (the formula and each rank's high-water mark).
 * defines: mpinfo_t, rec_model_parallel */
#ifndef EXADL_HARNESS_BLK_MODEL_PARALLEL_H
#define EXADL_HARNESS_BLK_MODEL_PARALLEL_H

#include "harness/blocks/block.h"

typedef struct {
    long long model_ranks, replicas, grid[2], tile[2];
    double parameters, parameters_per_rank;
    double halo_bytes, halo_bytes_formula;   /* per step, model group 0 (NaN: not gathered) */
    double allreduce_bytes_rank;             /* per step and rank, 2 (R-1)/R of a shard */
    double halo_s;                           /* per timed step, max over ranks */
    double dense;                            /* the tensor-parallel pair's width (0: none) */
    double tp_bytes_rank, tp_bytes_formula;  /* per step, rank 0: its allgathers, reduce-scatters */
    double tp_s;                             /* their time per timed step, max over ranks */
    double memory_formula_bytes;             /* per rank */
    double memory_hwm_bytes;                 /* the largest rank's high-water mark (NaN: none) */
} mpinfo_t;

/* the record's model_parallel block; NULL: none */
static inline const mpinfo_t *rec_model_parallel(const record_t *r)
{
    return r->blk[BLOCK_model_parallel];
}

/* its derived half (der_model_parallel.h) */
block_derive_fn model_parallel_derive;
block_rows_fn model_parallel_rows;

#endif
