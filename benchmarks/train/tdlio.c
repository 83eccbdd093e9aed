#include "benchmarks/train/tdlio.h"

#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/record/record.h"
#include "benchmarks/common/timer.h"

/* the numbers of the lines as a YAML mapping in FILE: 0, or -1 (said on stderr) */
static int write_record(const tdlio_cfg *c, int ranks, double samples, int64_t bytes, double s)
{
    char err[768];
    rec_t *w = rec_open(c->record, err, sizeof err);
    if (!w) {
        fprintf(stderr, "%s: error: %s\n", c->program, err);
        return -1;
    }
    rec_map_begin(w);
    rec_key(w, "read_only");
    rec_map_begin(w);
    rec_kv_str(w, "program", c->program);
    rec_kv_str(w, "data", c->data);
    rec_kv_int(w, "ranks", ranks);
    rec_kv_int(w, "steps", c->steps);
    rec_kv_int(w, "batch", c->batch);
    rec_kv_int(w, "prefetch", c->feed->prefetch);
    rec_kv_int(w, "readahead", c->feed->readahead);
    rec_kv_str(w, "shuffle", c->feed->shuffle);
    rec_kv_bool(w, "verified", !c->feed->no_verify);
    rec_kv_double(w, "samples", samples);
    rec_kv_int(w, "bytes", bytes);
    rec_kv_double(w, "seconds", s);
    rec_kv_double(w, "samples_per_s", samples / s);
    rec_kv_double(w, "GBps", (double)bytes / s / 1e9);
    rec_map_end(w);
    rec_map_end(w);
    if (rec_close(w, err, sizeof err) == 0) return 0;
    fprintf(stderr, "%s: error: %s\n", c->program, err);
    return -1;
}

int tdlio_run(const tdlio_cfg *c, tdlio_open_fn open, void *user, const comm_t *comm)
{
    char err[768];
    float *in = XMALLOC(c->input_floats * sizeof *in, "a batch");
    float *tg = XMALLOC(c->target_floats * sizeof *tg, "a batch");
    if (comm->mpi) CHECK_MPI(MPI_Barrier(comm->world));
    /* the clock starts before the set is opened: the reader thread starts there */
    double t0 = timer_now_s();
    shard_feed *f = NULL;
    if (open(user, &f, err, sizeof err)) check_usage("--data %s: %s", c->data, err);
    for (int64_t s = 0; s < c->steps; s++) shard_feed_batch(f, s, c->first, c->batch, in, tg);
    double mine = timer_now_s() - t0, wall = mine;
    int64_t bytes, samples;
    double read_s;
    shard_feed_io(f, &bytes, &samples, &read_s);
    int64_t all[2] = {bytes, samples}, sum[2] = {bytes, samples};
    if (comm->mpi) {
        CHECK_MPI(MPI_Allreduce(&mine, &wall, 1, MPI_DOUBLE, MPI_MAX, comm->world));
        CHECK_MPI(MPI_Allreduce(all, sum, 2, MPI_INT64_T, MPI_SUM, comm->world));
    }
    /* a sample shared by S ranks is counted once: read in S parts, or S times */
    double whole = (double)sum[1] / (c->ranks_per_sample > 0 ? c->ranks_per_sample : 1);
    if (comm->rank == 0)
        printf("%s: read only (no compute): %d rank(s) read %.0f samples (%lld bytes) of %s "
               "in %.4g s, %lld steps of batch %d per group, prefetch %d, readahead %d, "
               "shuffle %s\n"
               "read_only: samples_per_s %.6g GBps %.6g seconds %.6g bytes %lld\n",
               c->program, comm->size, whole, (long long)sum[0], c->data, wall,
               (long long)c->steps, c->batch, c->feed->prefetch, c->feed->readahead,
               c->feed->shuffle, whole / wall,
               (double)sum[0] / wall / 1e9, wall, (long long)sum[0]);
    int rc = 0;
    if (comm->rank == 0 && c->record && write_record(c, comm->size, whole, sum[0], wall)) rc = 1;
    free(in);
    free(tg);
    return rc;
}
