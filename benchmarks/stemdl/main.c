/* stemdl: one STEMDL benchmark launch (see --help and docs/stemdl.md). */
#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/sysinfo.h"
#include "benchmarks/networks/fcdensenet/fd_convtime.h"
#include "benchmarks/train/sp_halo.h"
#include "benchmarks/networks/fcdensenet/fd_links.h"
#include "benchmarks/networks/fcdensenet/fd_split.h"
#include "benchmarks/stemdl/args.h"
#include "benchmarks/networks/fcdensenet/plan.h"
#include "benchmarks/networks/fcdensenet/stemdl_network.h"
#include "benchmarks/stemdl/srec.h"
#include "benchmarks/stemdl/st_data.h"
#include "benchmarks/train/backend.h"
#include "benchmarks/train/mllog.h"
#include "benchmarks/train/tprog.h"
#include "benchmarks/train/train.h"

static int describe(const args_t *a, comm_t *comm, sysinfo_t *si)
{
    /* the plan model's link file: refused before anything is printed */
    if (a->cfg.model_links[0]) {
        char lerr[600];
        fdl_links l;
        if (a->cfg.model_latency_s > 0 || a->cfg.model_Bps > 0)
            check_usage("--model-links %s with --model-latency-s or --model-bytes-per-s: give the "
                        "links one way", a->cfg.model_links);
        if (fdl_load(a->cfg.model_links, &l, lerr, sizeof lerr))
            check_usage("--model-links: %s", lerr);
    }
    plan_t p;
    plan_build(&p, &a->cfg);
    int64_t executed = train_dry_flops(&stemdl_network, &p, a->cfg.run.batch, NULL);
    /* the plan model's measured convolutions: the run's kernel set, on rank 0 */
    backend_t be;
    fdc_bench cb;
    int bench = a->cfg.model_conv_times && comm->rank == 0 && fd_split_of(&a->cfg) > 1;
    if (bench) {
        char err[1200];
        if (backend_open(&be, &a->cfg.run, comm, si, err, sizeof err)) check_usage("%s", err);
        if (fdc_open(&cb, be.ops, be.ctx, si->cpu_model, be.threads, a->cfg.run.precision, err,
                     sizeof err))
            check_usage("--model-conv-times: %s", err);
        fdc_use(&cb);
    }
    if (comm->rank == 0) stemdl_network.describe(&p, stdout, executed, a->cfg.run.batch);
    if (bench) {
        fdc_close(&cb);
        backend_close(&be);
    }
    plan_free(&p);
    return 0;
}

/* A training (or with --read-only, its reads alone) from the synthetic stream
 * or a data set; the exit code. */
static int train(args_t *a, comm_t *comm, sysinfo_t *si, int argc, char **argv,
                 const char *started)
{
    char err[512];
    /* the model is a st_model: the plan, and the data set's feed (st_data.h) */
    st_model m = {.feed = NULL};
    plan_build(&m.plan, &a->cfg);
    /* spatial parallelism: the ranks sharing each sample (fd_split.h) */
    sp_group grp = {.comm = MPI_COMM_NULL};
    int S = fd_split_of(&a->cfg) > 1 ? fd_split_of(&a->cfg) : 1;
    if (S > 1) {
        if (!comm->mpi)
            check_usage("--spatial %s needs MPI ranks to split samples over", a->cfg.spatial);
        int hw[2];
        fd_split_hw(&a->cfg, hw);
        if (sp_group_open(&grp, hw[0], hw[1], comm->world, err, sizeof err))
            check_usage("%s", err);
        m.plan.group = &grp;
    }
    if (st_make_missing(&m.plan, &a->data, a->cfg.run.seed, comm))
        check_usage("--make-missing: could not write the set");
    if (st_stage(&a->data, comm, a->quality.mllog && comm->rank == 0))
        check_usage("--stage %s: the set could not be copied", a->data.stage);
    int64_t steps = (int64_t)a->cfg.run.steps + a->cfg.run.warmup;
    int rc;
    if (a->read_only) {
        rc = st_read_only(&m, &a->data, a->cfg.run.seed, S, a->cfg.run.batch, steps, a->t.record,
                          comm);
    } else {
        if (st_data_is(a->data.data) &&
            st_data_open(&m, &a->data, a->cfg.run.seed, comm->size / S, comm->rank / S,
                         a->cfg.run.batch, steps, err, sizeof err))
            check_usage("--data %s: %s", a->data.data, err);
        backend_t be;
        if (backend_open(&be, &a->cfg.run, comm, si, err, sizeof err)) check_usage("%s", err);
        train_job job = {.net = st_network(), .model = &m, .run = &a->cfg.run, .backend = &be,
                         .comm = comm, .quiet = a->t.quiet, .dump_weights = a->t.dump_weights,
                         .quality = a->quality.eval_every > 0 || a->quality.mllog ? &a->quality
                                                                                 : NULL,
                         .ckpt = a->ckpt.every > 0 || a->ckpt.restore ? &a->ckpt : NULL};
        tprog_run run;
        tprog_run_init(&run, si, argc, argv, started, a->t.record);
        srec_fill(&run, a);
        if (comm->rank == 0 && !a->t.quiet)
            printf("stemdl: %d rank(s), %d thread(s) per rank, kernels: %s\n", comm->size,
                   be.threads, be.library);
        rc = tprog_train(&job, &run);
        backend_close(&be);
    }
    shard_feed_close(m.feed);
    sp_group_close(&grp);
    plan_free(&m.plan);
    return rc;
}

int main(int argc, char **argv)
{
    check_set_program("stemdl");
    mllog_program_start(argc, argv); /* MLLOG's init_start: before MPI starts */
    comm_t comm;
    /* answers that need no communication skip MPI's start-up (half a second) */
    if (tprog_is_local(argc, argv, "--make-data"))
        comm_init_self(&comm);
    else
        comm_init(&argc, &argv, &comm);
    args_t a;
    args_parse(&a, argc, argv, comm.rank);
    char started[32];
    sysinfo_t si;
    tprog_start(&comm, &si, started, sizeof started);
    int rc = 0;
    if (a.t.describe) {
        rc = describe(&a, &comm, &si);
    } else if (a.t.sysinfo) {
        rc = tprog_print_sysinfo(&si, &a.cfg.run, &comm);
    } else if (a.data.make_data) {
        plan_t p;
        plan_build(&p, &a.cfg);
        rc = st_make_data(&p, &a.data, a.cfg.run.seed);
        plan_free(&p);
    } else {
        rc = train(&a, &comm, &si, argc, argv, started);
    }
    if (comm.mpi) CHECK_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, comm.world));
    comm_finalize(&comm);
    return rc;
}
