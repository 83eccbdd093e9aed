/* collectives: MPI and NCCL collective microbenchmarks with nccl-tests' and
 * OSU's conventions, every result checked.  The operations are listed once,
 * in ops/ops.def.  docs/collectives.md is the user guide. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/collectives/bench.h"
#include "benchmarks/collectives/coll.h"
#include "benchmarks/collectives/coll_cfg.h"
#include "benchmarks/collectives/coll_rec.h"
#include "benchmarks/collectives/device.h"
#include "benchmarks/collectives/timing.h"
#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/mpi/mpiopt.h"
#include "benchmarks/common/opt.h"
#include "benchmarks/common/stats.h"
#include "benchmarks/common/sysinfo.h"
#include "benchmarks/common/timer.h"

static void print_header_block(const coll_op_t *op, int nranks)
{
    printf("\n\n# op %s (busbw factor %.6g)\n", op->name, op->busbw_factor(nranks));
    printf("# %10s %12s %9s %6s %5s  %10s %9s %9s %7s  %10s %9s %9s %7s\n", "size", "count",
           "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw",
           "#wrong");
    printf("# %10s %12s %9s %6s %5s  %10s %9s %9s %7s  %10s %9s %9s %7s\n", "(B)", "(elements)",
           "", "", "", "(us)", "(GB/s)", "(GB/s)", "out", "(us)", "(GB/s)", "(GB/s)", "in");
}

static void print_half(const coll_row_t *r)
{
    if (!r || r->na) {
        printf("  %10s %9s %9s %7s", "nan", "nan", "nan", "nan");
        return;
    }
    printf("  %10.2f %9.4f %9.4f %7lld", r->latency_us, r->algbw_GBps, r->busbw_GBps, r->wrong);
}

int main(int argc, char **argv)
{
    check_set_program("collectives");
    comm_t c;
    /* --check-config (opt.h): the options alone, no MPI; what depends on the
     * ranks (--root, the sizes each operation splits) is checked at launch */
    int check_only = opt_take_check_config(&argc, argv);
    if (check_only) comm_init_self(&c);
    else comm_init(&argc, &argv, &c);
    mpiopt_init("collectives", c.rank);
    coll_cfg_t cfg;
    coll_cfg_parse(argc, argv, &cfg);
    if (check_only) {
        comm_finalize(&c);
        return opt_config_valid();
    }
    const char *delay = getenv("EXADL_COLL_PLANT_DELAY_US"); /* test hook: timing.h */
    if (delay && *delay)
        coll_planted_delay_s = (double)mpiopt_int("EXADL_COLL_PLANT_DELAY_US", delay, 0, 10000000) * 1e-6;
    if (cfg.root >= c.size)
        mpiopt_usage_error("--root %d is not a rank of this job (0 to %d)", cfg.root, c.size - 1);
    if (cfg.chk.plant && cfg.chk.plant_rank >= c.size)
        mpiopt_usage_error("--plant-error: rank %d is not a rank of this job", cfg.chk.plant_rank);

    /* every shape first, so a bad size stops the run before any output */
    size_t es_max = 0, send_cap = 0, recv_cap = 0;
    int explicit_p2p = 0, nops = 0, p2p_dropped = 0, host_dropped = 0;
    for (int i = 0; coll_ops[i]; i++) nops += cfg.ops[i];
    for (int i = 0; coll_ops[i]; i++) {
        if (!cfg.ops[i]) continue;
        const coll_op_t *op = coll_ops[i];
        if ((op->flags & OP_HOST) && cfg.backend != BK_MPI) {
            if (nops == 1)
                mpiopt_usage_error("%s packs on the CPU: it runs with --backend mpi", op->name);
            cfg.ops[i] = 0, host_dropped = 1; /* --op all on a GPU backend */
            continue;
        }
        if ((op->flags & OP_P2P) && c.size < 2) {
            if (nops == 1) explicit_p2p = 1;
            else cfg.ops[i] = 0, p2p_dropped = 1; /* --op all on one rank: nothing to ping */
            if (!explicit_p2p) continue;
        }
        for (int t = 0; t < DT_COUNT; t++) {
            if (!cfg.dtypes[t]) continue;
            size_t es = coll_dtype_size((coll_dtype_t)t), sizes[COLL_MAX_SIZES];
            int ns = coll_cfg_sizes(&cfg, op, (coll_dtype_t)t, c.size, sizes);
            if (ns == 0)
                mpiopt_usage_error("%s: no size between %zu B and %zu B fits %s over %d ranks",
                                 op->name, cfg.min_bytes, cfg.max_bytes, coll_dtype_names[t], c.size);
            for (int s = 0; s < ns; s++) {
                coll_shape_t sh;
                char err[256];
                if (op->shape(sizes[s], es, c.size, &sh, err, sizeof err)) mpiopt_usage_error("%s", err);
                size_t big = sh.send_count > sh.recv_count ? sh.send_count : sh.recv_count;
                if (cfg.backend != BK_NCCL && big > 2147483647u)
                    mpiopt_usage_error("%s: %zu elements exceed MPI's int counts", op->name, big);
                if (sh.send_count * es > send_cap) send_cap = sh.send_count * es;
                if (big * es > recv_cap) recv_cap = big * es;
            }
            if (es > es_max) es_max = es;
        }
    }

    char started[32];
    timer_utc_iso(started, sizeof started);
    sysinfo_t si;
    sysinfo_collect(&si);
    sysinfo_set_hosts(&si, c.hosts, c.nhosts);
    char mpiv[256];
    comm_library_version(mpiv, sizeof mpiv);
    sysinfo_set_version(&si, "mpi", mpiv);

    coll_dev_t dev;
    char err[1024];
    int rc = coll_dev_open(&dev, (coll_backend_t)cfg.backend, &c, &si, err, sizeof err);
    if (rc) {
        if (c.rank == 0) {
            fprintf(stderr, "collectives: error: %s%s\n", err,
                    rc == COLL_EXIT_UNAVAILABLE ? " [backend not available here]" : "");
            if (cfg.record)
                (void)coll_rec_write(&cfg, &c, &si, argc, argv, started, "failed", err, NULL, 0, 0,
                                     0); /* the exit status already says it failed */
        }
        comm_finalize(&c);
        return rc;
    }
    int gpus = dev.on_device ? c.size : 0;

    coll_bufs_t b = {.dev = &dev, .comm = &c, .send_cap = send_cap, .recv_cap = recv_cap};
    b.send_d = coll_dev_alloc(&dev, send_cap);
    b.recv_d = coll_dev_alloc(&dev, recv_cap);
    if (dev.on_device) {
        coll_dev_t host = {.kind = BK_MPI};
        b.send_h = coll_dev_alloc(&host, send_cap);
        b.recv_h = coll_dev_alloc(&host, recv_cap);
    } else {
        b.send_h = b.send_d;
        b.recv_h = b.recv_d;
    }

    if (c.rank == 0) {
        printf("# ExaDL collectives: backend %s, %d rank%s on %d host%s", coll_backend_names[cfg.backend],
               c.size, c.size == 1 ? "" : "s", c.nhosts, c.nhosts == 1 ? "" : "s");
        for (int i = 0; i < c.nhosts && i < 8; i++) printf("%s%s", i ? "," : " (", c.hosts[i]);
        printf("%s\n", c.nhosts > 8 ? ",...)" : ")");
        printf("# mpi: %s\n", mpiv);
        for (int i = 0; i < si.nversions; i++)
            if (strcmp(si.versions[i].key, "mpi") && si.versions[i].value[0])
                printf("# %s: %s\n", si.versions[i].key, si.versions[i].value);
        printf("# devices: %s\n", dev.desc);
        if (cfg.per_call)
            printf("# timing: per call: %s before each call; per-call times, max over ranks;\n",
                   cfg.backend == BK_NCCL ? "stream sync + MPI_Barrier" : "MPI_Barrier");
        else if (cfg.batch_calls > 0)
            printf("# timing: batched: a sample = time of B = %d back-to-back calls / B (--batch;\n"
                   "#   %s between batches only), max over ranks per batch;\n",
                   cfg.batch_calls, cfg.backend == BK_NCCL ? "stream sync + MPI_Barrier" : "MPI_Barrier");
        else
            printf("# timing: batched: a sample = time of B back-to-back calls / B (a batch lasts\n"
                   "#   >= %g us; %s between batches only), max over ranks per batch;\n",
                   cfg.batch_target_s * 1e6, cfg.backend == BK_NCCL ? "stream sync + MPI_Barrier" : "MPI_Barrier");
        printf("#   time = median over samples (us per call); algbw = size/time (1e9 B/GB);\n"
               "#   busbw = algbw x factor; pingpong: time = half the round trip (one-way latency)\n");
        if (cfg.iters < 0 || cfg.warmup < 0)
            printf("# iterations: %s\n", cfg.per_call ? "adaptive (1000 timed, 100 warm-up up to 8 KiB; 100 and 10 above)"
                                                    : "adaptive (1000 timed, 100 warm-up up to 8 KiB; 100 and 10 above;\n"
                                                      "#   at least 10 batches)");
        printf("# validation: one untimed call per row, every output element of every rank checked\n");
        if (p2p_dropped) printf("# pingpong left out: it needs 2 ranks\n");
        if (host_dropped) printf("# vote_1bit, sum_pbit left out: host buffers only (--backend mpi)\n");
        fflush(stdout);
    }

    size_t cap_rows = 64, nrows = 0;
    coll_row_t *rows = XCALLOC(cap_rows, sizeof *rows, "rows");
    long long wrong_total = 0;
    for (int i = 0; coll_ops[i]; i++) {
        if (!cfg.ops[i]) continue;
        const coll_op_t *op = coll_ops[i];
        if (c.rank == 0) print_header_block(op, c.size);
        for (int t = 0; t < DT_COUNT; t++) {
            if (!cfg.dtypes[t]) continue;
            for (int ro = 0; ro < RED_COUNT; ro++) {
                if (!cfg.redops[ro]) continue;
                /* operations without a reduction run once per type */
                if (!(op->flags & OP_REDUCES)) {
                    int first = 0;
                    while (!cfg.redops[first]) first++;
                    if (ro != first) continue;
                }
                coll_dtype_t dt = (coll_dtype_t)t;
                size_t sizes[COLL_MAX_SIZES];
                int ns = coll_cfg_sizes(&cfg, op, dt, c.size, sizes);
                for (int s = 0; s < ns; s++) {
                    coll_pattern_t pat;
                    int sum = (op->flags & OP_REDUCES) && ro == RED_SUM;
                    coll_pattern_init(&pat, dt, (coll_redop_t)ro, c.size, sum,
                                      cfg.seed * 1000003ULL + (unsigned long long)s);
                    coll_ctx_t ctx = {.backend = (coll_backend_t)cfg.backend, .dtype = dt,
                                      .redop = (coll_redop_t)ro, .rank = c.rank, .nranks = c.size,
                                      .root = cfg.root, .pat = &pat, .comm = c.world,
                                      .mpi_type = coll_mpi_type(dt),
                                      .mpi_op = (op->flags & OP_REDUCES) ? coll_mpi_op(dt, (coll_redop_t)ro) : MPI_OP_NULL,
                                      .nccl_comm = dev.nccl_comm, .stream = dev.stream,
                                      .nccl_type = coll_nccl_type(dt), .nccl_op = coll_nccl_op((coll_redop_t)ro)};
                    coll_row_t *pair[2] = {NULL, NULL};
                    for (int ip = 0; ip < 2; ip++) {
                        if (cfg.inplace_mode != 2 && cfg.inplace_mode != ip) continue;
                        if (nrows == cap_rows) {
                            cap_rows *= 2;
                            rows = realloc(rows, cap_rows * sizeof *rows);
                            CHECK(rows != NULL, "out of memory for rows");
                        }
                        coll_row_t *r = &rows[nrows++];
                        memset(r, 0, sizeof *r);
                        r->op = op;
                        r->dtype = dt;
                        r->redop = (op->flags & OP_REDUCES) ? ro : -1;
                        r->root = (op->flags & OP_ROOTED) ? cfg.root : -1;
                        r->inplace = ip;
                        char e2[256];
                        op->shape(sizes[s], coll_dtype_size(dt), c.size, &r->shape, e2, sizeof e2);
                        r->iterations = cfg.iters >= 0 ? cfg.iters : coll_default_iters(r->shape.bytes);
                        r->warmup = cfg.warmup >= 0 ? cfg.warmup : coll_default_warmup(r->shape.bytes);
                        /* the first size of an operation also warms up the library and
                         * the process (first touches, connection and algorithm set-up):
                         * with only the adaptive 100 iterations it came out about twice
                         * as slow as the next size */
                        if (cfg.warmup < 0 && s == 0) r->warmup *= 10;
                        r->per_call = cfg.per_call;
                        r->batch_target_s = cfg.batch_target_s;
                        r->iters_given = cfg.iters >= 0;
                        r->batch_given = cfg.batch_calls;
                        pair[ip] = r;
                        if (ip && !op->inplace_ok((coll_backend_t)cfg.backend)) {
                            r->na = 1;
                            continue;
                        }
                        coll_measure(&b, &ctx, r, &cfg.chk);
                        wrong_total += r->wrong;
                    }
                    coll_pattern_free(&pat);
                    if (c.rank == 0) {
                        const coll_row_t *any = pair[0] ? pair[0] : pair[1];
                        printf("%12zu %12zu %9s %6s %5d", any->shape.bytes, any->shape.count,
                               coll_dtype_names[dt],
                               (op->flags & OP_REDUCES) ? coll_redop_names[ro] : "none", any->root);
                        print_half(pair[0]);
                        print_half(pair[1]);
                        printf("\n");
                        fflush(stdout);
                    }
                }
            }
        }
    }
    int unwritten = 0;
    if (c.rank == 0) {
        printf("# wrong elements: %lld%s\n", wrong_total, wrong_total ? "  [VALIDATION FAILED]" : "");
        if (cfg.record)
            unwritten = coll_rec_write(&cfg, &c, &si, argc, argv, started,
                                       wrong_total ? "invalid" : "ok",
                                       wrong_total ? "collective results differ from the expected values"
                                                   : NULL,
                                       rows, (int)nrows, wrong_total, gpus) != 0;
    }
    if (wrong_total && c.rank == 0)
        fprintf(stderr, "collectives: error: %lld wrong output element%s (see the #wrong columns)\n",
                wrong_total, wrong_total == 1 ? "" : "s");
    for (size_t i = 0; i < nrows; i++) free(rows[i].time_s);
    free(rows);
    if (dev.on_device) {
        coll_dev_t host = {.kind = BK_MPI};
        coll_dev_free(&host, b.send_h);
        coll_dev_free(&host, b.recv_h);
    }
    coll_dev_free(&dev, b.send_d);
    coll_dev_free(&dev, b.recv_d);
    coll_dev_close(&dev);
    coll_mpi_ops_free();
    comm_finalize(&c);
    return wrong_total || unwritten ? 1 : 0;
}
