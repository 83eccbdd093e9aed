#include "benchmarks/cosmoflow/un_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/opt.h"
#include "benchmarks/cosmoflow/model/un_plan.h"
#include "benchmarks/cosmoflow/model/un_train.h"
#include "benchmarks/cosmoflow/un_rec.h"
#include "benchmarks/cosmoflow/un_run.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/kernels/kern.h"

/* buffers are refused above this per rank unless --max-bytes says more
 * (the machines the tests share have 24 GiB; docs/cosmoflow.md "3D U-Net":
 * unet128's needs) */
#define UN_MAX_BYTES (8LL << 30)

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cosmoflow --network unet3d [OPTIONS]\n"
            "\n"
            "Trains LBANN's 3D U-Net (encoder, stride-2 transposed convolutions, skip\n"
            "concatenations, softmax cross-entropy per voxel) on synthetic volumes on one\n"
            "rank or --spatial N ranks splitting D, on a kernel set of the training runtime\n"
            "(or the host loops), and prints each step's loss (rank 0).\n"
            "\n"
            "  --help             this text\n"
            "  --network NAME     cosmoflow (the default program) or unet3d\n"
            "  --describe         print the layer table and exact totals; allocate nothing\n"
            "  --check-config     check the options, run nothing; exit 0, or 2 with the error\n"
            "  --preset NAME      %s (default unet-tiny), applied first\n"
            "  --size D           the sample is D^3 voxels, a multiple of 8\n"
            "  --channels N       input channels (default 1)\n"
            "  --classes N        per-voxel classes (default 3)\n"
            "  --filters N        the first convolution's filters; every width scales (LBANN: 32)\n"
            "  --batch N          samples per step (default 1)\n"
            "  --steps N          timed training steps (default 10)\n"
            "  --warmup N         untimed steps before them (default 0; not in the record's\n"
            "                     timing or kernel table)\n"
            "  --record FILE      write the result record (docs/record.md \"unet3d\")\n"
            "  --seed N           weights and data (default 1)\n"
            "  --lr X             SGD learning rate, momentum 0.9 (default 0.05)\n"
            "  --spatial N        ranks splitting each sample along D (N or Nx1x1, the job\n"
            "                     having exactly N ranks; auto: the job's ranks); D / 8\n"
            "                     divisible by N\n"
            "  --backend cpu      the only backend (cuda is refused: batch norm and the loss\n"
            "                     are host loops, docs/cosmoflow.md)\n"
            "  --kernels SET      fast (oneDNN, the default), reference (the runtime's loops)\n"
            "                     or host (un_host.c's loops, the first implementation)\n"
            "  --threads N        fast set: threads per rank (0: oneDNN's default; default 1)\n"
            "  --max-bytes N      refuse more than N bytes of buffers per rank (default\n"
            "                     8589934592, 8 GiB; --describe prints training_bytes)\n"
            "  --table            after the run, rank 0's kernel table (kernel, layer,\n"
            "                     calls, FLOPs, seconds) over every step\n"
            "  --quiet            only the final line\n"
            "\n"
            "Exit status: 0 done, 1 a run failed, 2 bad input.\n"
            "Examples:\n"
            "  cosmoflow --network unet3d --preset unet128 --describe\n"
            "  cosmoflow --network unet3d --preset unet-tiny --steps 10\n",
            un_preset_list());
}

/* Rank 0's kernel table: one row per (kernel, layer), then the totals. */
static void print_table(const ktab_t *t, int steps, int64_t halo_bytes)
{
    if (!t) {
        printf("# no kernel table: the host loops count FLOPs only\n");
        return;
    }
    printf("%-16s %-10s %8s %18s %12s\n", "kernel", "layer", "calls", "flops", "time_s");
    for (int i = 0; i < t->n; i++)
        printf("%-16s %-10s %8lld %18lld %12.6f\n", t->rows[i].kernel, t->rows[i].layer,
               (long long)t->rows[i].calls, (long long)t->rows[i].flops, t->rows[i].time_s);
    printf("total_flops %lld  total_time_s %.6f  steps %d  halo_bytes_last_step %lld\n",
           (long long)ktab_total_flops(t), ktab_total_time(t), steps, (long long)halo_bytes);
}

int un_cli_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (!strcmp(argv[i], "--network") && i + 1 < argc) v = argv[i + 1];
        else if (!strncmp(argv[i], "--network=", 10)) v = argv[i] + 10;
        if (v) return strcmp(v, "cosmoflow") != 0;
    }
    return 0;
}

int un_cli_main(int argc, char **argv)
{
    int check_only = opt_take_check_config(&argc, argv);
    int argc0 = argc, have_comm = 0;
    char **argv0 = argv;
    comm_t comm;
    un_cfg c;
    const char *preset = "unet-tiny";
    /* the preset first, whatever the order */
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--preset")) preset = argv[i + 1];
    if (un_preset(&c, preset)) check_usage("--preset '%s': unknown (choose %s)", preset, un_preset_list());
    int describe = 0, quiet = 0, table = 0, threads = 1, warmup = 0, auto_split = 0;
    const char *record = NULL;
    long long max_bytes = UN_MAX_BYTES;
    const char *kernels = "fast";
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(o, "--describe")) { describe = 1; continue; }
        if (!strcmp(o, "--quiet")) { quiet = 1; continue; }
        if (!strcmp(o, "--table")) { table = 1; continue; }
        if (i + 1 >= argc) check_usage("%s: unknown option, or its value is missing (see --help)", o);
        const char *v = argv[++i];
        if (!strcmp(o, "--network")) {
            if (strcmp(v, "unet3d")) check_usage("--network '%s': unknown (choose cosmoflow or unet3d)", v);
        } else if (!strcmp(o, "--preset")) {
        } else if (!strcmp(o, "--backend")) {
            /* one line, not a silent CPU run */
            if (strcmp(v, "cpu"))
                check_usage("--backend %s: the 3D U-Net runs on the cpu backend only (its batch "
                            "norm and loss are host loops; docs/cosmoflow.md \"3D U-Net\")",
                            v);
        } else if (!strcmp(o, "--kernels")) {
            if (strcmp(v, "fast") && strcmp(v, "reference") && strcmp(v, "host"))
                check_usage("--kernels %s: unknown (choose fast, reference or host)", v);
            kernels = v;
        } else if (!strcmp(o, "--threads")) threads = (int)opt_int(o, v, 0, 4096);
        else if (!strcmp(o, "--warmup")) warmup = (int)opt_int(o, v, 0, 1000000);
        else if (!strcmp(o, "--record")) record = v;
        else if (!strcmp(o, "--max-bytes")) max_bytes = opt_int(o, v, 1, 1LL << 50);
        else if (!strcmp(o, "--size")) c.size = (int)opt_int(o, v, 8, 1024);
        else if (!strcmp(o, "--channels")) c.channels = (int)opt_int(o, v, 1, 64);
        else if (!strcmp(o, "--classes")) c.classes = (int)opt_int(o, v, 2, 64);
        else if (!strcmp(o, "--filters")) c.filters = (int)opt_int(o, v, 1, 64);
        else if (!strcmp(o, "--batch")) c.batch = (int)opt_int(o, v, 1, 1024);
        else if (!strcmp(o, "--steps")) c.steps = (int)opt_int(o, v, 1, 1000000);
        else if (!strcmp(o, "--seed")) c.seed = (uint64_t)opt_int(o, v, 0, 1LL << 62);
        else if (!strcmp(o, "--lr")) c.lr = opt_double(o, v, 1e-12, 9.99);
        else if (!strcmp(o, "--spatial")) {
            long long s = 0;
            char *end = NULL;
            auto_split = !strcmp(v, "auto");
            if (auto_split) {
                s = 1; /* the job's size, once it runs */
            } else if (strchr(v, 'x')) {
                s = strtoll(v, &end, 10);
                if (strcmp(end, "x1x1")) s = 0;
            } else if (opt_parse_int(v, &s)) {
                s = 0;
            }
            if (s < 1 || s > 1024)
                check_usage("--spatial %s: the 3D U-Net splits D only: N or Nx1x1, N from 1 to "
                            "1024",
                            v);
            c.split = (int)s;
            snprintf(c.spatial, sizeof c.spatial, "%s", v);
        } else {
            check_usage("%s: unknown option of --network unet3d (see --help)", o);
        }
    }
    if (auto_split && !check_only && !describe) { /* every rank of the job splits D */
        comm_init(&argc, &argv, &comm);
        have_comm = 1;
        c.split = comm.size;
    }
    char err[256];
    if (un_validate(&c, err, sizeof err)) check_usage("%s", err);
    un_plan p;
    un_plan_build(&p, &c);
    const kern_ops *ops = !strcmp(kernels, "fast")        ? kern_fast_ops()
                          : !strcmp(kernels, "reference") ? kern_ref_ops()
                                                          : NULL;
    int64_t bytes = un_net_bytes(&p, c.split, ops);
    if (check_only) return opt_config_valid();
    if (describe) {
        un_describe(&p, stdout);
        printf("training_bytes                  %lld  (per rank, batch %d, split %d, kernels %s)\n",
               (long long)bytes, c.batch, c.split, kernels);
        return 0;
    }
    if (!have_comm) comm_init(&argc, &argv, &comm);
    char started[64];
    sysinfo_t si;
    timer_utc_iso(started, sizeof started);
    if (record) {
        sysinfo_collect(&si);
        sysinfo_set_hosts(&si, comm.hosts, comm.nhosts);
    }
    int rc = 0;
    if (comm.size != c.split) {
        if (comm.rank == 0)
            fprintf(stderr, "cosmoflow: error: --spatial %d: the 3D U-Net runs on exactly its "
                            "spatial ranks (%d given; data-parallel groups are not built)\n",
                    c.split, comm.size);
        rc = 2;
    } else if (bytes > max_bytes) {
        if (comm.rank == 0)
            fprintf(stderr, "cosmoflow: error: --network unet3d: %lld bytes of buffers per rank "
                            "at --size %d --filters %d --batch %d --spatial %d, over the limit "
                            "of %lld (split D over more ranks, or raise --max-bytes)\n",
                    (long long)bytes, c.size, c.filters, c.batch, c.split, max_bytes);
        rc = 2;
    } else {
        void *ctx = ops == kern_fast_ops() ? kern_fast_create(threads) : NULL;
        un_net *n = un_net_create(&p, comm.size > 1 ? comm.world : MPI_COMM_NULL, ops, ctx);
        if (!n) {
            fprintf(stderr, "cosmoflow: error: --network unet3d: cannot allocate %lld bytes\n",
                    (long long)bytes);
            rc = 1;
        } else {
            un_result r;
            rc = un_run(n, &comm, warmup, c.steps, quiet, &r);
            double loss = r.failed_step < 0 ? r.loss[c.steps - 1] : NAN;
            if (comm.rank == 0)
                printf("unet3d: %d steps (+%d warm-up), final loss %.9g, %lld FLOPs executed, "
                       "%.3f s CPU, %.3g GFLOP/s (CPU time)\n",
                       c.steps, warmup, loss, (long long)r.flops_total, r.cpu_s,
                       r.cpu_s > 0 ? r.flops_total / r.cpu_s / 1e9 : 0.0);
            if (record && comm.rank == 0) {
                un_rec_meta m = {.started_utc = started, .kernels = kernels, .argc = argc0,
                                 .threads = ops == kern_fast_ops() ? threads : 1,
                                 .ranks = comm.size, .argv = argv0, .system = &si,
                                 .fast_ctx = ctx, .bytes = bytes};
                char rerr[512];
                if (un_rec_write(record, &p, &r, un_net_ktab(n), &m, rerr, sizeof rerr)) {
                    fprintf(stderr, "cosmoflow: error: --record: %s\n", rerr);
                    rc = 1;
                } else if (!quiet) {
                    printf("  record      %s\n", record);
                }
            }
            un_result_free(&r);
            if (table && comm.rank == 0) print_table(un_net_ktab(n), c.steps, un_net_halo_bytes(n));
            un_net_free(n);
        }
        if (ctx) kern_fast_release(ctx);
    }
    comm_finalize(&comm);
    return rc;
}
