/* cosmoflow: one CosmoFlow benchmark launch (see --help and docs/cosmoflow.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/shard/shard.h"
#include "benchmarks/common/sysinfo.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/cosmoflow/cf_args.h"
#include "benchmarks/cosmoflow/cf_dlio.h"
#include "benchmarks/cosmoflow/cf_make.h"
#include "benchmarks/cosmoflow/cf_rec.h"
#include "benchmarks/cosmoflow/un_cli.h"
#include "benchmarks/cosmoflow/model/cf_data.h"
#include "benchmarks/cosmoflow/model/cf_feed.h"
#include "benchmarks/cosmoflow/model/cf_network.h"
#include "benchmarks/train/backend.h"
#include "benchmarks/train/mllog.h"
#include "benchmarks/train/tprog.h"
#include "benchmarks/train/tstage.h"
#include "benchmarks/train/train.h"

static int describe(const cf_args *a)
{
    cf_model m;
    cf_model_whole(&m, &a->cfg);
    int64_t executed = train_dry_flops(&cosmoflow_network, &m, a->cfg.run.batch, NULL);
    cf_describe(&m, stdout, executed, a->cfg.run.batch);
    cf_model_free(&m);
    return 0;
}

static int write_data(const cf_args *a)
{
    char err[768];
    cf_model m;
    cf_model_whole(&m, &a->cfg);
    int rc = cf_data_write(&m.plan, a->cfg.run.seed, a->samples, a->write_data, err, sizeof err);
    if (rc) fprintf(stderr, "cosmoflow: error: %s\n", err);
    else printf("cosmoflow: wrote %lld samples of %d^3 x %d voxels to %s\n",
                (long long)a->samples, a->cfg.size, a->cfg.channels, a->write_data);
    cf_model_free(&m);
    return rc ? 1 : 0;
}

/* --make-missing: rank 0 writes the GRF set into DIR of --data files:DIR
 * when DIR has no manifest (the others wait); its time, *made_s, goes to
 * the record's io block, outside time to train.  0, or -1 when writing failed. */
static int make_missing(const cf_args *a, comm_t *comm, double *made_s)
{
    *made_s = 0;
    if (!a->make_missing || strncmp(a->cfg.data, "files:", 6)) return 0;
    char path[600];
    snprintf(path, sizeof path, "%s/manifest.yaml", a->cfg.data + 6);
    int rc = 0;
    if (comm->rank == 0 && access(path, F_OK) != 0) {
        cf_args w = *a;
        w.make_data = a->cfg.data + 6;
        snprintf(w.cfg.data, sizeof w.cfg.data, "grf");
        double t0 = timer_now_s();
        rc = cf_make_data(&w) ? -1 : 0;
        *made_s = timer_now_s() - t0;
    }
    if (comm->mpi) CHECK_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, comm->world));
    return rc;
}

/* --stage DIR: the first rank of each node copies the set of --data
 * files:SRC into DIR (node-local storage), the others wait; the training
 * then reads DIR.  The slowest node's copy time goes to the record's io
 * block (staging_s), beside time to train. */
static int stage(cf_args *a, comm_t *comm, const char *from)
{
    if (!a->stage || strncmp(a->cfg.data, "files:", 6)) return 0;
    if (tstage_copy(a->cfg.data + 6, a->stage, comm, a->quality.mllog && comm->rank == 0,
                    "cosmoflow", &a->feed.staged_s, &a->feed.staged_bytes))
        return -1;
    a->feed.staged_from = from;
    snprintf(a->staged_data, sizeof a->staged_data, "files:%s", a->stage);
    return 0;
}

static int train(const cf_args *a, comm_t *comm, int thread_level, sysinfo_t *si, int argc,
                 char **argv, const char *started)
{
    char err[768];
    cf_model m;
    if (cf_model_build(&m, &a->cfg, comm, err, sizeof err)) check_usage("%s", err);
    const cf_args *asked = a; /* the record's config: what was asked, before staging */
    cf_args made = *a;
    if (make_missing(a, comm, &made.feed.made_s)) check_usage("--make-missing: could not write the set");
    if (stage(&made, comm, a->cfg.data)) check_usage("--stage %s: the set could not be copied", a->stage);
    if (made.feed.staged_from) {
        if (strlen(made.staged_data) >= sizeof made.cfg.data)
            check_usage("--stage %s: path too long", a->stage);
        memcpy(made.cfg.data, made.staged_data, strlen(made.staged_data) + 1);
    }
    a = &made;
    if (a->read_only) {
        int rc = cf_read_only(a, &m, comm);
        cf_model_free(&m);
        return rc;
    }
    if (cf_feed_is(a->cfg.data) &&
        cf_feed_open(&m.feed, &m.plan, &m.part, a->cfg.data, &a->feed, a->cfg.run.seed,
                     a->cfg.run.batch, (int64_t)a->cfg.run.steps + a->cfg.run.warmup, err,
                     sizeof err))
        check_usage("--data %s: %s", a->cfg.data, err);
    /* the halo exchange (main thread) and the gradient engine (its thread)
     * make MPI calls at the same time */
    if (m.part.ranks_per_sample > 1 && thread_level < MPI_THREAD_MULTIPLE)
        check_usage("--spatial %s: spatial parallelism needs MPI_THREAD_MULTIPLE; this MPI "
                    "library gives thread level %d",
                    a->cfg.spatial, thread_level);
    backend_t be;
    if (backend_open(&be, &a->cfg.run, comm, si, err, sizeof err)) check_usage("%s", err);
    train_job job = {.net = &cosmoflow_network, .model = &m, .run = &a->cfg.run, .backend = &be,
                     .comm = comm, .quiet = a->t.quiet, .dump_weights = a->t.dump_weights,
                     .quality = a->quality.eval_every > 0 || a->quality.mllog ? &a->quality : NULL,
                     .ckpt = a->ckpt.every > 0 || a->ckpt.restore ? &a->ckpt : NULL};
    tprog_run run;
    tprog_run_init(&run, si, argc, argv, started, a->t.record);
    cf_rec_fill(&run, asked);
    if (comm->rank == 0 && !a->t.quiet)
        printf("cosmoflow: %d rank(s) = %d group(s) x %d spatial (%dx%dx%d), %d thread(s) per "
               "rank, kernels: %s\n",
               comm->size, m.part.groups, m.part.ranks_per_sample, m.part.split[0],
               m.part.split[1], m.part.split[2], be.threads, be.library);
    int rc = tprog_train(&job, &run);
    backend_close(&be);
    cf_model_free(&m);
    return rc;
}

int main(int argc, char **argv)
{
    check_set_program("cosmoflow");
    mllog_program_start(argc, argv); /* MLLOG's init_start: before MPI starts */
    /* the 3D U-Net has its own options and runtime (un_cli.h) */
    if (un_cli_wanted(argc, argv)) return un_cli_main(argc, argv);
    comm_t comm;
    /* answers that need no communication skip MPI's start-up */
    int level = 0;
    if (tprog_is_local(argc, argv, "--write-data") || tprog_is_local(argc, argv, "--make-data"))
        comm_init_self(&comm);
    else
        comm_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level, &comm);
    cf_args a;
    cf_args_parse(&a, argc, argv, comm.rank);
    char started[32];
    sysinfo_t si;
    tprog_start(&comm, &si, started, sizeof started);
    int rc;
    if (a.t.describe) rc = describe(&a);
    else if (a.write_data) rc = write_data(&a);
    else if (a.make_data) rc = cf_make_data(&a);
    else if (a.t.sysinfo) rc = tprog_print_sysinfo(&si, &a.cfg.run, &comm);
    else rc = train(&a, &comm, level, &si, argc, argv, started);
    if (comm.mpi) CHECK_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, comm.world));
    comm_finalize(&comm);
    return rc;
}
