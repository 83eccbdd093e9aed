#include "benchmarks/cosmoflow/un_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/cosmoflow/model/un_kern.h"

/* The time the gradient allreduce's row holds so far (0 alone, or on the
 * host loops, which keep no table). */
static double allreduce_time(const un_net *n)
{
    const ktab_t *t = un_net_ktab(n);
    double s = 0;
    for (int i = 0; t && i < t->n; i++)
        if (!strcmp(t->rows[i].kernel, "allreduce")) s += t->rows[i].time_s;
    return s;
}

int un_run(un_net *n, const comm_t *comm, int warmup, int steps, int quiet, un_result *r)
{
    memset(r, 0, sizeof *r);
    r->warmup = warmup, r->steps = steps, r->nranks = comm->size, r->failed_step = -1;
    size_t nw = (size_t)(warmup > 0 ? warmup : 1), ns = (size_t)steps;
    r->warm_s = XCALLOC(nw, sizeof(double), "warm-up times");
    r->warm_loss = XCALLOC(nw, sizeof(double), "warm-up losses");
    r->step_s = XCALLOC(ns, sizeof(double), "step times");
    r->loss = XCALLOC(ns, sizeof(double), "losses");
    r->allreduce_s = XCALLOC(ns, sizeof(double), "allreduce times");
    r->rank_step_s = XCALLOC(ns * (size_t)comm->size, sizeof(double), "per-rank step times");
    clock_t c0 = clock();
    int rc = 0;
    for (int t = 0; t < warmup + steps && !rc; t++) {
        int timed = t >= warmup, i = t - warmup;
        /* the timed steps' table only: the warm-up's counts are dropped */
        if (t == warmup) uk_table_reset(n);
        double a0 = allreduce_time(n);
        CHECK_MPI(MPI_Barrier(comm->world));
        double t0 = timer_now_s();
        int64_t f = 0;
        double loss = un_net_step(n, t, &f);
        double mine = timer_now_s() - t0, worst = comm_max_double(comm, mine);
        r->flops_total += f;
        if (timed) {
            r->step_s[i] = worst, r->loss[i] = loss, r->allreduce_s[i] = allreduce_time(n) - a0;
            r->flops_rank_step = f;
            CHECK_MPI(MPI_Allreduce(&f, &r->flops_step, 1, MPI_INT64_T, MPI_SUM, comm->world));
            CHECK_MPI(MPI_Gather(&mine, 1, MPI_DOUBLE, r->rank_step_s + (size_t)i * comm->size, 1,
                                 MPI_DOUBLE, 0, comm->world));
        } else {
            r->warm_s[t] = worst, r->warm_loss[t] = loss;
        }
        if (!quiet && comm->rank == 0)
            printf("%s %d loss %.9g flops %lld time_s %.6g\n", timed ? "step" : "warmup",
                   timed ? i : t, loss, (long long)f, worst);
        if (!(loss == loss)) { /* the loss is summed over the ranks: every rank sees it */
            if (comm->rank == 0)
                fprintf(stderr, "cosmoflow: error: --network unet3d: loss not finite at step %d\n", t);
            r->failed_step = t;
            rc = 1;
        }
    }
    r->cpu_s = (double)(clock() - c0) / CLOCKS_PER_SEC;
    r->halo_bytes_step = un_net_halo_bytes(n);
    return rc;
}

void un_result_free(un_result *r)
{
    if (!r) return;
    free(r->warm_s), free(r->warm_loss), free(r->step_s), free(r->loss), free(r->allreduce_s);
    free(r->rank_step_s);
    memset(r, 0, sizeof *r);
}
