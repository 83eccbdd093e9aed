/* bench: one row of the collectives benchmark: warm-up, then the timed calls,
 * then one validation call checked element by element.
 * Batched timing (the default, as OSU's loop and nccl-tests): a sample is the
 * mean time per call of a back-to-back loop of `batch` calls, with a barrier
 * (and a stream sync) only between batches; ranks are combined per batch by
 * the maximum over ranks of the batch mean.  Per-call timing (--timing
 * per-call): a barrier before every call, each call a sample, max over ranks. */
#ifndef EXADL_COLL_BENCH_H
#define EXADL_COLL_BENCH_H

#include <stddef.h>

#include "benchmarks/collectives/coll.h"
#include "benchmarks/collectives/coll_row.h"

/* at most this many raw samples per row go into the record */
#define COLL_MAX_KEPT_SAMPLES 1000

typedef struct {
    int plant;              /* plant one wrong element (test hook) */
    int plant_rank;
    size_t plant_index;     /* index into the rank's output region (mod its length) */
    int max_reports;        /* wrong elements printed per rank and row */
} coll_check_opts_t;

/* Measure one row (collective over the job).  ctx has everything but the
 * shape, which the row carries.  Fatal errors abort the job with a message. */
void coll_measure(const coll_bufs_t *b, coll_ctx_t *ctx, coll_row_t *row,
                  const coll_check_opts_t *chk);

/* Fill the input of this rank and poison the output (host buffers). */
void coll_fill(const coll_ctx_t *c, const coll_op_t *op, int inplace, void *send_h, void *recv_h);
/* Count this rank's wrong output elements; reports up to max_reports. */
size_t coll_check(const coll_ctx_t *c, const coll_op_t *op, int inplace, const void *send_h,
                  const void *recv_h, int max_reports);
/* Store a value that differs from the expected one at output element j. */
void coll_plant(const coll_ctx_t *c, const coll_op_t *op, int inplace, void *send_h, void *recv_h,
                size_t j);

/* Adaptive counts (OSU): 1000 iterations and 100 warm-up up to 8 KiB, 100 and
 * 10 above. */
int coll_default_iters(size_t bytes);
int coll_default_warmup(size_t bytes);

#endif
