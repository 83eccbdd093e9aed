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
#include "benchmarks/networks/deepcam/cl_split.h"
#include "benchmarks/train/sp_halo.h"
#include "benchmarks/train/backend.h"
#include "benchmarks/train/mllog.h"
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
        int N = cl_split_of(&p), sg[2];
        cl_split_grid(&p, sg);
        if (N > 1) {
            /* the same rank unsplit: the network's buffers at full height */
            cl_cfg one = a->cfg;
            snprintf(one.spatial, sizeof one.spatial, "1");
            cl_plan q;
            cl_plan_build(&q, &one);
            size_t whole = cl_net_bytes_needed(&q, kern_ref_ops(), a->cfg.run.batch);
            cl_plan_free(&q);
            int64_t msgs = 0, hb = cl_split_halo_bytes(&p, sg, a->cfg.run.batch, 4, &msgs);
            printf("spatial                        %dx%d  (each sample split into %d x %d tiles "
                   "over %d ranks; batch norm's sums and the image pool over the group)\n",
                   sg[0], sg[1], sg[0], sg[1], N);
            printf("network_bytes_per_rank         %zu  (unsplit %zu: %.2fx; padded tiles and "
                   "halo staging included)\n", net, whole, (double)net / (double)whole);
            printf("halo_bytes_per_step            %lld  (the busiest rank, %lld messages, %d "
                   "convolutions with a halo; fp32)\n", (long long)hb, (long long)msgs,
                   cl_split_halo_ops(&p, sg));
        }
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
    p.eval_samples = a->val_samples;
    cl_bnsync bn = {.comm = MPI_COMM_NULL};
    int N = cl_split_of(&p), sync = !strcmp(a->cfg.bn, "sync") || N > 1, sg[2];
    cl_split_grid(&p, sg);
    /* a split: the ranks sharing each sample (sp_halo.h); their batch norm
     * sums over the group (or a --bn-group of whole groups), so that the
     * tiles normalise as the whole sample does */
    sp_group grp = {.comm = MPI_COMM_NULL};
    if (N > 1) {
        if (!comm->mpi)
            check_usage("--spatial %s needs MPI ranks to split samples over", a->cfg.spatial);
        if (sp_group_open(&grp, sg[0], sg[1], comm->world, err, sizeof err))
            check_usage("%s", err);
        p.group = &grp;
    }
    int bgroup = strcmp(a->cfg.bn, "sync") ? N : a->cfg.bn_group;
    if (sync && cl_bnsync_open(&bn, bgroup, comm->mpi ? comm->world : MPI_COMM_NULL,
                               comm->size, err, sizeof err))
        check_usage("%s", err);
    p.bn = sync ? &bn : NULL;
    backend_t be;
    if (backend_open(&be, &a->cfg.run, comm, si, err, sizeof err)) check_usage("%s", err);
    train_job job = {.net = &climate_network, .model = &p, .run = &a->cfg.run, .backend = &be,
                     .comm = comm, .quiet = a->t.quiet, .dump_weights = a->t.dump_weights,
                     .quality = a->quality.eval_every > 0 || a->quality.mllog ? &a->quality : NULL};
    tprog_run run;
    tprog_run_init(&run, si, argc, argv, started, a->t.record);
    run.meta.benchmark = "climate";
    run.meta.config = write_config;
    run.meta.config_arg = &a->cfg;
    snprintf(run.title, sizeof run.title, "%s%s", a->cfg.preset[0] ? "preset " : "custom network",
             a->cfg.preset);
    char bnl[64] = "per-rank statistics";
    if (sync) snprintf(bnl, sizeof bnl, "statistics synchronised over groups of %d rank(s)", bn.ranks);
    char spl[64] = "";
    if (N > 1)
        snprintf(spl, sizeof spl, "; samples split %dx%d (%d groups)", sg[0], sg[1],
                 comm->size / N);
    if (comm->rank == 0 && !a->t.quiet)
        printf("climate: %d rank(s), %d thread(s) per rank, kernels: %s; batch norm: %s%s\n",
               comm->size, be.threads, be.library, bnl, spl);
    int rc = tprog_train(&job, &run);
    backend_close(&be);
    if (sync) cl_bnsync_close(&bn);
    if (N > 1) sp_group_close(&grp);
    cl_plan_free(&p);
    return rc;
}

int main(int argc, char **argv)
{
    check_set_program("climate");
    mllog_program_start(argc, argv); /* MLLOG's init_start: before MPI starts */
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
