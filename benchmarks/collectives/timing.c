#include "benchmarks/collectives/timing.h"

#include <math.h>
#include <stdlib.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"

double coll_planted_delay_s = 0;

int coll_batch_plan(double est_s, double target_s, int iters, int exact, int *batches)
{
    if (iters < 1) iters = 1;
    int b = 1;
    if (est_s > 0 && target_s > 0) {
        double x = ceil(target_s / est_s * (1 - 1e-12)); /* 100 / 0.5 is 200, not 201 */
        b = x >= (double)iters ? iters : (int)x;
    }
    if (b < 1) b = 1;
    if (exact) {
        /* the total the user asked for, in as many batches as the target allows
         * but no fewer than COLL_MIN_BATCHES where the total has that many */
        int most = iters / COLL_MIN_BATCHES;
        if (b > most) b = most > 0 ? most : 1;
        *batches = iters / b;
    } else {
        int k = (iters + b - 1) / b;
        *batches = k < COLL_MIN_BATCHES ? COLL_MIN_BATCHES : k;
    }
    return b;
}

int coll_batch_fixed(int batch, int iters, int exact, int *batches)
{
    if (iters < 1) iters = 1;
    if (batch < 1) batch = 1;
    if (exact) {
        /* the total asked for, in whole batches (the parser refuses a -n that
         * is not a multiple of --batch: nothing is dropped silently) */
        if (batch > iters) batch = iters;
        *batches = iters / batch;
    } else {
        int k = (iters + batch - 1) / batch;
        *batches = k < COLL_MIN_BATCHES ? COLL_MIN_BATCHES : k;
    }
    return batch;
}

static void planted_wait(void)
{
    if (coll_planted_delay_s <= 0) return;
    double end = timer_now_s() + coll_planted_delay_s;
    while (timer_now_s() < end) {
    }
}

static void call(const coll_bufs_t *b, coll_ctx_t *c, const coll_row_t *row, void *s, void *r)
{
    char err[512];
    planted_wait();
    if (row->op->run(c, row->inplace, s, r, err, sizeof err))
        check_fail(row->op->name, __FILE__, __LINE__, "%s", err);
    (void)b;
}

/* one rank's mean time per call of n back-to-back calls, after a barrier */
static double loop_s(const coll_bufs_t *b, coll_ctx_t *c, const coll_row_t *row, void *s, void *r,
                     int n)
{
    coll_dev_sync(b->dev);
    CHECK_MPI(MPI_Barrier(b->comm->world));
    double t0 = timer_now_s();
    for (int j = 0; j < n; j++) call(b, c, row, s, r);
    coll_dev_sync(b->dev);
    return (timer_now_s() - t0) / n;
}

/* batched: returns the samples (per rank), fills row->batch and nsamples */
static double *time_batched(const coll_bufs_t *b, coll_ctx_t *c, coll_row_t *row, void *s, void *r)
{
    /* warm-up back to back; its second half estimates one call */
    int w = row->warmup;
    if (w > 1) (void)loop_s(b, c, row, s, r, w / 2);
    double est = loop_s(b, c, row, s, r, w > 1 ? w - w / 2 : 1), est_max;
    CHECK_MPI(MPI_Allreduce(&est, &est_max, 1, MPI_DOUBLE, MPI_MAX, b->comm->world));
    int k;
    if (row->batch_given > 0) /* --batch: nccl-tests' -n calls per timed loop */
        row->batch = coll_batch_fixed(row->batch_given, row->iterations, row->iters_given, &k);
    else
        row->batch = coll_batch_plan(est_max, row->batch_target_s, row->iterations, row->iters_given, &k);
    row->nsamples = k;
    row->iterations = row->batch * k;
    double *local = XCALLOC((size_t)k, sizeof *local, "timing samples");
    for (int i = 0; i < k; i++) local[i] = loop_s(b, c, row, s, r, row->batch);
    return local;
}

/* per call: a barrier before each call, every call a sample */
static double *time_per_call(const coll_bufs_t *b, coll_ctx_t *c, coll_row_t *row, void *s, void *r)
{
    int n = row->iterations;
    row->batch = 1;
    row->nsamples = n;
    double *local = XCALLOC((size_t)(n ? n : 1), sizeof *local, "timing samples");
    for (int it = 0; it < row->warmup + n; it++) {
        double t = loop_s(b, c, row, s, r, 1);
        if (it >= row->warmup) local[it - row->warmup] = t;
    }
    return local;
}

void coll_time_row(const coll_bufs_t *b, coll_ctx_t *c, coll_row_t *row, void *s, void *r)
{
    double *local = row->per_call ? time_per_call(b, c, row, s, r) : time_batched(b, c, row, s, r);
    int n = row->nsamples;
    /* OSU's convention, for comparisons: each rank's mean per call (the
     * batches are equal, so the mean of the samples), averaged over ranks */
    double mean = 0;
    for (int i = 0; i < n; i++) mean += local[i];
    mean = n ? mean / n : 0;
    if (row->op->flags & OP_P2P) {
        mean = c->rank == 0 ? mean * 0.5 : 0;
        CHECK_MPI(MPI_Allreduce(&mean, &row->osu_avg_s, 1, MPI_DOUBLE, MPI_SUM, b->comm->world));
    } else {
        CHECK_MPI(MPI_Allreduce(&mean, &row->osu_avg_s, 1, MPI_DOUBLE, MPI_SUM, b->comm->world));
        row->osu_avg_s /= c->nranks;
    }
    row->time_s = XCALLOC((size_t)(n ? n : 1), sizeof *row->time_s, "timing samples");
    if (n > 0)
        CHECK_MPI(MPI_Allreduce(local, row->time_s, n, MPI_DOUBLE, MPI_MAX, b->comm->world));
    free(local);
    for (int i = 0; i < n; i++) {
        if (row->op->flags & OP_P2P) row->time_s[i] *= 0.5; /* one way = half the round trip */
        row->time_s[i] = round(row->time_s[i] * 1e12) * 1e-12; /* a batch mean resolves < 1 ns */
    }
}
