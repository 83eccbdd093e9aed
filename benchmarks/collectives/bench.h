/* bench: one row of the collectives benchmark: warm-up, then the timed calls,
 * then one validation call checked element by element.
 * Batched timing (the default, as OSU's loop and nccl-tests): a sample is the
 * mean time per call of a back-to-back loop of `batch` calls, with a barrier
 * (and a stream sync) only between batches; ranks are combined per batch by
 * the maximum over ranks of the batch mean.  Per-call timing (--timing
 * per-call): a barrier before every call, each call a sample, max over ranks. */
#ifndef EXADL_COLL_BENCH_H
#define EXADL_COLL_BENCH_H

#include <stdint.h>

#include "benchmarks/collectives/coll.h"
#include "benchmarks/collectives/device.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/stats.h"

/* at most this many raw samples per row go into the record */
#define COLL_MAX_KEPT_SAMPLES 1000
/* batched timing: a batch lasts at least this long by default, and a row has
 * at least this many batches (a 95% CI of the median needs n > 5) */
#define COLL_BATCH_TARGET_S 100e-6
#define COLL_MIN_BATCHES 10

typedef struct {
    coll_dev_t *dev;
    const comm_t *comm;
    void *send_d, *recv_d; /* the buffers the calls see (device memory on GPUs) */
    void *send_h, *recv_h; /* host copies for data set-up and checks (== *_d on mpi) */
    size_t send_cap, recv_cap; /* elements of the largest type that fit, in bytes */
} coll_bufs_t;

typedef struct {
    int plant;              /* plant one wrong element (test hook) */
    int plant_rank;
    size_t plant_index;     /* index into the rank's output region (mod its length) */
    int max_reports;        /* wrong elements printed per rank and row */
} coll_check_opts_t;

typedef struct {
    const coll_op_t *op;
    coll_dtype_t dtype;
    int redop;              /* -1 when the operation takes none */
    int root;               /* -1 when the operation has none */
    int inplace;
    int na;                 /* the variant does not exist for this backend */
    coll_shape_t shape;
    int iterations, warmup; /* adaptive: OSU's counts; batched timing may raise
                               iterations to COLL_MIN_BATCHES x batch */
    int per_call;           /* in: 1 = a barrier before every call (--timing per-call) */
    double batch_target_s;  /* in: the least duration of a batch (batched timing) */
    int iters_given;        /* in: -n was given: iterations is the exact total */
    int batch;              /* out: calls per sample (1 with per-call timing) */
    int nsamples;           /* out: samples in time_s */
    double *time_s;         /* nsamples samples (s per call), each the maximum over ranks */
    stats_summary_t st;
    double algbw_GBps, busbw_GBps, latency_us;
    double busbw_factor;    /* the operation's factor for this job (busbw / algbw) */
    double osu_avg_s;       /* OSU's "Avg Latency": each rank's mean over the
                               iterations, averaged over the ranks (pingpong:
                               rank 0's mean one-way time) */
    long long wrong;        /* wrong elements, all ranks together */
    int64_t wire_bytes;     /* bytes one rank sends per call (op->wire_bytes); -1: not said */
} coll_row_t;

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
