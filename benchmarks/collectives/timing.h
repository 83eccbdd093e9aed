/* timing: how the collectives benchmark times one row (docs/collectives.md
 * "Timing").  Batched (the default): warm-up calls back to back, whose mean
 * estimates one call; then batches of B back-to-back calls, B chosen so a
 * batch lasts at least the target (100 us), a barrier (and a stream sync)
 * only between batches; a sample is the batch's time / B on each rank, and
 * the ranks are combined per batch by the maximum.  Per-call: a barrier
 * before every call, one call per sample, max over ranks.
 * With --batch N the batch is N whatever the estimate (coll_batch_fixed).
 * defines: coll_batch_plan, coll_batch_fixed, coll_time_row, coll_planted_delay_s */
#ifndef EXADL_COLL_TIMING_H
#define EXADL_COLL_TIMING_H

#include "benchmarks/collectives/coll_row.h"

/* Calls per batch and batches for a call that takes est_s: a batch lasts at
 * least target_s; the total is at least iters and the batches at least
 * COLL_MIN_BATCHES, unless exact (-n given): then the total is iters exactly
 * (batches = iters / batch, the batch lowered to divide it as evenly as the
 * target allows).  Returns the batch; *batches gets the count. */
int coll_batch_plan(double est_s, double target_s, int iters, int exact, int *batches);

/* Calls per batch and batches with the batch given (--batch N, nccl-tests'
 * method: a timed loop of N back-to-back calls between two stream syncs):
 * exact (-n given): iters / batch batches (the batch at most iters);
 * otherwise ceil(iters / batch), at least COLL_MIN_BATCHES.  Returns the
 * batch; *batches gets the count. */
int coll_batch_fixed(int batch, int iters, int exact, int *batches);

/* Warm up and time the row's calls (s, r: the buffers the calls see): fills
 * row->batch, nsamples, time_s (allocated; s per call, max over ranks) and
 * osu_avg_s.  Collective over the job. */
void coll_time_row(const coll_bufs_t *b, coll_ctx_t *c, coll_row_t *row, void *s, void *r);

/* Test hook (EXADL_COLL_PLANT_DELAY_US, read by the program): every call
 * made by coll_time_row, warm-up included, is preceded by a busy wait of
 * this long on the clock, so the planted time is known to the clock's
 * resolution (a sleep would add the scheduler's slack).  0: none. */
extern double coll_planted_delay_s;

#endif
