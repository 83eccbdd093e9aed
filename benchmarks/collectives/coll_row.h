/* coll_row: the types that the row's measurement (bench) and its timing
 * (timing) share: the buffers the calls see and one row of the benchmark,
 * its settings in and its samples and numbers out.  Types only, in a header
 * of their own so that bench.c may call timing without the two headers
 * including each other.
 * defines: coll_bufs_t, coll_row_t, COLL_BATCH_TARGET_S, COLL_MIN_BATCHES */
#ifndef EXADL_COLL_ROW_H
#define EXADL_COLL_ROW_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/collectives/coll.h"
#include "benchmarks/collectives/device.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/stats.h"

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
    int batch_given;        /* in: --batch N: calls per batch (0: from batch_target_s) */
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

#endif
