/* climate: one launch of the climate segmentation benchmark (see --help and
 * docs/climate.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/climate/clargs.h"
#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/sysinfo.h"
#include "benchmarks/networks/deepcam/cl_bnsync.h"
#include "benchmarks/networks/deepcam/cl_net.h"
#include "benchmarks/networks/deepcam/cl_network.h"
#include "benchmarks/networks/deepcam/cl_plan.h"
#include "benchmarks/train/backend.h"
#include "benchmarks/train/tprog.h"
#include "benchmarks/train/train.h"

static void write_config(rec_t *w, const void *cfg) { cl_cfg_write(cfg, w); }

static int describe(const args_t *a, const comm_t *comm)
{
    cl_plan p;
    cl_plan_build(&p, &a->cfg);
    int64_t executed = train_dry_flops(&climate_network, &p, a->cfg.run.batch, NULL);
    if (comm->rank == 0) {
        climate_network.describe(&p, stdout, executed, a->cfg.run.batch);
        /* what a CPU rank allocates (fp32 activations and gradients, the
         * parameters, their gradients and Adam's two moments) */
        size_t net = cl_net_bytes_needed(&p, kern_ref_ops(), a->cfg.run.batch);
        double adam = 8.0 * (double)p.params;
        printf("memory_bytes_per_rank          %.0f  (%.3g GB at batch %d on the CPU: network "
               "%.3g GB, Adam's moments %.3g GB)\n",
               (double)net + adam, ((double)net + adam) / 1e9, a->cfg.run.batch,
               (double)net / 1e9, adam / 1e9);
    }
    cl_plan_free(&p);
    return 0;
}

static int train(const args_t *a, comm_t *comm, sysinfo_t *si, int argc, char **argv,
                 const char *started)
{
    char err[512];
    cl_plan p;
    cl_plan_build(&p, &a->cfg);
    cl_bnsync bn = {.comm = MPI_COMM_NULL};
    int sync = !strcmp(a->cfg.bn, "sync");
    if (sync && cl_bnsync_open(&bn, a->cfg.bn_group, comm->mpi ? comm->world : MPI_COMM_NULL,
                               comm->size, err, sizeof err))
        check_usage("%s", err);
    p.bn = sync ? &bn : NULL;
    backend_t be;
    if (backend_open(&be, &a->cfg.run, comm, si, err, sizeof err)) check_usage("%s", err);
    train_job job = {.net = &climate_network, .model = &p, .run = &a->cfg.run, .backend = &be,
                     .comm = comm, .quiet = a->t.quiet, .dump_weights = a->t.dump_weights};
    tprog_run run;
    tprog_run_init(&run, si, argc, argv, started, a->t.record);
    run.meta.benchmark = "climate";
    run.meta.config = write_config;
    run.meta.config_arg = &a->cfg;
    snprintf(run.title, sizeof run.title, "%s%s", a->cfg.preset[0] ? "preset " : "custom network",
             a->cfg.preset);
    char bnl[64] = "per-rank statistics";
    if (sync) snprintf(bnl, sizeof bnl, "statistics synchronised over groups of %d rank(s)", bn.ranks);
    if (comm->rank == 0 && !a->t.quiet)
        printf("climate: %d rank(s), %d thread(s) per rank, kernels: %s; batch norm: %s\n",
               comm->size, be.threads, be.library, bnl);
    int rc = tprog_train(&job, &run);
    backend_close(&be);
    if (sync) cl_bnsync_close(&bn);
    cl_plan_free(&p);
    return rc;
}

int main(int argc, char **argv)
{
    check_set_program("climate");
    comm_t comm;
    /* answers that need no communication skip MPI's start-up */
    if (tprog_is_local(argc, argv, NULL))
        comm_init_self(&comm);
    else
        comm_init(&argc, &argv, &comm);
    args_t a;
    args_parse(&a, argc, argv, comm.rank);
    char started[32];
    sysinfo_t si;
    tprog_start(&comm, &si, started, sizeof started);
    int rc;
    if (a.t.describe)
        rc = describe(&a, &comm);
    else if (a.t.sysinfo)
        rc = tprog_print_sysinfo(&si, &a.cfg.run, &comm);
    else
        rc = train(&a, &comm, &si, argc, argv, started);
    if (comm.mpi) CHECK_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, comm.world));
    comm_finalize(&comm);
    return rc;
}
