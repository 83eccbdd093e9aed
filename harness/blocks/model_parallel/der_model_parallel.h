/* der_model_parallel: the model_parallel block's derived numbers
 * (docs/modelparallel.md): per entry and scale, its first record's block, whose
 * numbers are its rows (mp_parameters_per_rank, mp_halo_bytes_per_step,
 * mp_halo_s_per_step, mp_allreduce_bytes_per_step, mp_memory_hwm_bytes,
 * mp_memory_formula_bytes).  The report section model_parallel
 * (harness/report/sections/model_parallel.c) shows them.
 * defines: mprow_t, mprun_t */
#ifndef EXADL_HARNESS_DER_MODEL_PARALLEL_H
#define EXADL_HARNESS_DER_MODEL_PARALLEL_H

#include "harness/blocks/derive.h"
#include "harness/blocks/model_parallel/blk_model_parallel.h"

typedef struct {
    const bres_t *b;
    int scale;
    const mpinfo_t *m;
    double step_s;             /* the scale's median step time (NaN: none) */
} mprow_t;

typedef struct {
    mprow_t *r;
    size_t n;
} mprun_t;

#endif
