/* datadist: the data distribution benchmark (dd.h, docs/ensembles.md): a
 * generated dataset file delivered to every rank by five strategies, each
 * timed over repetitions (max over ranks), with the time to the first batch
 * per rank, and every byte received checked against the file's formula. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/mpi/mpiopt.h"
#include "benchmarks/common/opt.h"
#include "benchmarks/common/record/header.h"
#include "benchmarks/common/stats.h"
#include "benchmarks/common/sysinfo.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/datadist/dd.h"

typedef struct {
    double *time_s;      /* [rep] max over ranks */
    double *first_s;     /* [rank] median over reps */
    size_t held;
    int64_t wrong, first_bad;
    int bad_rank;
} dd_row;

static void usage(void)
{
    printf("usage: datadist [options]\n"
           "  --bytes SIZE         dataset file size (default 64M; a multiple of 8 x ranks)\n"
           "  --file PATH          the dataset (default $TMPDIR/exadl-datadist-BYTES.bin); made\n"
           "                       when missing, used as it is otherwise (never overwritten)\n"
           "  --chunk-bytes SIZE   a batch: reads and pipelined broadcasts (default 4M)\n"
           "  --readers R          reader ranks of the pipeline (default 1)\n"
           "  --strategies LIST    scatter,bcast,pipeline,shard,mpiio or all (default all)\n"
           "  --reps N             timed repetitions (default 3), --warmup N (default 1)\n"
           "  --seed N             the file's content (default 42)\n"
           "  --keep-cache         do not drop the file's pages before each repetition\n"
           "  --record FILE        write the result record\n"
           "  --check-config       check the options, run nothing (exit 0, or 2 with the error)\n");
}

/* check_only (--check-config): no ranks yet, so what depends on their count
 * (--readers up to the ranks, --bytes a multiple of 8 x ranks) is checked
 * as at one rank, --readers only for its range */
static void parse(dd_cfg *c, int argc, char **argv, const comm_t *comm, int check_only)
{
    memset(c, 0, sizeof *c);
    c->bytes = 64u << 20, c->chunk_bytes = 4u << 20, c->readers = 1, c->reps = 3, c->warmup = 1;
    c->seed = 42;
    int all = 1;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i], *eq = strchr(a, '=');
        if (eq) *eq = 0;
        const char *in = eq ? eq + 1 : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            if (comm->rank == 0) usage();
            comm_finalize((comm_t *)comm);
            exit(0);
        } else if (!strcmp(a, "--bytes")) c->bytes = mpiopt_size(a, mpiopt_value(argc, argv, &i, in));
        else if (!strcmp(a, "--chunk-bytes")) c->chunk_bytes = mpiopt_size(a, mpiopt_value(argc, argv, &i, in));
        else if (!strcmp(a, "--readers"))
            c->readers = (int)mpiopt_int(a, mpiopt_value(argc, argv, &i, in), 1,
                                         check_only ? 1 << 20 : comm->size);
        else if (!strcmp(a, "--reps")) c->reps = (int)mpiopt_int(a, mpiopt_value(argc, argv, &i, in), 1, 100000);
        else if (!strcmp(a, "--warmup")) c->warmup = (int)mpiopt_int(a, mpiopt_value(argc, argv, &i, in), 0, 100000);
        else if (!strcmp(a, "--seed")) c->seed = (uint64_t)mpiopt_int(a, mpiopt_value(argc, argv, &i, in), 0, INT64_MAX);
        else if (!strcmp(a, "--keep-cache")) c->keep_cache = 1;
        else if (!strcmp(a, "--record")) c->record = mpiopt_value(argc, argv, &i, in);
        else if (!strcmp(a, "--file")) {
            const char *v = mpiopt_value(argc, argv, &i, in);
            if (strlen(v) >= sizeof c->file - 16) mpiopt_usage_error("--file: path too long");
            snprintf(c->file, sizeof c->file, "%s", v);
        } else if (!strcmp(a, "--strategies")) {
            mpiopt_choice_list(a, mpiopt_value(argc, argv, &i, in), dd_names, c->picked);
            all = 0;
        } else mpiopt_usage_error("unknown option '%s'", a);
    }
    if (all)
        for (int s = 0; s < DD_NSTRATEGIES; s++) c->picked[s] = 1;
    size_t unit = 8 * (size_t)comm->size;
    if (c->bytes == 0 || c->bytes % unit)
        mpiopt_usage_error("--bytes %zu: must be a positive multiple of 8 x %d ranks (%zu)", c->bytes,
                           comm->size, unit);
    if (c->bytes / (size_t)comm->size > (size_t)INT32_MAX)
        mpiopt_usage_error("--bytes %zu: a rank's shard must stay under 2 GiB (MPI counts)", c->bytes);
    if (c->chunk_bytes == 0 || c->chunk_bytes > (size_t)1 << 30)
        mpiopt_usage_error("--chunk-bytes: 1 byte to 1 GiB");
    if (!c->file[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(c->file, sizeof c->file, "%s/exadl-datadist-%zu.bin", t && *t ? t : "/tmp", c->bytes);
    }
}

static void write_config(rec_t *w, const void *arg)
{
    const dd_cfg *c = arg;
    rec_key(w, "config");
    rec_map_begin(w);
    rec_kv_int(w, "bytes", (int64_t)c->bytes);
    rec_kv_int(w, "chunk_bytes", (int64_t)c->chunk_bytes);
    rec_kv_int(w, "readers", c->readers);
    rec_kv_int(w, "reps", c->reps);
    rec_kv_int(w, "warmup", c->warmup);
    rec_kv_int(w, "seed", (int64_t)c->seed);
    rec_kv_str(w, "file", c->file);
    rec_kv_bool(w, "keep_cache", c->keep_cache);
    rec_map_end(w);
}

static int write_record(const dd_cfg *c, const comm_t *comm, const sysinfo_t *si, int argc,
                        char **argv, const char *started, dd_row *rows, int invalid)
{
    char err[512], why[256] = "";
    for (int s = 0; s < DD_NSTRATEGIES; s++)
        if (c->picked[s] && rows[s].wrong && !why[0])
            snprintf(why, sizeof why, "%s: %" PRId64 " wrong 8-byte words, first at byte %" PRId64
                     " of the file on rank %d", dd_names[s], rows[s].wrong, rows[s].first_bad,
                     rows[s].bad_rank);
    rec_header_t h = {.benchmark = "datadist", .status = invalid ? "invalid" : "ok",
                      .error = invalid ? why : NULL, .started_utc = started, .argc = argc,
                      .argv = argv, .system = si, .config = write_config, .config_arg = c,
                      .ranks = comm->size, .backend = "mpi", .precision = "bytes"};
    rec_t *w = rec_header_open(c->record, &h, err, sizeof err);
    if (!w) return fprintf(stderr, "datadist: error: %s\n", err), -1;
    rec_kv_str(w, "combine", "time: max over ranks per repetition; first batch: per rank, median "
                             "over repetitions");
    rec_kv_str(w, "cache", c->keep_cache ? "kept" : "POSIX_FADV_DONTNEED before each repetition");
    rec_key(w, "strategies");
    rec_seq_begin(w);
    for (int s = 0; s < DD_NSTRATEGIES; s++) {
        if (!c->picked[s]) continue;
        stats_summary_t st;
        stats_summarize(rows[s].time_s, (size_t)c->reps, &st);
        rec_map_begin(w);
        rec_kv_str(w, "strategy", dd_names[s]);
        rec_kv_int(w, "held_bytes_per_rank", (int64_t)rows[s].held);
        rec_kv_int(w, "delivered_bytes", (int64_t)rows[s].held * comm->size);
        rec_kv_doubles(w, "time_s", rows[s].time_s, (size_t)c->reps);
        rec_kv_double(w, "median_s", st.median);
        rec_kv_double(w, "ci_lo_s", st.ci_lo);
        rec_kv_double(w, "ci_hi_s", st.ci_hi);
        rec_kv_double(w, "file_GBps", (double)c->bytes / st.median / 1e9);
        rec_kv_double(w, "delivered_GBps", (double)rows[s].held * comm->size / st.median / 1e9);
        rec_kv_doubles(w, "first_batch_s", rows[s].first_s, (size_t)comm->size);
        rec_kv_int(w, "wrong_words", rows[s].wrong);
        rec_map_end(w);
    }
    rec_seq_end(w);
    rec_key(w, "validation");
    rec_seq_begin(w);
    for (int s = 0; s < DD_NSTRATEGIES; s++) {
        if (!c->picked[s]) continue;
        char check[64], detail[256];
        snprintf(check, sizeof check, "checksum_%s", dd_names[s]);
        if (rows[s].wrong)
            snprintf(detail, sizeof detail, "%" PRId64 " wrong words, first at byte %" PRId64 " (rank %d)",
                     rows[s].wrong, rows[s].first_bad, rows[s].bad_rank);
        else
            snprintf(detail, sizeof detail, "every word each rank received matches the file's formula");
        rec_validation(w, check, rows[s].wrong ? "fail" : "pass", 1, detail);
    }
    rec_seq_end(w);
    if (rec_header_close(w, err, sizeof err)) return fprintf(stderr, "datadist: error: %s\n", err), -1;
    return 0;
}

/* Make the file when it is missing or of another size (rank 0). */
static void prepare(const dd_cfg *c, const comm_t *comm)
{
    char err[1400] = "";
    int rc = 0;
    if (comm->rank == 0) {
        struct stat sb;
        /* an existing file is never overwritten: it may be someone's data */
        if (stat(c->file, &sb) != 0) rc = dd_generate(c, err, sizeof err);
        else if (!S_ISREG(sb.st_mode)) /* a FIFO or device: never read, never waited on */
            rc = -1, snprintf(err, sizeof err, "%s: not a regular file (the dataset must be one)",
                              c->file);
        else if ((size_t)sb.st_size != c->bytes)
            rc = -1, snprintf(err, sizeof err, "%s: %lld bytes, --bytes says %zu (remove it or give "
                              "its size)", c->file, (long long)sb.st_size, c->bytes);
    }
    CHECK_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, comm->world));
    if (rc) {
        if (comm->rank == 0) fprintf(stderr, "datadist: error: %s\n", err);
        comm_finalize((comm_t *)comm);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    check_set_program("datadist");
    comm_t comm;
    int check_only = opt_take_check_config(&argc, argv); /* opt.h: no MPI */
    if (check_only) comm_init_self(&comm);
    else comm_init(&argc, &argv, &comm);
    mpiopt_init("datadist", comm.rank);
    char started[32];
    timer_utc_iso(started, sizeof started);
    dd_cfg c;
    parse(&c, argc, argv, &comm, check_only);
    if (check_only) {
        comm_finalize(&comm);
        return opt_config_valid();
    }
    prepare(&c, &comm);
    unsigned char *buf = XMALLOC(c.bytes, "dataset buffer");
    dd_row rows[DD_NSTRATEGIES];
    memset(rows, 0, sizeof rows);
    double *first = XMALLOC((size_t)c.reps * sizeof *first, "first-batch times");
    int invalid = 0;
    for (int s = 0; s < DD_NSTRATEGIES; s++) {
        if (!c.picked[s]) continue;
        dd_row *r = &rows[s];
        r->time_s = XMALLOC((size_t)c.reps * sizeof(double), "times");
        r->first_s = XMALLOC((size_t)comm.size * sizeof(double), "first batches");
        dd_outcome o;
        for (int k = 0; k < c.warmup + c.reps; k++) {
            memset(buf, 0, c.bytes); /* a strategy that delivers nothing fails the check */
            dd_run(&c, &comm, s, buf, &o);
            if (k < c.warmup) continue;
            r->time_s[k - c.warmup] = comm_max_double(&comm, o.end_s);
            first[k - c.warmup] = o.first_s;
        }
        double med = stats_median(first, (size_t)c.reps);
        CHECK_MPI(MPI_Gather(&med, 1, MPI_DOUBLE, r->first_s, 1, MPI_DOUBLE, 0, comm.world));
        r->held = o.held_bytes;
        /* the last repetition's bytes, every one of them, against the formula */
        int64_t bad_at, wrong = dd_check(&c, buf, &o, &bad_at);
        int64_t in[2] = {wrong, wrong ? comm.rank : INT64_MAX}, sum, who;
        CHECK_MPI(MPI_Allreduce(&in[0], &sum, 1, MPI_INT64_T, MPI_SUM, comm.world));
        CHECK_MPI(MPI_Allreduce(&in[1], &who, 1, MPI_INT64_T, MPI_MIN, comm.world));
        r->wrong = sum;
        if (sum) {
            r->bad_rank = (int)who;
            CHECK_MPI(MPI_Bcast(&bad_at, 1, MPI_INT64_T, (int)who, comm.world));
            r->first_bad = bad_at;
            invalid = 1;
        }
        if (comm.rank == 0) {
            stats_summary_t st;
            stats_summarize(r->time_s, (size_t)c.reps, &st);
            printf("datadist: %-8s %8.4f s  file %7.3f GB/s  delivered %7.3f GB/s  first batch (rank 0) "
                   "%.4f s  %s\n", dd_names[s], st.median, (double)c.bytes / st.median / 1e9,
                   (double)r->held * comm.size / st.median / 1e9, r->first_s[0],
                   sum ? "CHECKSUM FAILED" : "checksum ok");
            if (sum)
                fprintf(stderr, "datadist: error: %s: %" PRId64 " wrong 8-byte words, first at byte %" PRId64
                        " of %s (rank %d)\n", dd_names[s], sum, r->first_bad, c.file, r->bad_rank);
        }
    }
    int rc = invalid;
    if (comm.rank == 0 && c.record) {
        sysinfo_t si;
        sysinfo_collect(&si);
        sysinfo_set_hosts(&si, comm.hosts, comm.nhosts);
        if (write_record(&c, &comm, &si, argc, argv, started, rows, invalid)) rc = 1;
    }
    CHECK_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, comm.world));
    for (int s = 0; s < DD_NSTRATEGIES; s++) free(rows[s].time_s), free(rows[s].first_s);
    free(first);
    free(buf);
    comm_finalize(&comm);
    return rc;
}
