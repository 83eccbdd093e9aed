/* stemdl: one STEMDL benchmark launch (see --help and docs/stemdl.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/record/record.h"
#include "benchmarks/common/sysinfo.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/stemdl/args.h"
#include "benchmarks/stemdl/model/plan.h"
#include "benchmarks/stemdl/model/stemdl_network.h"
#include "benchmarks/stemdl/srec.h"
#include "benchmarks/train/backend.h"
#include "benchmarks/train/train.h"

static int describe(const args_t *a, const comm_t *comm)
{
    plan_t p;
    plan_build(&p, &a->cfg);
    int64_t executed = train_dry_flops(&stemdl_network, &p, a->cfg.run.batch, NULL);
    if (comm->rank == 0) stemdl_network.describe(&p, stdout, executed, a->cfg.run.batch);
    plan_free(&p);
    return 0;
}

static int print_sysinfo(sysinfo_t *si, const args_t *a, comm_t *comm)
{
    char err[512];
    backend_t be;
    if (backend_open(&be, &a->cfg.run, comm, si, err, sizeof err)) check_usage("%s", err);
    if (comm->rank == 0) {
        rec_t *w = rec_open("-", err, sizeof err);
        CHECK(w != NULL, "%s", err);
        rec_map_begin(w);
        sysinfo_write(si, w);
        rec_map_end(w);
        CHECK(rec_close(w, err, sizeof err) == 0, "%s", err);
    }
    backend_close(&be);
    return 0;
}

int main(int argc, char **argv)
{
    check_set_program("stemdl");
    comm_t comm;
    /* answers that need no communication skip MPI's start-up (half a second) */
    int local = 0;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") || !strcmp(argv[i], "--describe") ||
            !strcmp(argv[i], "--sysinfo"))
            local = 1;
    if (local)
        comm_init_self(&comm);
    else
        comm_init(&argc, &argv, &comm);
    args_t a;
    args_parse(&a, argc, argv, comm.rank);
    char started[32];
    timer_utc_iso(started, sizeof started);

    sysinfo_t si;
    sysinfo_collect(&si);
    sysinfo_set_hosts(&si, comm.hosts, comm.nhosts);
    int rc = 0;
    if (a.describe) {
        rc = describe(&a, &comm);
    } else if (a.sysinfo) {
        rc = print_sysinfo(&si, &a, &comm);
    } else {
        char err[512];
        plan_t p;
        plan_build(&p, &a.cfg);
        backend_t be;
        if (backend_open(&be, &a.cfg.run, &comm, &si, err, sizeof err)) check_usage("%s", err);
        train_result r;
        train_job job = {.net = &stemdl_network, .model = &p, .run = &a.cfg.run, .backend = &be,
                         .comm = &comm, .quiet = a.quiet, .dump_weights = a.dump_weights};
        srec_t s = {.args = &a, .job = &job, .sys = &si, .argc = argc, .argv = argv,
                    .started_utc = started};
        if (comm.rank == 0 && !a.quiet)
            printf("stemdl: %d rank(s), %d thread(s) per rank, kernels: %s\n", comm.size, be.threads,
                   be.library);
        if (train_run(&job, &r, err, sizeof err)) {
            /* say why in the record too, so that a sweep keeps the reason */
            s.error = err;
            if (comm.rank == 0) {
                fprintf(stderr, "stemdl: error: %s\n", err);
                char werr[512];
                if (a.record && srec_write(&s, a.record, werr, sizeof werr))
                    fprintf(stderr, "stemdl: error: %s\n", werr);
            }
            rc = 1;
        } else {
            s.result = &r;
            if (comm.rank == 0) {
                char werr[512];
                if (a.record && srec_write(&s, a.record, werr, sizeof werr)) {
                    fprintf(stderr, "stemdl: error: %s\n", werr);
                    rc = 1;
                }
                srec_print_summary(&s, a.record);
            }
            if (r.invalid) rc = 1;
        }
        train_result_free(&r);
        backend_close(&be);
        plan_free(&p);
    }
    if (comm.mpi) CHECK_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, comm.world));
    comm_finalize(&comm);
    return rc;
}
