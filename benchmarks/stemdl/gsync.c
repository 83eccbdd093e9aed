#include "gsync.h"

#include <limits.h>
#include <stdlib.h>

#include "check.h"
#include "timer.h"

struct gsync {
    const plan_t *plan;
    int ranks;
    gsync_transport tr;
    kc_t *kc;
    int ready_count;
    double comm_s;
};

static void mpi_allreduce_sum(void *ctx, float *buf, int64_t count)
{
    comm_t *c = ctx;
    /* MPI counts are int: reduce huge layers in slices */
    while (count > 0) {
        int n = count > INT_MAX / 2 ? INT_MAX / 2 : (int)count;
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_FLOAT, MPI_SUM, c->world));
        buf += n;
        count -= n;
    }
}

gsync_transport gsync_mpi_transport(comm_t *comm)
{
    gsync_transport t = {.name = "mpi", .allreduce_sum = mpi_allreduce_sum, .ctx = comm};
    return t;
}

gsync_t *gsync_create(const plan_t *p, int ranks, gsync_transport tr)
{
    gsync_t *g = XCALLOC(1, sizeof *g, "gradient reduction");
    g->plan = p;
    g->ranks = ranks;
    g->tr = tr;
    return g;
}

void gsync_free(gsync_t *g) { free(g); }

void gsync_begin(gsync_t *g, kc_t *kc)
{
    g->kc = kc;
    g->ready_count = 0;
    g->comm_s = 0;
}

void gsync_ready(void *user, int layer, void *grad, int64_t count)
{
    gsync_t *g = user;
    g->ready_count++;
    if (g->ranks == 1 || (g->kc && g->kc->dry)) return;
    ktab_row *row = g->kc ? ktab_row_for(g->kc->tab, "allreduce", g->plan->layers[layer].name) : NULL;
    if (g->tr.start) {
        if (row) row->calls++;
        g->tr.start(g->tr.ctx, grad, count, row ? &row->time_s : NULL);
        return;
    }
    double t0 = timer_now_s();
    g->tr.allreduce_sum(g->tr.ctx, grad, count);
    double dt = timer_now_s() - t0;
    g->comm_s += dt;
    if (row) {
        row->calls++;
        row->time_s += dt;
    }
}

double gsync_finish(gsync_t *g)
{
    CHECK(g->ready_count == g->plan->n, "%d of %d layer gradients were reported ready",
          g->ready_count, g->plan->n);
    if (g->tr.wait && g->ranks > 1 && !(g->kc && g->kc->dry)) g->tr.wait(g->tr.ctx);
    return g->comm_s;
}

double gsync_settle(gsync_t *g)
{
    if (g->tr.settle && g->ranks > 1 && !(g->kc && g->kc->dry)) g->comm_s += g->tr.settle(g->tr.ctx);
    return g->comm_s;
}
