/* collectives: MPI and NCCL collective microbenchmarks with nccl-tests' and
 * OSU's conventions, every result checked, and (--orchestration) the Horovod
 * orchestration benchmark.  docs/collectives.md is the user guide. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/collectives/bench.h"
#include "benchmarks/collectives/cli.h"
#include "benchmarks/collectives/coll.h"
#include "benchmarks/collectives/device.h"
#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/record/header.h"
#include "benchmarks/common/stats.h"
#include "benchmarks/common/sysinfo.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/orchestration/orch_bench.h"

#define MAX_SIZES 128

typedef struct {
    int backend;
    int ops[16];          /* picked, indexed like coll_ops */
    int dtypes[DT_COUNT], redops[RED_COUNT];
    int root;
    size_t min_bytes, max_bytes;
    int min_given;
    long long factor;
    int iters, warmup;    /* -1: adaptive */
    int inplace_mode;     /* 0 out-of-place, 1 in-place, 2 both */
    unsigned long long seed;
    const char *record;
    coll_check_opts_t chk;
} cfg_t;

static const char *const inplace_names[] = {"no", "yes", "both", NULL};

static void usage(void)
{
    printf(
        "usage: collectives [options]          collective microbenchmarks (nccl-tests/OSU style)\n"
        "       collectives --orchestration [options]   Horovod orchestration benchmark\n"
        "                                               (collectives --orchestration --help)\n"
        "  --backend mpi|mpi-cuda|nccl   host buffers over MPI; device buffers over CUDA-aware\n"
        "                                MPI; NCCL, one GPU per rank (mpi)\n"
        "  --op LIST|all        allreduce,reduce_scatter,allgather,broadcast,reduce,alltoall,\n"
        "                       pingpong (all)\n"
        "  --dtype LIST|all     float32,float64,float16,bfloat16,int32 (float32)\n"
        "  --redop LIST|all     sum,min,max (sum); for allreduce, reduce_scatter, reduce\n"
        "  --root R             root of broadcast and reduce (0)\n"
        "  -b, --minbytes MIN   smallest size (4; raised to one element per rank for the\n"
        "                       operations that split the size over the ranks)\n"
        "  -e, --maxbytes MAX   largest size (16M); sizes take K, M, G (binary)\n"
        "  -f, --stepfactor F   size multiplier between rows (2)\n"
        "  -n, --iters N        timed iterations (1000 up to 8 KiB, 100 above)\n"
        "  -w, --warmup N       untimed iterations first (100 up to 8 KiB, 10 above)\n"
        "  --inplace yes|no|both  in-place, out-of-place or both variants (both)\n"
        "  --seed N             data pattern seed (1)\n"
        "  --record FILE        write the result record (YAML, docs/record.md)\n"
        "  --help               this text\n"
        "Output: a table per operation on stdout; time is the median over iterations of\n"
        "the slowest rank's time (us), algbw = size/time, busbw = algbw x nccl-tests'\n"
        "factor, #wrong = wrong output elements over all ranks.  Exit status: 0 ok,\n"
        "1 wrong results or a failure, 2 bad arguments, 3 backend not available here.\n");
}

static void parse_plant(cfg_t *c, const char *v)
{
    long long r, i;
    char *copy = strdup(v), *colon = strchr(copy, ':');
    if (!colon) coll_usage_error("--plant-error: '%s' is not RANK:INDEX", v);
    *colon = 0;
    r = coll_arg_int("--plant-error", copy, 0, 1 << 30);
    i = coll_arg_int("--plant-error", colon + 1, 0, 1LL << 62);
    free(copy);
    c->chk.plant = 1;
    c->chk.plant_rank = (int)r;
    c->chk.plant_index = (size_t)i;
}

static void parse(int argc, char **argv, cfg_t *c)
{
    memset(c, 0, sizeof *c);
    c->backend = BK_MPI;
    for (int i = 0; coll_ops[i]; i++) c->ops[i] = 1;
    c->dtypes[DT_F32] = 1;
    c->redops[RED_SUM] = 1;
    c->min_bytes = 4;
    c->max_bytes = 16u << 20;
    c->factor = 2;
    c->iters = c->warmup = -1;
    c->inplace_mode = 2;
    c->seed = 1;
    c->chk.max_reports = 3;
    const char *env = getenv("EXADL_COLL_PLANT_ERROR"); /* test hook, as --plant-error */
    if (env && *env) parse_plant(c, env);
    for (int i = 1; i < argc; i++) {
        char *a = argv[i], *eq = NULL, name[64];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage();
            exit(0);
        }
        if (!strncmp(a, "--", 2) && (eq = strchr(a, '='))) {
            snprintf(name, sizeof name, "%.*s", (int)(eq - a), a);
            a = name;
            eq++;
        }
#define VAL() coll_arg_value(argc, argv, &i, eq)
        if (!strcmp(a, "--backend")) {
            c->backend = coll_arg_choice(a, VAL(), coll_backend_names);
        } else if (!strcmp(a, "--op")) {
            const char *names[16];
            int k = 0;
            for (; coll_ops[k]; k++) names[k] = coll_ops[k]->name;
            names[k] = NULL;
            coll_arg_choice_list(a, VAL(), names, c->ops);
        } else if (!strcmp(a, "--dtype")) {
            coll_arg_choice_list(a, VAL(), coll_dtype_names, c->dtypes);
        } else if (!strcmp(a, "--redop")) {
            coll_arg_choice_list(a, VAL(), coll_redop_names, c->redops);
        } else if (!strcmp(a, "--root")) {
            c->root = (int)coll_arg_int(a, VAL(), 0, 1 << 30);
        } else if (!strcmp(a, "-b") || !strcmp(a, "--minbytes")) {
            c->min_bytes = coll_arg_size(a, VAL());
            c->min_given = 1;
        } else if (!strcmp(a, "-e") || !strcmp(a, "--maxbytes")) {
            c->max_bytes = coll_arg_size(a, VAL());
        } else if (!strcmp(a, "-f") || !strcmp(a, "--stepfactor")) {
            c->factor = coll_arg_int(a, VAL(), 2, 1 << 20);
        } else if (!strcmp(a, "-n") || !strcmp(a, "--iters")) {
            c->iters = (int)coll_arg_int(a, VAL(), 1, 10000000);
        } else if (!strcmp(a, "-w") || !strcmp(a, "--warmup")) {
            c->warmup = (int)coll_arg_int(a, VAL(), 0, 10000000);
        } else if (!strcmp(a, "--inplace")) {
            c->inplace_mode = coll_arg_choice(a, VAL(), inplace_names);
        } else if (!strcmp(a, "--seed")) {
            c->seed = (unsigned long long)coll_arg_int(a, VAL(), 0, 1LL << 62);
        } else if (!strcmp(a, "--record")) {
            c->record = VAL();
        } else if (!strcmp(a, "--plant-error")) {
            parse_plant(c, VAL());
        } else {
            coll_usage_error("unknown option '%s'", argv[i]);
        }
#undef VAL
    }
    if (c->min_bytes == 0) coll_usage_error("-b: the smallest size must be at least 1 byte");
    if (c->min_bytes > c->max_bytes)
        coll_usage_error("-b %zu is larger than -e %zu (MIN > MAX)", c->min_bytes, c->max_bytes);
}

/* The sizes of one operation and type: MIN, MIN*F, ... <= MAX.  Without -b the
 * first size is raised so that every rank gets one element. */
static int sizes_for(const cfg_t *c, const coll_op_t *op, coll_dtype_t t, int nranks,
                     size_t *out)
{
    size_t es = coll_dtype_size(t), lo = c->min_bytes;
    if (!c->min_given) {
        if (lo < es) lo = es;
        if ((op->flags & OP_SPLITS) && lo < es * (size_t)nranks) lo = es * (size_t)nranks;
    }
    int n = 0;
    for (size_t s = lo; s <= c->max_bytes && n < MAX_SIZES; s *= (size_t)c->factor) {
        out[n++] = s;
        if (s > c->max_bytes / (size_t)c->factor) break;
    }
    return n;
}

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

static void write_row(rec_t *rec, const coll_row_t *r)
{
    rec_map_begin(rec);
    rec_kv_str(rec, "op", r->op->name);
    rec_kv_str(rec, "dtype", coll_dtype_names[r->dtype]);
    rec_kv_str(rec, "redop", r->redop >= 0 ? coll_redop_names[r->redop] : NULL);
    rec_key(rec, "root");
    if (r->root >= 0) rec_int(rec, r->root); else rec_null(rec);
    rec_kv_bool(rec, "inplace", r->inplace);
    rec_kv_int(rec, "bytes", (int64_t)r->shape.bytes);
    rec_kv_int(rec, "count", (int64_t)r->shape.count);
    rec_kv_int(rec, "iterations", r->iterations);
    rec_kv_int(rec, "warmup", r->warmup);
    size_t keep = r->iterations < COLL_MAX_KEPT_SAMPLES ? (size_t)r->iterations : COLL_MAX_KEPT_SAMPLES;
    rec_kv_doubles(rec, "time_s", r->time_s, keep);
    rec_kv_double(rec, "median_s", r->st.median);
    rec_kv_double(rec, "ci_lo_s", r->st.ci_lo);
    rec_kv_double(rec, "ci_hi_s", r->st.ci_hi);
    rec_kv_double(rec, "min_s", r->st.min);
    rec_kv_double(rec, "max_s", r->st.max);
    rec_kv_double(rec, "algbw_GBps", r->algbw_GBps);
    rec_kv_double(rec, "busbw_GBps", r->busbw_GBps);
    rec_kv_double(rec, "latency_us", r->latency_us);
    rec_kv_double(rec, "osu_avg_s", r->osu_avg_s);
    rec_kv_int(rec, "wrong", r->wrong);
    rec_map_end(rec);
}

static void write_config(rec_t *r, const void *arg)
{
    const cfg_t *cfg = arg;
    rec_key(r, "config");
    rec_map_begin(r);
    rec_kv_str(r, "backend", coll_backend_names[cfg->backend]);
    rec_key(r, "ops");
    rec_flow_seq_begin(r);
    for (int i = 0; coll_ops[i]; i++)
        if (cfg->ops[i]) rec_str(r, coll_ops[i]->name);
    rec_seq_end(r);
    rec_key(r, "dtypes");
    rec_flow_seq_begin(r);
    for (int i = 0; i < DT_COUNT; i++)
        if (cfg->dtypes[i]) rec_str(r, coll_dtype_names[i]);
    rec_seq_end(r);
    rec_key(r, "redops");
    rec_flow_seq_begin(r);
    for (int i = 0; i < RED_COUNT; i++)
        if (cfg->redops[i]) rec_str(r, coll_redop_names[i]);
    rec_seq_end(r);
    rec_kv_int(r, "root", cfg->root);
    rec_kv_int(r, "min_bytes", (int64_t)cfg->min_bytes);
    rec_kv_bool(r, "min_bytes_given", cfg->min_given);
    rec_kv_int(r, "max_bytes", (int64_t)cfg->max_bytes);
    rec_kv_int(r, "step_factor", cfg->factor);
    rec_key(r, "iters");
    if (cfg->iters >= 0) rec_int(r, cfg->iters); else rec_str(r, "adaptive: 1000 up to 8 KiB, 100 above");
    rec_key(r, "warmup");
    if (cfg->warmup >= 0) rec_int(r, cfg->warmup);
    else rec_str(r, "adaptive: 100 up to 8 KiB, 10 above, x10 for the first size of an operation");
    rec_kv_str(r, "inplace", inplace_names[cfg->inplace_mode]);
    rec_kv_int(r, "seed", (int64_t)cfg->seed);
    rec_map_end(r);
}

static void write_record(const cfg_t *cfg, const comm_t *c, const sysinfo_t *si, int argc,
                         char **argv, const char *started, const char *status, const char *error,
                         const coll_row_t *rows, int nrows, long long wrong, int gpus)
{
    char prec[128] = "";
    for (int i = 0, n = 0; i < DT_COUNT; i++)
        if (cfg->dtypes[i])
            n += snprintf(prec + n, sizeof prec - (size_t)n, "%s%s", n ? "," : "", coll_dtype_names[i]);
    rec_header_t h = {.benchmark = "collectives", .status = status, .error = error,
                      .started_utc = started, .argc = argc, .argv = argv, .system = si,
                      .config = write_config, .config_arg = cfg, .ranks = c->size, .gpus = gpus,
                      .backend = coll_backend_names[cfg->backend], .precision = prec};
    char err[512];
    rec_t *r = rec_header_open(cfg->record, &h, err, sizeof err);
    if (!r) {
        fprintf(stderr, "collectives: error: record %s\n", err);
        return;
    }
    rec_key(r, "timing");
    rec_map_begin(r);
    rec_kv_str(r, "combine", "max over ranks, per iteration");
    rec_kv_str(r, "sync", cfg->backend == BK_NCCL
                              ? "stream sync + MPI_Barrier before each iteration, stream sync after"
                              : "MPI_Barrier before each iteration");
    rec_kv_str(r, "clock", "CLOCK_MONOTONIC, samples rounded to 1 ns");
    rec_kv_int(r, "max_kept_samples", COLL_MAX_KEPT_SAMPLES);
    rec_map_end(r);
    rec_key(r, "results");
    rec_seq_begin(r);
    for (int i = 0; i < nrows; i++)
        if (!rows[i].na) write_row(r, &rows[i]);
    rec_seq_end(r);
    rec_key(r, "validation");
    rec_seq_begin(r);
    char detail[256];
    if (!strcmp(status, "failed")) {
        rec_validation(r, "collective_results_exact", "skipped", 1, error);
    } else {
        snprintf(detail, sizeof detail,
                 "%d rows; every output element of every rank checked exactly after one untimed "
                 "call per row; %lld wrong",
                 nrows, wrong);
        rec_validation(r, "collective_results_exact", wrong ? "fail" : "pass", 1, detail);
    }
    rec_seq_end(r);
    if (rec_header_close(r, err, sizeof err)) fprintf(stderr, "collectives: error: %s\n", err);
}

int main(int argc, char **argv)
{
    check_set_program("collectives");
    comm_t c;
    comm_init(&argc, &argv, &c);
    coll_cli_set_rank(c.rank);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--orchestration")) {
            int rc = coll_orch_main(argc, argv, &c);
            comm_finalize(&c);
            return rc;
        }
    cfg_t cfg;
    parse(argc, argv, &cfg);
    if (cfg.root >= c.size)
        coll_usage_error("--root %d is not a rank of this job (0 to %d)", cfg.root, c.size - 1);
    if (cfg.chk.plant && cfg.chk.plant_rank >= c.size)
        coll_usage_error("--plant-error: rank %d is not a rank of this job", cfg.chk.plant_rank);

    /* every shape first, so a bad size stops the run before any output */
    size_t es_max = 0, send_cap = 0, recv_cap = 0;
    int explicit_p2p = 0, nops = 0, p2p_dropped = 0;
    for (int i = 0; coll_ops[i]; i++) nops += cfg.ops[i];
    for (int i = 0; coll_ops[i]; i++) {
        if (!cfg.ops[i]) continue;
        const coll_op_t *op = coll_ops[i];
        if ((op->flags & OP_P2P) && c.size < 2) {
            if (nops == 1) explicit_p2p = 1;
            else cfg.ops[i] = 0, p2p_dropped = 1; /* --op all on one rank: nothing to ping */
            if (!explicit_p2p) continue;
        }
        for (int t = 0; t < DT_COUNT; t++) {
            if (!cfg.dtypes[t]) continue;
            size_t es = coll_dtype_size((coll_dtype_t)t), sizes[MAX_SIZES];
            int ns = sizes_for(&cfg, op, (coll_dtype_t)t, c.size, sizes);
            if (ns == 0)
                coll_usage_error("%s: no size between %zu B and %zu B fits %s over %d ranks",
                                 op->name, cfg.min_bytes, cfg.max_bytes, coll_dtype_names[t], c.size);
            for (int s = 0; s < ns; s++) {
                coll_shape_t sh;
                char err[256];
                if (op->shape(sizes[s], es, c.size, &sh, err, sizeof err)) coll_usage_error("%s", err);
                size_t big = sh.send_count > sh.recv_count ? sh.send_count : sh.recv_count;
                if (cfg.backend != BK_NCCL && big > 2147483647u)
                    coll_usage_error("%s: %zu elements exceed MPI's int counts", op->name, big);
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
                write_record(&cfg, &c, &si, argc, argv, started, "failed", err, NULL, 0, 0, 0);
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
        printf("# timing: %s before each iteration; per-iteration times, max over ranks;\n"
               "#   time = median (us); algbw = size/time (1e9 B/GB); busbw = algbw x factor;\n"
               "#   pingpong: time = half the round trip (one-way latency)\n",
               cfg.backend == BK_NCCL ? "stream sync + MPI_Barrier" : "MPI_Barrier");
        if (cfg.iters < 0 || cfg.warmup < 0)
            printf("# iterations: %s\n", "adaptive (1000 timed, 100 warm-up up to 8 KiB; 100 and 10 above)");
        printf("# validation: one untimed call per row, every output element of every rank checked\n");
        if (p2p_dropped) printf("# pingpong left out: it needs 2 ranks\n");
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
                size_t sizes[MAX_SIZES];
                int ns = sizes_for(&cfg, op, dt, c.size, sizes);
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
    if (c.rank == 0) {
        printf("# wrong elements: %lld%s\n", wrong_total, wrong_total ? "  [VALIDATION FAILED]" : "");
        if (cfg.record)
            write_record(&cfg, &c, &si, argc, argv, started, wrong_total ? "invalid" : "ok",
                         wrong_total ? "collective results differ from the expected values" : NULL,
                         rows, (int)nrows, wrong_total, gpus);
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
    return wrong_total ? 1 : 0;
}
