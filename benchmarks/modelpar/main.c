/* modelpar: one launch of the model-parallel benchmark (see --help and
 * docs/modelparallel.md). */
#include <stdio.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/sysinfo.h"
#include "benchmarks/modelpar/mp_args.h"
#include "benchmarks/modelpar/mp_network.h"
#include "benchmarks/train/backend.h"
#include "benchmarks/train/tprog.h"
#include "benchmarks/train/train.h"

static int describe(const mp_args *a)
{
    char err[512];
    mp_model m;
    int ranks = a->ranks ? a->ranks : a->cfg.model_ranks > 0 ? a->cfg.model_ranks : 1;
    if (mp_model_build(&m, &a->cfg, NULL, ranks, 0, err, sizeof err)) check_usage("%s", err);
    int64_t executed = train_dry_flops(&modelpar_network, &m, a->cfg.run.batch, NULL);
    mp_describe(&m, stdout, executed, a->cfg.run.batch);
    mp_model_free(&m);
    return 0;
}

static int train(const mp_args *a, comm_t *comm, int level, sysinfo_t *si, int argc, char **argv,
                 const char *started)
{
    char err[512];
    if (strcmp(a->cfg.run.backend, "cpu"))
        check_usage("backend %s: modelpar's halo exchange works on host buffers; use --backend "
                    "cpu (docs/modelparallel.md)",
                    a->cfg.run.backend);
    mp_model m;
    if (mp_model_build(&m, &a->cfg, comm, comm->size, comm->rank, err, sizeof err))
        check_usage("%s", err);
    /* the halo exchange (main thread) and the gradient engine (its thread)
     * make MPI calls at the same time */
    if (m.g.M > 1 && level < MPI_THREAD_MULTIPLE)
        check_usage("model-ranks %d: model parallelism needs MPI_THREAD_MULTIPLE; this MPI "
                    "library gives thread level %d",
                    m.g.M, level);
    backend_t be;
    if (backend_open(&be, &a->cfg.run, comm, si, err, sizeof err)) check_usage("%s", err);
    train_job job = {.net = &modelpar_network, .model = &m, .run = &a->cfg.run, .backend = &be,
                     .comm = comm, .quiet = a->t.quiet, .dump_weights = a->t.dump_weights};
    tprog_run run;
    tprog_run_init(&run, si, argc, argv, started, a->t.record);
    mp_rec_fill(&run, a);
    if (comm->rank == 0 && !a->t.quiet)
        printf("modelpar: %d rank(s) = %d model group(s) x %d model ranks (grid %dx%d), kernels: "
               "%s\n",
               comm->size, m.g.groups, m.g.M, m.g.gy, m.g.gx, be.library);
    int rc = tprog_train(&job, &run);
    backend_close(&be);
    mp_model_free(&m);
    return rc;
}

int main(int argc, char **argv)
{
    check_set_program("modelpar");
    comm_t comm;
    int level = 0;
    if (tprog_is_local(argc, argv, NULL)) comm_init_self(&comm);
    else comm_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level, &comm);
    mp_args a;
    mp_args_parse(&a, argc, argv, comm.rank);
    char started[32];
    sysinfo_t si;
    tprog_start(&comm, &si, started, sizeof started);
    int rc;
    if (a.t.describe) rc = describe(&a);
    else if (a.t.sysinfo) rc = tprog_print_sysinfo(&si, &a.cfg.run, &comm);
    else rc = train(&a, &comm, level, &si, argc, argv, started);
    if (comm.mpi) CHECK_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, comm.world));
    comm_finalize(&comm);
    return rc;
}
