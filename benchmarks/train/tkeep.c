#include "benchmarks/train/train_impl.h"

#include <math.h>
#include <stdlib.h>

#include "benchmarks/common/check.h"

/* The step's reductions in the kernel table: one row per group, the span
 * from its first reduction's start to its last one's end (0 FLOPs: the sums
 * are MPI's or NCCL's; the span overlaps backward, see docs/gsync.md). */
void tkeep_reduction_rows(const gsync_t *gs, ktab_t *tab, const char *kernel)
{
    const gsync_step *st = gsync_last_step(gs);
    for (int k = 0; k < gsync_ngroups(gs); k++) {
        const gsync_group_time *x = &st->groups[k];
        if (x->reductions == 0) continue;
        ktab_row *row = ktab_row_for(tab, kernel, gsync_group_label(gs, k));
        row->calls += x->reductions;
        row->time_s += x->end_s - x->start_s;
    }
}

/* A timed step's numbers (max over ranks, the engine's step on rank 0) into r. */
void tkeep_step(train_result *r, int i, const double *mx, const gsync_step *gst, double gloss,
                const ktab_t *step_tab)
{
    r->step_s[i] = mx[0];
    r->data_s[i] = mx[1];
    r->comm_s[i] = mx[2];
    r->exposed_s[i] = mx[3];
    r->negotiation_s[i] = mx[4];
    r->backward_end_s[i] = gst->backward_end_s;
    r->cycles[i] = gst->cycles;
    for (int k = 0; k < r->ngroups; k++) {
        double *x = r->timeline + ((size_t)i * r->ngroups + k) * 3;
        x[0] = gst->groups[k].ready_s, x[1] = gst->groups[k].start_s, x[2] = gst->groups[k].end_s;
        r->group_reductions[k] = gst->groups[k].reductions;
    }
    r->loss[i] = gloss;
    ktab_accumulate(&r->kernels, step_tab);
}

/* Each rank's own step and compute time of timed step i, gathered on rank 0
 * (the straggler term of the model needs the spread, not only the max). */
void tkeep_rank_times(const train_job *j, train_result *r, int i, double step_s,
                      double compute_s)
{
    int n = j->comm->size;
    if (!r->rank_step_s && j->comm->rank == 0) {
        r->rank_step_s = XCALLOC((size_t)r->steps * (size_t)n, sizeof(double), "per-rank steps");
        r->rank_compute_s = XCALLOC((size_t)r->steps * (size_t)n, sizeof(double), "per-rank compute");
    }
    r->nranks = n;
    double mine[2] = {step_s, compute_s}, *all = NULL;
    if (j->comm->rank == 0) all = XCALLOC((size_t)n * 2, sizeof *all, "per-rank times");
    CHECK_MPI(MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, j->comm->world));
    if (j->comm->rank == 0) {
        for (int k = 0; k < n; k++) {
            r->rank_step_s[(size_t)i * n + k] = all[2 * k];
            r->rank_compute_s[(size_t)i * n + k] = all[2 * k + 1];
        }
        free(all);
    }
}

/* A timed step's exchange numbers: bytes of rank 0 (every rank sends the
 * same), times and disagreement the max over ranks. */
void tkeep_update(const train_job *j, lionx_t *lx, int64_t params, int i, train_result *r)
{
    train_update *u = &r->up;
    int n = j->comm->size;
    if (!lx) {
        /* a bandwidth-optimal allreduce of the fp32 gradients: 2 (n-1)/n of them */
        u->wire_bytes[i] = (int64_t)(2.0 * (n - 1) / n * (double)params * sizeof(float));
        u->disagreement[i] = NAN;
        return;
    }
    const lionx_step *st = lionx_last(lx);
    u->wire_bytes[i] = st->wire_bytes;
    u->sync_bytes[i] = st->sync_bytes;
    u->synced[i] = st->synced;
    /* NaN (not measured) stays NaN: -1 travels through the max instead */
    double in[3] = {st->kernel_s, st->collective_s, isnan(st->disagreement) ? -1 : st->disagreement},
           mx[3];
    CHECK_MPI(MPI_Allreduce(in, mx, 3, MPI_DOUBLE, MPI_MAX, j->comm->world));
    u->kernel_s[i] = mx[0];
    u->collective_s[i] = mx[1];
    u->disagreement[i] = mx[2] < 0 ? NAN : mx[2];
}
