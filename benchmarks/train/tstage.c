#include "benchmarks/train/tstage.h"

#include <stdio.h>

#include "benchmarks/common/shard/shard.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/train/mllog.h"

int tstage_copy(const char *src, const char *dst, const comm_t *comm, int print, const char *prog,
                double *slowest_s, int64_t *bytes)
{
    char err[1024] = "";
    int64_t mine_bytes = 0;
    if (comm->mpi) CHECK_MPI(MPI_Barrier(comm->world));
    mllog_staging(print, 1);
    double t0 = timer_now_s();
    int ok = comm->local_rank != 0 || shard_stage(src, dst, &mine_bytes, err, sizeof err) == 0;
    double mine = timer_now_s() - t0, slowest = mine;
    int all = ok;
    int64_t total = mine_bytes;
    if (comm->mpi) {
        CHECK_MPI(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm->world));
        CHECK_MPI(MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm->world));
        CHECK_MPI(MPI_Allreduce(&mine_bytes, &total, 1, MPI_INT64_T, MPI_SUM, comm->world));
    }
    if (!ok) fprintf(stderr, "%s: error: --stage %s: %s\n", prog, dst, err);
    mllog_staging(print, 0);
    *slowest_s = slowest;
    *bytes = total;
    return all ? 0 : -1;
}
