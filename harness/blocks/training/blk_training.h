/* blk_training: a training record's timing and counted kernels (docs/record.md
 * "STEMDL"): step times, per-rank compute, samples per step, the kernel table.
 * defines: krow_t, trinfo_t, training_none, rec_training, training_final_loss,
 *          training_same_work */
#ifndef EXADL_HARNESS_BLK_TRAINING_H
#define EXADL_HARNESS_BLK_TRAINING_H

#include "harness/blocks/block.h"

/* a row of the counted-kernel table */
typedef struct {
    const char *kernel, *layer;
    double calls, flops, time_s;
} krow_t;

typedef struct {
    double *step_s;
    size_t nstep;
    double *rank_compute_s;  /* [rank_steps][rank_cols]: each rank's forward + backward */
    size_t rank_steps, rank_cols;
    double *warmup_s;
    size_t nwarmup;
    double samples_per_step;
    double device_peak_flops; /* a measured device peak the benchmark may record (NaN) */
    double threads_per_rank;  /* CPU threads each rank used (NaN: not said) */
    double kernels_steps;
    krow_t *k;
    size_t nk;
    double *loss;             /* the loss of each timed step (loss.steps) */
    size_t nloss;
} trinfo_t;

/* the record's training block (training_none when it has none: no steps, every number NaN) */
BLOCK_ACCESSOR(trinfo_t, training, rec_training)

/* The loss after the record's last timed step (NaN: none recorded). */
double training_final_loss(const record_t *r);

/* Whether records a and b did the same training work: the same network,
 * image, batch (config keys preset, image, height, width, batch) and the
 * same value of each config key of also (NULL-terminated; NULL: none). */
int training_same_work(const record_t *a, const record_t *b, const char *const *also);

/* its derived half (der_training.c): the per-scale rows */
block_rows_fn training_rows;

#endif
