/* sr_worker: a worker group's loop (sr_worker.h). */
#define _GNU_SOURCE
#include "benchmarks/search/sr_worker.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "benchmarks/common/mpi/smpi_block.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/networks/fcdensenet/plan.h"
#include "benchmarks/networks/fcdensenet/stemdl_network.h"
#include "benchmarks/networks/fcdensenet/validate.h"
#include "benchmarks/search/sr_wait.h"
#include "benchmarks/train/backend.h"
#include "benchmarks/train/train.h"

double sr_planned_flops(const sr_cfg *c, const sr_genome *x)
{
    cfg_t k;
    sr_to_cfg(x, &c->base, &k);
    char err[256];
    if (cfg_validate(&k, err, sizeof err)) return -1;
    plan_t p;
    if (plan_build_checked(&p, &k, err, sizeof err)) return -1;
    double f = 3.0 * (double)p.fwd_conv_flops * k.run.batch * c->group_ranks *
               (k.run.warmup + k.run.steps);
    plan_free(&p);
    return f;
}

/* Train x on the group: res = fitness (held-out loss), counted FLOPs. */
static void train_one(const sr_cfg *c, comm_t *group, backend_t *be, const sr_genome *x, double *res)
{
    cfg_t k;
    sr_to_cfg(x, &c->base, &k);
    char err[512];
    res[1] = INFINITY, res[2] = 0, res[4] = 0;
    if (cfg_validate(&k, err, sizeof err)) {
        if (group->rank == 0) fprintf(stderr, "search: candidate refused: %s\n", err);
        return;
    }
    plan_t p;
    plan_build(&p, &k);
    train_job job = {.net = &stemdl_network, .model = &p, .run = &k.run, .backend = be,
                     .comm = group, .quiet = 1, .holdout = 1};
    train_result r;
    int rc = train_run(&job, &r, err, sizeof err);
    if (rc == 0) {
        res[1] = isfinite(r.holdout_loss) ? r.holdout_loss : INFINITY;
        /* flops_step: one step's executed FLOPs summed over the group's ranks */
        res[2] = (double)r.flops_step * (k.run.warmup + k.run.steps);
        res[4] = !r.invalid && isfinite(r.holdout_loss);
    } else if (group->rank == 0) {
        fprintf(stderr, "search: training a candidate failed: %s\n", err);
    }
    train_result_free(&r);
    plan_free(&p);
}

void sr_worker_run(const sr_cfg *c, comm_t *group, sr_wstats *ws)
{
    memset(ws, 0, sizeof *ws);
    backend_t be;
    int have_be = 0;
    if (c->fitness == SR_TRAIN) {
        char err[512];
        sysinfo_t si;
        memset(&si, 0, sizeof si);
        if (backend_open(&be, &c->base.run, group, &si, err, sizeof err))
            CHECK(0, "search: %s", err);
        have_be = 1;
    }
    sr_genome opt, mid;
    sr_planted_optimum(c->seed, &opt);
    for (int i = 0; i < SR_GENES; i++) mid.g[i] = (sr_gene_count(i) - 1) / 2;
    double mid_flops = c->fitness == SR_PLANTED && c->cost_s > 0 ? sr_planned_flops(c, &mid) : 0;
    double t_start = timer_now_s();
    for (;;) {
        int64_t msg[SR_WORK_LEN];
        if (group->rank == 0) {
            MPI_Request rq;
            MPI_Status st;
            CHECK_MPI(MPI_Irecv(msg, SR_WORK_LEN, MPI_INT64_T, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &rq));
            sr_wait(&rq, &st);
            if (st.MPI_TAG == SR_TAG_STOP) msg[0] = -1;
        }
        if (group->size > 1) {
            /* the other ranks wait without spinning (sr_wait) */
            MPI_Request rq;
            CHECK_MPI(MPI_Ibcast(msg, SR_WORK_LEN, MPI_INT64_T, 0, group->world, &rq));
            sr_wait(&rq, MPI_STATUS_IGNORE);
        }
        if (msg[0] < 0) break;
        sr_genome x;
        for (int i = 0; i < SR_GENES; i++) x.g[i] = (int)msg[1 + i];
        double t0 = timer_now_s();
        double res[SR_RESULT_LEN] = {(double)msg[0], 0, 0, 0, 1};
        if (c->fitness == SR_TRAIN) {
            train_one(c, group, &be, &x, res);
        } else if (group->rank == 0) {
            res[1] = sr_planted_fitness(&x, &opt);
            res[2] = sr_planned_flops(c, &x);
            if (mid_flops > 0 && res[2] > 0) sr_sleep(c->cost_s * res[2] / mid_flops);
        }
        res[3] = timer_now_s() - t0;
        ws->busy_s += res[3];
        ws->evaluated++;
        if (group->rank == 0)
            CHECK_MPI(MPI_Send(res, SR_RESULT_LEN, MPI_DOUBLE, 0, SR_TAG_RESULT, MPI_COMM_WORLD));
    }
    ws->wall_s = timer_now_s() - t_start;
    if (have_be) backend_close(&be);
}
