/* workflow: a simulation-to-training workflow (wf.h, docs/workflow.md,
 * Merlin): producers simulate and emit samples, a trainer trains on them as
 * they appear, through MPI or through files, with back-pressure; every
 * sample accounted for (none lost, none twice, none damaged) and a failed
 * producer's loss counted. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/count.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/mpi/mpiopt.h"
#include "benchmarks/common/opt.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/workflow/wf_files.h"
#include "benchmarks/workflow/wf_mpi.h"
#include "benchmarks/workflow/wf_net.h"
#include "benchmarks/workflow/wf_rec.h"

const char *const wf_modes[] = {"mpi", "files", NULL};
const char *const wf_fail_hows[] = {"stop", "exit", "abort", "hang", NULL};
const char *const wf_kernel_sets[] = {"ref", "fast", NULL};

static void usage(void)
{
    printf("usage: mpirun -np R workflow [options]   (rank 0 trains, ranks 1..R-1 produce)\n"
           "  --mode M             mpi (samples sent to the trainer) | files (each producer a process\n"
           "                       of its own writing sample files into --dir) (default mpi)\n"
           "  --samples N          samples per producer (default 64)\n"
           "  --grid G             the simulation: 2D diffusion on G x G cells (default 16)\n"
           "  --sim-steps K        diffusion steps from a sample's input to its target (default 50)\n"
           "  --queue Q            samples waiting for the trainer, at most: Q / producers credits\n"
           "                       each (back-pressure; default 8)\n"
           "  --batch B            samples per training step (default 4, at most Q)\n"
           "  --hidden H           hidden width of the dense regression (default 64)\n"
           "  --lr X               Adam's learning rate (default 1e-3)\n"
           "  --kernels K          ref | fast: the training runtime's kernel set (default ref)\n"
           "  --seed N             data and initial weights (default 42)\n"
           "  --poll-us U          sleep between polls of a waiting side (default 200)\n"
           "  --dir DIR            files mode: an empty or new folder on a file system every rank\n"
           "                       sees (default a new one under $TMPDIR, removed at the end)\n"
           "  --fail-producer P    producer P fails after --fail-after K samples (default samples/2),\n"
           "  --fail-how H         as H: stop (tells the trainer and stops), exit (status 3),\n"
           "                       abort (SIGABRT in the middle of a write), hang (waits to be\n"
           "                       killed: tests kill it); mpi mode: stop only (default stop)\n"
           "  --corrupt-sample S   (tests) producer 0's sample S is damaged after its checksum\n"
           "  --duplicate-sample S (tests) producer 0 emits its sample S twice\n"
           "  --record FILE        write the result record\n"
           "  --describe           print the configuration's sizes and FLOPs, run nothing\n"
           "  --check-config       check the options, run nothing (exit 0, or 2 with the error)\n"
           "exit status: 0 every sample accounted for; 1 a sample lost, duplicated or damaged, or\n"
           "the run broke; 2 bad options\n");
}

/* --help, --describe, --check-config and the producer process start no MPI */
static int wants_no_mpi(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") || !strcmp(argv[i], "--describe") ||
            !strcmp(argv[i], "--as-producer"))
            return 1;
    return 0;
}

static void parse(wf_cfg *c, int argc, char **argv, int *describe)
{
    memset(c, 0, sizeof *c);
    *c = (wf_cfg){.samples = 64, .grid = 16, .sim_steps = 50, .queue = 8, .batch = 4, .hidden = 64,
                  .poll_us = 200, .lr = 1e-3, .seed = 42, .fail_producer = -1, .fail_after = -1,
                  .corrupt_seq = -1, .duplicate_seq = -1, .as_producer = -1};
    for (int i = 1; i < argc; i++) {
        char name[64];
        const char *in, *o = mpiopt_option(argv[i], usage, name, sizeof name, &in);
        if (!strcmp(o, "--describe")) {
            *describe = 1;
            continue;
        }
        const char *v = mpiopt_value(argc, argv, &i, in);
        if (!strcmp(o, "--mode")) c->mode = mpiopt_choice(o, v, wf_modes);
        else if (!strcmp(o, "--samples")) c->samples = (int)mpiopt_int(o, v, 1, 10000000);
        else if (!strcmp(o, "--grid")) c->grid = (int)mpiopt_int(o, v, 2, 512);
        else if (!strcmp(o, "--sim-steps")) c->sim_steps = (int)mpiopt_int(o, v, 0, 1000000);
        else if (!strcmp(o, "--queue")) c->queue = (int)mpiopt_int(o, v, 1, 1 << 20);
        else if (!strcmp(o, "--batch")) c->batch = (int)mpiopt_int(o, v, 1, 1 << 16);
        else if (!strcmp(o, "--hidden")) c->hidden = (int)mpiopt_int(o, v, 1, 1 << 16);
        else if (!strcmp(o, "--lr")) {
            double x;
            if (opt_parse_double(v, &x) || !(x > 0 && x <= 1))
                mpiopt_usage_error("--lr '%s': a number in (0, 1]", v);
            c->lr = x;
        } else if (!strcmp(o, "--kernels")) c->kernels = mpiopt_choice(o, v, wf_kernel_sets);
        else if (!strcmp(o, "--seed")) c->seed = (uint64_t)mpiopt_int(o, v, 0, INT64_MAX);
        else if (!strcmp(o, "--poll-us")) c->poll_us = (int)mpiopt_int(o, v, 1, 999999);
        else if (!strcmp(o, "--dir")) {
            if (!*v || strlen(v) >= sizeof c->dir - 32) mpiopt_usage_error("--dir: empty or too long");
            snprintf(c->dir, sizeof c->dir, "%s", v);
            c->dir_given = 1;
        } else if (!strcmp(o, "--fail-producer")) c->fail_producer = (int)mpiopt_int(o, v, 0, 1 << 20);
        else if (!strcmp(o, "--fail-after")) c->fail_after = (int)mpiopt_int(o, v, 0, 10000000);
        else if (!strcmp(o, "--fail-how")) c->fail_how = mpiopt_choice(o, v, wf_fail_hows);
        else if (!strcmp(o, "--corrupt-sample")) c->corrupt_seq = (int)mpiopt_int(o, v, 0, 10000000);
        else if (!strcmp(o, "--duplicate-sample")) c->duplicate_seq = (int)mpiopt_int(o, v, 0, 10000000);
        else if (!strcmp(o, "--record")) c->record = v;
        else if (!strcmp(o, "--as-producer")) c->as_producer = (int)mpiopt_int(o, v, 0, 1 << 20);
        else mpiopt_usage_error("unknown option '%s'", o);
    }
    if (c->batch > c->queue)
        mpiopt_usage_error("--batch %d: more than --queue %d (a step's samples wait in the queue)",
                           c->batch, c->queue);
    /* sizes the run allocates, refused here rather than as an allocation
     * failure: the weights (4 arrays of them) and the queue's payloads */
    int64_t params, qbytes;
    if (count_prod((const int64_t[]){2, c->grid, c->grid, c->hidden}, 4, &params) ||
        params > (int64_t)1 << 28)
        mpiopt_usage_error("--grid %d with --hidden %d: 2 x %d^2 x %d parameters, more than 2^28",
                           c->grid, c->hidden, c->grid, c->hidden);
    if (count_prod((const int64_t[]){c->queue, (int64_t)wf_sample_bytes(c)}, 2, &qbytes) ||
        qbytes > (int64_t)1 << 34)
        mpiopt_usage_error("--queue %d of %zu-byte samples: more than 16 GiB waiting", c->queue,
                           wf_sample_bytes(c));
    if (c->fail_after < 0) c->fail_after = c->samples / 2;
    if (c->fail_producer >= 0 && c->fail_after >= c->samples)
        mpiopt_usage_error("--fail-after %d: not below --samples %d (the failure would never come)",
                           c->fail_after, c->samples);
    if (c->mode == WF_MPI && c->fail_producer >= 0 && c->fail_how != WF_STOP)
        mpiopt_usage_error("--fail-how %s with --mode mpi: a producer there is an MPI rank, and a rank "
                           "that exits or dies ends the whole job under Open MPI 4.1; use stop, or "
                           "--mode files", wf_fail_hows[c->fail_how]);
    if (c->corrupt_seq >= c->samples || c->duplicate_seq >= c->samples)
        mpiopt_usage_error("--corrupt-sample/--duplicate-sample: not below --samples %d", c->samples);
    if (c->dir_given && c->mode != WF_FILES) mpiopt_usage_error("--dir: only with --mode files");
}

/* what needs the rank count */
static void check_ranks(const wf_cfg *c, int ranks)
{
    int P = ranks - 1;
    if (P < 1) mpiopt_usage_error("%d rank(s): the workflow needs 2 or more (rank 0 trains, the others "
                                  "produce)", ranks);
    if (c->queue < P)
        mpiopt_usage_error("--queue %d: fewer than the %d producers (each needs a credit)", c->queue, P);
    int64_t all;
    if (count_prod((const int64_t[]){P, c->samples}, 2, &all) || all > INT32_MAX)
        mpiopt_usage_error("--samples %d x %d producers: more than 2^31 samples to account for",
                           c->samples, P);
    if (c->fail_producer >= P)
        mpiopt_usage_error("--fail-producer %d: there are producers 0 to %d", c->fail_producer, P - 1);
}

static void describe(const wf_cfg *c)
{
    wf_net *n = wf_net_create(c);
    double t;
    wf_net_step(n, c->batch, &t); /* one step on zeros: its FLOPs counted */
    printf("workflow: mode %s; a sample: %zu bytes (%d x %d cells, input and target, %zu-byte "
           "header); simulation %d diffusion steps (%lld FLOPs) per sample\n"
           "workflow: trainer: dense %zu -> %d (ReLU) -> %zu, %lld parameters, %lld FLOPs per step "
           "of %d samples (counted), kernels %s; queue %d samples\n",
           wf_modes[c->mode], wf_sample_bytes(c), c->grid, c->grid, sizeof(wf_hdr), c->sim_steps,
           7LL * c->sim_steps * (long long)wf_cells(c), wf_cells(c), c->hidden, wf_cells(c),
           (long long)wf_net_params(n), (long long)wf_net_flops(n), c->batch,
           wf_kernel_sets[c->kernels], c->queue);
    wf_net_free(n);
}

int main(int argc, char **argv)
{
    check_set_program("workflow");
    int check_only = opt_take_check_config(&argc, argv), desc = 0;
    /* the producer processes get this command line (MPI may rewrite argv) */
    char **av = XCALLOC((size_t)argc + 1, sizeof *av, "command line");
    for (int i = 0; i < argc; i++) av[i] = argv[i];
    comm_t comm;
    if (check_only || wants_no_mpi(argc, argv)) comm_init_self(&comm);
    else comm_init(&argc, &argv, &comm);
    mpiopt_init("workflow", comm.rank);
    wf_cfg c;
    parse(&c, argc, argv, &desc);
    if (c.as_producer >= 0) {
        if (c.mode != WF_FILES || !c.dir_given) mpiopt_usage_error("--as-producer: files mode, with --dir");
        int rc = wf_files_producer(&c);
        free(av);
        comm_finalize(&comm);
        return rc;
    }
    if (check_only || desc) {
        if (desc) describe(&c);
        free(av);
        comm_finalize(&comm);
        return check_only ? opt_config_valid() : 0;
    }
    check_ranks(&c, comm.size);
    char started[32], err[PATH_MAX + 128] = "";
    timer_utc_iso(started, sizeof started);
    int P = comm.size - 1, made = 0, rc = 0;
    if (c.mode == WF_FILES && wf_files_prepare(&c, &comm, &made, err, sizeof err)) {
        if (comm.rank == 0) fprintf(stderr, "workflow: error: %s\n", err);
        free(av);
        comm_finalize(&comm);
        return 1;
    }
    CHECK_MPI(MPI_Barrier(comm.world));
    if (comm.rank == 0) {
        wf_tr T;
        double wall_s;
        wf_tr_init(&T, &c, P);
        if (c.mode == WF_MPI) wf_mpi_trainer(&c, &comm, &T, &wall_s);
        else wf_files_trainer(&c, P, &T, &wall_s);
        CHECK_MPI(MPI_Barrier(comm.world));
        int partial = c.mode == WF_FILES ? wf_files_cleanup(&c, P, made) : 0;
        wf_result r;
        wf_result_make(&c, &T, P, wall_s, partial, &r);
        wf_print(&c, &T, &r);
        rc = !r.ok;
        if (c.record && wf_write_record(&c, &comm, &T, &r, argc, argv, started)) rc = 1;
        wf_tr_free(&T);
    } else {
        if (c.mode == WF_MPI) wf_mpi_producer(&c, &comm);
        else wf_files_launch(&c, &comm, av);
        CHECK_MPI(MPI_Barrier(comm.world));
    }
    CHECK_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, comm.world));
    free(av);
    comm_finalize(&comm);
    return rc;
}
