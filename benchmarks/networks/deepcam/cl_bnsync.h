/* cl_bnsync: synchronised batch norm (climate --bn sync, docs/climate.md
 * "Synchronised batch norm"): the statistics of a group of data-parallel
 * ranks instead of each rank's own, so that R ranks of batch b normalise
 * as one rank of batch R b does.
 *
 * Forward: each rank sums x and x^2 per channel (in double), one
 * MPI_Allreduce(SUM) of [sum x | sum x^2 | count] over the group (2c + 1
 * doubles), mean = S1 / N, var = S2 / N - mean^2 (biased), then y =
 * gamma (x - mean) / sqrt(var + eps) + beta.  Plain sums, not Welford:
 * they reduce with one MPI_SUM (Welford's or Chan's pairwise merge needs a
 * user-defined operation or an allgather); squares of fp32 values are exact
 * in double, so the cancellation in S2 / N - mean^2 costs about N 2^-53
 * (mean^2 + var) / var of relative error in var, far below fp32's 2^-24
 * for any activation whose |mean| / sd is below 10^3.
 * Backward: each rank sums dy and dy xhat per channel (its dbeta and dgamma,
 * which the gradient engine averages as any other gradient), one
 * MPI_Allreduce of [sum dy | sum dy xhat | count], then dx = gamma rstd (dy
 * - Sdy / N - xhat Sdyxhat / N).  Each rank's loss is the mean over its own
 * pixels and the engine averages the gradients, so the sums over the group
 * divided by the group's count give every rank R times the gradient of the
 * global mean loss, the same scale the rest of its backward carries.
 *
 * The loops run on the host (the CPU kernel sets' memory, fp32
 * activations; --bn sync is refused on the cuda backend) and add rows to the
 * kernel table with FLOPs from the formulas below: bn_sums, bn_apply,
 * bn_bwd_sums, bn_bwd_apply, and bn_allreduce (0 FLOPs, its wall time).
 * The bytes per step are counted from the plan (cl_plan_bnsync_bytes).
 *
 * defines: cl_bnsync, cl_bnsync_open, cl_bnsync_close, cl_bnsync_fwd, cl_bnsync_bwd */
#ifndef CLIMATE_CL_BNSYNC_H
#define CLIMATE_CL_BNSYNC_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "benchmarks/networks/deepcam/cl_plan.h"
#include "benchmarks/train/counted.h"

typedef struct cl_bnsync {
    MPI_Comm comm;     /* the group's ranks; MPI_COMM_NULL: no MPI (one process) */
    int ranks;         /* ranks in the group */
    int64_t bytes;     /* payload bytes this rank put into reductions since open */
    int64_t reductions;
    double *buf;       /* [2 cmax + 1] the reduction's array */
    int cmax;
} cl_bnsync;

/* Groups of `group` consecutive ranks of world (0: all of them); world may
 * be MPI_COMM_NULL (one process without MPI).  0, or -1 with err (the group
 * does not divide the ranks). */
int cl_bnsync_open(cl_bnsync *s, int group, MPI_Comm world, int world_size, char *err,
                   size_t errlen);
void cl_bnsync_close(cl_bnsync *s);

/* As kern.h's bn_fwd and bn_bwd (mean, var written and read; dgamma, dbeta
 * this rank's sums), with the group's statistics.  Host memory, fp32 views;
 * dry: rows and FLOPs only. */
void cl_bnsync_fwd(cl_bnsync *s, kc_t *kc, const char *layer, const tview *x, const float *gamma,
                   const float *beta, float eps, float *mean, float *var, const tview *y);
void cl_bnsync_bwd(cl_bnsync *s, kc_t *kc, const char *layer, const tview *x, const tview *dy,
                   const float *gamma, const float *mean, const float *var, float eps,
                   const tview *dx, float *dgamma, float *dbeta);

#endif
