#include "benchmarks/cosmoflow/cf_dlio.h"

#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/cosmoflow/model/cf_feed.h"

int cf_read_only(const cf_args *a, cf_model *m, comm_t *comm)
{
    char err[768];
    const runcfg_t *c = &a->cfg.run;
    int64_t steps = (int64_t)c->steps + c->warmup;
    size_t in_n, tg_n;
    cosmoflow_network.batch_floats(m, c->batch, &in_n, &tg_n);
    float *in = XMALLOC(in_n * sizeof *in, "a batch"), *tg = XMALLOC(tg_n * sizeof *tg, "a batch");
    if (comm->mpi) CHECK_MPI(MPI_Barrier(comm->world));
    /* the clock starts before the set is opened: the reader thread starts there */
    double t0 = timer_now_s();
    if (cf_feed_open(&m->feed, &m->plan, &m->part, a->cfg.data, &a->feed, c->seed, c->batch, steps,
                     err, sizeof err))
        check_usage("--data %s: %s", a->cfg.data, err);
    int64_t first = (int64_t)m->part.group * c->batch;
    for (int64_t s = 0; s < steps; s++) cf_feed_batch(m->feed, s, first, c->batch, in, tg);
    double mine = timer_now_s() - t0, wall = mine;
    int64_t bytes, samples;
    double read_s;
    cf_feed_io(m->feed, &bytes, &samples, &read_s);
    int64_t all[2] = {bytes, samples}, sum[2] = {bytes, samples};
    if (comm->mpi) {
        CHECK_MPI(MPI_Allreduce(&mine, &wall, 1, MPI_DOUBLE, MPI_MAX, comm->world));
        CHECK_MPI(MPI_Allreduce(all, sum, 2, MPI_INT64_T, MPI_SUM, comm->world));
    }
    /* a sample split over S ranks is read once, in S parts */
    double whole = (double)sum[1] / m->part.ranks_per_sample;
    if (comm->rank == 0)
        printf("cosmoflow: read only (no compute): %d rank(s) read %.0f samples (%lld bytes) of %s "
               "in %.4g s, %lld steps of batch %d per group, prefetch %d, shuffle %s\n"
               "read_only: samples_per_s %.6g GBps %.6g seconds %.6g bytes %lld\n",
               comm->size, whole, (long long)sum[0], a->cfg.data, wall, (long long)steps, c->batch,
               a->feed.prefetch, a->feed.shuffle, whole / wall, (double)sum[0] / wall / 1e9, wall,
               (long long)sum[0]);
    free(in);
    free(tg);
    return 0;
}
