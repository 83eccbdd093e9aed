/* Records round trip: a record of each kind (stemdl, collectives,
 * orchestration) written with the record module (rec_* and the common header
 * of record/header.h) and read with the harness readers (record_load): every
 * field the harness reads compares equal, .nan, .inf and -.inf included where
 * a field may hold them.  Also: the dispatch by `benchmark`, and bad values
 * named FILE:LINE:COL. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/record/header.h"
#include "benchmarks/common/record/record.h"
#include "benchmarks/common/sysinfo.h"
#include "harness/blocks/block.h"
#include "harness/blocks/collectives/blk_collectives.h"
#include "harness/blocks/gradient_reduction/blk_gradient_reduction.h"
#include "harness/blocks/network/blk_network.h"
#include "harness/blocks/orchestration/blk_orchestration.h"
#include "harness/blocks/recread.h"
#include "harness/blocks/training/blk_training.h"
#include "harness/blocks/update_exchange/blk_update_exchange.h"
#include "tests/unit/tap.h"

static char dir[256], err[1024];
static sysinfo_t si;
static char *argv_[] = {"bench", "--steps", "3"};

#define N(a) (sizeof(a) / sizeof *(a))
#define T_HAS(s, sub) T_ASSERT(strstr((s), (sub)) != NULL, "message '%s' lacks '%s'", (s), (sub))

static int same(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }
#define T_SAME(got, want) T_ASSERT(same((got), (want)), "%s: read %.17g, wrote %.17g", #got, \
                                   (double)(got), (double)(want))
#define T_STR(got, want) T_ASSERT((got) && !strcmp((got), (want)), "%s: read '%s', wrote '%s'", \
                                  #got, (got) ? (got) : "(null)", (want))

static void same_list(const char *what, const double *got, size_t ngot, const double *want,
                      size_t nwant)
{
    T_ASSERT(ngot == nwant, "%s: %zu values read, %zu written", what, ngot, nwant);
    for (size_t i = 0; i < nwant; i++)
        T_ASSERT(same(got[i], want[i]), "%s[%zu]: read %.17g, wrote %.17g", what, i, got[i], want[i]);
}

static const char *path_of(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static void config_batch(rec_t *r, const void *arg)
{
    (void)arg;
    rec_key(r, "config");
    rec_map_begin(r);
    rec_kv_int(r, "batch", 2);
    rec_kv_str(r, "preset", "tiny");
    rec_map_end(r);
}

/* A record of kind benchmark with the common header; the caller writes the
 * kind's keys and closes it with finish(). */
static rec_t *start(const char *name, const char *benchmark, const char *status, const char *error,
                    int ranks, const char *backend, const char *precision)
{
    rec_header_t h = {.benchmark = benchmark, .status = status, .error = error,
                      .started_utc = "2025-01-02T03:04:05Z", .argc = 3, .argv = argv_,
                      .system = &si, .config = config_batch, .ranks = ranks, .gpus = 0,
                      .backend = backend, .precision = precision};
    rec_t *r = rec_header_open(path_of(name), &h, err, sizeof err);
    T_ASSERT(r, "rec_header_open: %s", err);
    return r;
}

static void finish(rec_t *r)
{
    rec_key(r, "validation");
    rec_seq_begin(r);
    rec_validation(r, "some_check", "pass", 1, "all good");
    rec_seq_end(r);
    T_ASSERT(rec_header_close(r, err, sizeof err) == 0, "rec_header_close: %s", err);
}

static void load(arena_t *a, const char *name, record_t *r)
{
    T_ASSERT(record_load(a, path_of(name), r, err, sizeof err) == 0, "record_load: %s", err);
}

/* the header, as start() and finish() wrote it */
static void check_header(const record_t *r, const char *benchmark, const char *status,
                         const char *error, long long ranks, const char *backend,
                         const char *precision)
{
    T_ASSERT(r->version == RECORD_FORMAT_VERSION, "version %lld", r->version);
    T_STR(r->benchmark, benchmark);
    T_STR(r->status, status);
    if (error) T_STR(r->error, error);
    else T_ASSERT(r->error == NULL, "error: null read as '%s'", r->error);
    T_STR(r->started_utc, "2025-01-02T03:04:05Z");
    T_STR(r->backend, backend);
    T_STR(r->precision, precision);
    T_ASSERT(r->ranks == ranks && r->gpus == 0, "ranks %lld gpus %lld", r->ranks, r->gpus);
    const ytnode *hosts = yt_get(r->system, "hosts");
    T_ASSERT(hosts && hosts->n == 2 && !strcmp(hosts->items[1]->str, "node02"), "system.hosts");
    T_STR(record_config(r, "batch"), "2");
    T_STR(record_config(r, "preset"), "tiny");
    T_ASSERT(record_config(r, "absent") == NULL, "config: absent key");
    T_ASSERT(r->validation && r->validation->n == 1 &&
                 !strcmp(yt_get(r->validation->items[0], "check")->str, "some_check"),
             "validation");
}

/* ---- stemdl ---------------------------------------------------------------- */

static const double step_s[] = {0.91, 0.9, 0.95}, warmup_s[] = {1.5};
static const double exposed[] = {0.01, 0.02, 0.015}, negot[] = {1e-4, 2e-4, 3e-4},
                    reduce[] = {0.2, 0.21, 0.22}, bwd_end[] = {0.5, 0.51, 0.52}, cycles[] = {4, 5, 6};
static const struct {
    const char *kernel, *layer;
    double calls, flops, time_s;
} kernels[] = {{"conv_fwd", "down0.l0", 8, 123, 0.1}, {"relu", NULL, NAN, INFINITY, -INFINITY}};
static const struct {
    const char *name;
    double bytes;
    long long group;
} tensors[] = {{"conv_fin.b", 4, 0}, {"conv_fin.w", 96, 0}, {"down0.w", 800, 1}};
static const char *const labels[] = {"conv_fin", "down0"};
/* timeline entry j of group k in step s */
static double tl(int s, int k, int j) { return 0.1 * (j + 1) * s + k; }

static void write_stemdl(const char *name)
{
    rec_t *r = start(name, "stemdl", "invalid", "loss_finite: step 2", 2, "cpu", "fp32");
    rec_kv_str(r, "kernels_impl", "fast");
    rec_kv_int(r, "threads_per_rank", 2);
    rec_kv_double(r, "device_peak_flops", NAN); /* not measured */
    rec_key(r, "network");
    rec_flow_map_begin(r);
    rec_kv_int(r, "layers", 31);
    rec_kv_int(r, "conv_weights", 13570368);
    rec_kv_int(r, "parameters", 13570433);
    rec_map_end(r);
    rec_key(r, "timing");
    rec_map_begin(r);
    rec_kv_str(r, "combine", "max over ranks");
    rec_kv_doubles(r, "warmup_s", warmup_s, N(warmup_s));
    rec_kv_doubles(r, "step_s", step_s, N(step_s));
    rec_kv_double(r, "samples_per_step", 4);
    rec_map_end(r);
    rec_key(r, "flops");
    rec_map_begin(r);
    rec_kv_int(r, "executed_per_step", 90549780480);
    rec_kv_double(r, "executed_per_sample", INFINITY);
    rec_kv_int(r, "convention_per_sample", 45274890240);
    rec_kv_double(r, "convention_per_step", -INFINITY);
    rec_kv_int(r, "forward_conv_per_sample", 15091630080);
    rec_map_end(r);
    rec_key(r, "gradient_reduction");
    rec_map_begin(r);
    rec_kv_str(r, "transport", "mpi");
    rec_kv_str(r, "engine", "inline");
    rec_kv_str(r, "engine_reason", "auto: cpu backend, 1 compute thread: no core to spare");
    rec_kv_str(r, "orchestration", "bitvector");
    rec_kv_int(r, "cache_capacity", 1024);
    rec_kv_str(r, "grouping", "layer");
    rec_kv_int(r, "groups", 2);
    rec_kv_double(r, "fusion_bytes", INFINITY);
    rec_kv_double(r, "cycle_ms", NAN);
    rec_key(r, "tensors");
    rec_seq_begin(r);
    for (size_t i = 0; i < N(tensors); i++) {
        rec_flow_map_begin(r);
        rec_kv_str(r, "name", tensors[i].name);
        rec_kv_double(r, "bytes", tensors[i].bytes);
        rec_kv_int(r, "group", tensors[i].group);
        rec_map_end(r);
    }
    rec_seq_end(r);
    rec_key(r, "group_list");
    rec_seq_begin(r);
    for (int k = 0; k < 2; k++) {
        rec_flow_map_begin(r);
        rec_kv_int(r, "group", k);
        rec_kv_str(r, "label", labels[k]);
        rec_map_end(r);
    }
    rec_seq_end(r);
    rec_key(r, "steps");
    rec_map_begin(r);
    rec_kv_doubles(r, "exposed_s", exposed, 3);
    rec_kv_doubles(r, "negotiation_s", negot, 3);
    rec_kv_doubles(r, "reduce_s", reduce, 3);
    rec_kv_doubles(r, "backward_end_s", bwd_end, 3);
    rec_kv_doubles(r, "cycles", cycles, 3);
    rec_map_end(r);
    rec_key(r, "timeline");
    rec_seq_begin(r);
    for (int s = 0; s < 3; s++) {
        rec_flow_seq_begin(r);
        for (int k = 0; k < 2; k++) {
            rec_flow_seq_begin(r);
            for (int j = 0; j < 3; j++) rec_double(r, tl(s, k, j));
            rec_seq_end(r);
        }
        rec_seq_end(r);
    }
    rec_seq_end(r);
    rec_map_end(r);
    rec_kv_int(r, "kernels_steps", 3);
    rec_key(r, "kernels");
    rec_seq_begin(r);
    for (size_t i = 0; i < N(kernels); i++) {
        rec_flow_map_begin(r);
        rec_kv_str(r, "kernel", kernels[i].kernel);
        rec_kv_str(r, "layer", kernels[i].layer);
        rec_kv_double(r, "calls", kernels[i].calls);
        rec_kv_double(r, "flops", kernels[i].flops);
        rec_kv_double(r, "time_s", kernels[i].time_s);
        rec_map_end(r);
    }
    rec_seq_end(r);
    rec_key(r, "memory");
    rec_map_begin(r);
    rec_kv_double(r, "rank0_bytes", NAN);
    rec_map_end(r);
    finish(r);
}

static void test_stemdl(void)
{
    write_stemdl("stemdl.yaml");
    arena_t *a = ar_new();
    record_t r;
    load(a, "stemdl.yaml", &r);
    check_header(&r, "stemdl", "invalid", "loss_finite: step 2", 2, "cpu", "fp32");
    same_list("step_s", rec_training(&r)->step_s, rec_training(&r)->nstep, step_s, N(step_s));
    same_list("warmup_s", rec_training(&r)->warmup_s, rec_training(&r)->nwarmup, warmup_s,
              N(warmup_s));
    T_SAME(rec_training(&r)->samples_per_step, 4);
    T_SAME(rec_network(&r)->exec_per_step, 90549780480.0);
    T_SAME(rec_network(&r)->exec_per_sample, INFINITY);
    T_SAME(rec_network(&r)->conv_per_sample, 45274890240.0);
    T_SAME(rec_network(&r)->conv_per_step, -INFINITY);
    T_SAME(rec_network(&r)->fwd_conv_per_sample, 15091630080.0);
    T_SAME(rec_network(&r)->conv_weights, 13570368);
    T_SAME(rec_network(&r)->parameters, 13570433);
    T_SAME(rec_network(&r)->memory_bytes, NAN);
    T_SAME(rec_training(&r)->device_peak_flops, NAN);
    T_SAME(rec_training(&r)->threads_per_rank, 2);
    T_SAME(rec_training(&r)->kernels_steps, 3);
    T_ASSERT(rec_training(&r)->nk == N(kernels), "%zu kernel rows", rec_training(&r)->nk);
    for (size_t i = 0; i < N(kernels); i++) {
        T_STR(rec_training(&r)->k[i].kernel, kernels[i].kernel);
        if (kernels[i].layer) T_STR(rec_training(&r)->k[i].layer, kernels[i].layer);
        else T_ASSERT(!rec_training(&r)->k[i].layer, "layer: null");
        T_SAME(rec_training(&r)->k[i].calls, kernels[i].calls);
        T_SAME(rec_training(&r)->k[i].flops, kernels[i].flops);
        T_SAME(rec_training(&r)->k[i].time_s, kernels[i].time_s);
    }
    const grinfo_t *g = rec_gr(&r);
    T_ASSERT(g, "gradient_reduction not read");
    T_STR(g->transport, "mpi");
    T_STR(g->engine, "inline");
    T_STR(g->engine_reason, "auto: cpu backend, 1 compute thread: no core to spare");
    T_STR(g->orchestration, "bitvector");
    T_STR(g->grouping, "layer");
    T_ASSERT(g->groups == 2 && g->cache_capacity == 1024, "groups, cache_capacity");
    T_SAME(g->fusion_bytes, INFINITY);
    T_SAME(g->cycle_ms, NAN);
    T_ASSERT(g->nt == N(tensors), "%zu tensors", g->nt);
    for (size_t i = 0; i < N(tensors); i++) {
        T_STR(g->t[i].name, tensors[i].name);
        T_SAME(g->t[i].bytes, tensors[i].bytes);
        T_ASSERT(g->t[i].group == tensors[i].group, "tensor %zu group", i);
    }
    T_STR(g->labels[0], labels[0]);
    T_STR(g->labels[1], labels[1]);
    T_ASSERT(g->nsteps == 3, "steps");
    same_list("exposed_s", g->exposed_s, g->nsteps, exposed, 3);
    same_list("negotiation_s", g->negotiation_s, g->nsteps, negot, 3);
    same_list("reduce_s", g->reduce_s, g->nsteps, reduce, 3);
    same_list("backward_end_s", g->backward_end_s, g->nsteps, bwd_end, 3);
    same_list("cycles", g->cycles, g->nsteps, cycles, 3);
    T_ASSERT(g->ntl == 3, "timeline steps");
    for (int s = 0; s < 3; s++)
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < 3; j++)
                T_SAME(g->timeline[(s * 2 + k) * 3 + j], tl(s, k, j));
    T_ASSERT(rec_coll(&r)->nc == 0 && rec_orch(&r)->no == 0, "no rows of other kinds");
    ar_free(a);
}

/* ---- collectives ----------------------------------------------------------- */

static double times1[] = {2.1e-6, 2.2e-6, 1.9e-6};
static const crow_t crows[] = {
    {.op = "allreduce", .dtype = "float32", .redop = "sum", .root = -1, .inplace = 0,
     .bytes = 1024, .count = 256, .time_s = times1, .ntime = 3, .median_s = 2.1e-6,
     .ci_lo_s = 2.0e-6, .ci_hi_s = 2.2e-6, .min_s = 1.9e-6, .max_s = 9.1e-6, .algbw = 0.48,
     .busbw = 0.96, .factor = 2.0, .latency_us = 2.1, .wrong = 0},
    /* a row without samples: the statistics undefined, the rates infinite */
    {.op = "broadcast", .dtype = "bfloat16", .redop = "", .root = 1, .inplace = 1, .bytes = 8,
     .count = 4, .median_s = NAN, .ci_lo_s = NAN, .ci_hi_s = NAN, .min_s = NAN, .max_s = NAN,
     .algbw = INFINITY, .busbw = -INFINITY, .factor = 1.0, .latency_us = NAN, .wrong = 3},
};

static void write_coll(const char *name)
{
    rec_t *r = start(name, "collectives", "ok", NULL, 3, "mpi", "float32,bfloat16");
    rec_key(r, "results");
    rec_seq_begin(r);
    for (size_t i = 0; i < N(crows); i++) {
        const crow_t *x = &crows[i];
        rec_map_begin(r);
        rec_kv_str(r, "op", x->op);
        rec_kv_str(r, "dtype", x->dtype);
        rec_kv_str(r, "redop", x->redop[0] ? x->redop : NULL);
        rec_key(r, "root");
        if (x->root >= 0) rec_int(r, x->root); else rec_null(r);
        if (i == 0) rec_kv_bool(r, "inplace", x->inplace);
        else rec_kv_int(r, "inplace", x->inplace); /* 0/1 is read too */
        rec_kv_int(r, "bytes", (int64_t)x->bytes);
        rec_kv_int(r, "count", (int64_t)x->count);
        rec_kv_doubles(r, "time_s", x->time_s, x->ntime);
        rec_kv_double(r, "median_s", x->median_s);
        rec_kv_double(r, "ci_lo_s", x->ci_lo_s);
        rec_kv_double(r, "ci_hi_s", x->ci_hi_s);
        rec_kv_double(r, "min_s", x->min_s);
        rec_kv_double(r, "max_s", x->max_s);
        rec_kv_double(r, "algbw_GBps", x->algbw);
        rec_kv_double(r, "busbw_GBps", x->busbw);
        rec_kv_double(r, "busbw_factor", x->factor);
        rec_kv_double(r, "latency_us", x->latency_us);
        rec_kv_int(r, "wrong", x->wrong);
        rec_map_end(r);
    }
    rec_seq_end(r);
    finish(r);
}

static void test_collectives(void)
{
    write_coll("coll.yaml");
    arena_t *a = ar_new();
    record_t r;
    load(a, "coll.yaml", &r);
    check_header(&r, "collectives", "ok", NULL, 3, "mpi", "float32,bfloat16");
    T_ASSERT(rec_coll(&r)->nc == N(crows), "%zu rows", rec_coll(&r)->nc);
    for (size_t i = 0; i < N(crows); i++) {
        const crow_t *x = &rec_coll(&r)->c[i], *w = &crows[i];
        T_STR(x->op, w->op);
        T_STR(x->dtype, w->dtype);
        T_STR(x->redop, w->redop);
        T_ASSERT(x->root == w->root && x->inplace == w->inplace && x->wrong == w->wrong,
                 "row %zu: root %lld inplace %d wrong %lld", i, x->root, x->inplace, x->wrong);
        T_SAME(x->bytes, w->bytes);
        T_SAME(x->count, w->count);
        same_list("time_s", x->time_s, x->ntime, w->time_s, w->ntime);
        T_SAME(x->median_s, w->median_s);
        T_SAME(x->ci_lo_s, w->ci_lo_s);
        T_SAME(x->ci_hi_s, w->ci_hi_s);
        T_SAME(x->min_s, w->min_s);
        T_SAME(x->max_s, w->max_s);
        T_SAME(x->algbw, w->algbw);
        T_SAME(x->busbw, w->busbw);
        T_SAME(x->factor, w->factor);
        T_SAME(x->latency_us, w->latency_us);
    }
    T_ASSERT(rec_training(&r)->nstep == 0 && rec_training(&r)->nk == 0 && !rec_gr(&r) &&
                 rec_orch(&r)->no == 0 && isnan(rec_training(&r)->samples_per_step),
             "no stemdl or orchestration fields");
    ar_free(a);
}

/* ---- orchestration --------------------------------------------------------- */

static const orow_t orows[] = {
    {.mode = "cache", .grouping = "layer", .groups = 25, .ranks = 3, .tensors = 27, .cycles = 27,
     .median_s = 5.4e-4, .per_cycle_s = 2e-5},
    /* ranks and per_cycle_s left out: the record's ranks, median / cycles */
    {.mode = "coordinator", .grouping = "none", .groups = 27, .ranks = -1, .tensors = 27,
     .cycles = 54, .median_s = 1.08e-3, .per_cycle_s = NAN},
    /* no cycles: per_cycle_s stays NaN */
    {.mode = "coordinator", .grouping = "even", .groups = 4, .ranks = 2, .tensors = 8,
     .cycles = 0, .median_s = INFINITY, .per_cycle_s = NAN},
};

static void write_orch(const char *name)
{
    rec_t *r = start(name, "orchestration", "ok", NULL, 3, "mpi", "fp16");
    rec_key(r, "results");
    rec_seq_begin(r);
    for (size_t i = 0; i < N(orows); i++) {
        const orow_t *o = &orows[i];
        rec_map_begin(r);
        rec_kv_str(r, "mode", o->mode);
        rec_kv_str(r, "grouping", o->grouping);
        rec_kv_int(r, "groups", o->groups);
        if (o->ranks > 0) rec_kv_int(r, "ranks", o->ranks);
        rec_kv_int(r, "tensors", o->tensors);
        rec_kv_double(r, "cycles", o->cycles);
        rec_kv_double(r, "median_s", o->median_s);
        if (i != 1) rec_kv_double(r, "per_cycle_s", o->per_cycle_s);
        rec_map_end(r);
    }
    rec_seq_end(r);
    finish(r);
}

static void test_orchestration(void)
{
    write_orch("orch.yaml");
    arena_t *a = ar_new();
    record_t r;
    load(a, "orch.yaml", &r);
    check_header(&r, "orchestration", "ok", NULL, 3, "mpi", "fp16");
    T_ASSERT(rec_orch(&r)->no == N(orows), "%zu rows", rec_orch(&r)->no);
    for (size_t i = 0; i < N(orows); i++) {
        const orow_t *x = &rec_orch(&r)->o[i], *w = &orows[i];
        T_STR(x->mode, w->mode);
        T_STR(x->grouping, w->grouping);
        T_ASSERT(x->groups == w->groups && x->tensors == w->tensors, "row %zu counts", i);
        T_ASSERT(x->ranks == (w->ranks > 0 ? w->ranks : r.ranks), "row %zu ranks %lld", i, x->ranks);
        T_SAME(x->cycles, w->cycles);
        T_SAME(x->median_s, w->median_s);
        T_SAME(x->per_cycle_s, i == 1 ? w->median_s / w->cycles : w->per_cycle_s);
    }
    T_ASSERT(rec_coll(&r)->nc == 0 && rec_training(&r)->nstep == 0 && !rec_gr(&r),
             "orchestration rows are not collectives rows");
    ar_free(a);
}

/* ---- the table and bad values ---------------------------------------------- */

static void write_text(const char *name, const char *text)
{
    FILE *f = fopen(path_of(name), "w");
    T_ASSERT(f && fputs(text, f) >= 0 && fclose(f) == 0, "cannot write %s", name);
}

static void test_dispatch(void)
{
    /* every kind of kinds.def is found by its name; nothing else is */
    for (const record_kind_t *k = record_kinds; k->benchmark; k++)
        T_ASSERT(record_kind_find(k->benchmark) == k && k->blocks[0] != BLOCK_N, "kind %s",
                 k->benchmark);
    T_ASSERT(record_kind_find("stemdl") && record_kind_find("collectives") &&
                 record_kind_find("orchestration"), "a kind of this page is missing");
    T_ASSERT(!record_kind_find("mybench") && !record_kind_find(NULL), "unlisted kinds");
    const char *body = "timing: {step_s: [1, 2]}\nresults:\n  - {op: allreduce, bytes: 8, busbw_factor: 1}\n";
    char text[512];
    arena_t *a = ar_new();
    record_t r;
    /* a stemdl record's `results` are not read (they would be collectives rows) */
    snprintf(text, sizeof text, "exadl_record: 1\nbenchmark: stemdl\nstatus: ok\n%s", body);
    write_text("d1.yaml", text);
    load(a, "d1.yaml", &r);
    T_ASSERT(rec_training(&r)->nstep == 2 && rec_coll(&r)->nc == 0, "stemdl: %zu steps, %zu rows",
             rec_training(&r)->nstep, rec_coll(&r)->nc);
    /* a kind the table does not list: every block stemdl and collectives know */
    snprintf(text, sizeof text, "exadl_record: 1\nbenchmark: mybench\nstatus: ok\n%s", body);
    write_text("d2.yaml", text);
    load(a, "d2.yaml", &r);
    T_ASSERT(rec_training(&r)->nstep == 2 && rec_coll(&r)->nc == 1 &&
                 !strcmp(r.benchmark, "mybench"),
             "unlisted kind");
    snprintf(text, sizeof text, "exadl_record: 1\nstatus: ok\n%s", body);
    write_text("d3.yaml", text);
    load(a, "d3.yaml", &r);
    T_ASSERT(rec_training(&r)->nstep == 2 && rec_coll(&r)->nc == 1 &&
                 !strcmp(r.benchmark, "unknown"),
             "no benchmark");
    ar_free(a);
}

/* stemdl's update_exchange block (docs/lioncub.md) and the loss list */
static void test_update_exchange(void)
{
    rec_t *r = start("ux.yaml", "stemdl", "ok", NULL, 2, "cpu", "fp32");
    const double ex[] = {0.5, 0.25, 0.125}, wire[] = {1696320, 1696320, 1696320};
    const double dis[] = {0.1, NAN, 0.3}, loss[] = {0.5, 0.4, 0.35};
    const int64_t wi[] = {1696320, 1696320, 1696320}, sy[] = {0, 13, 0};
    rec_key(r, "update_exchange");
    rec_map_begin(r);
    rec_kv_str(r, "optimizer", "lion");
    rec_kv_str(r, "exchange", "1bit");
    rec_kv_int(r, "bits_per_weight", 1);
    rec_kv_str(r, "momentum_sync", "selective");
    rec_kv_int(r, "momentum_sync_every", 10);
    rec_kv_double(r, "momentum_sync_threshold", 1.5);
    rec_key(r, "steps");
    rec_map_begin(r);
    const char *keys[] = {"exchange_s", "exposed_s", "sign_kernel_s", "collective_s"};
    for (size_t i = 0; i < N(keys); i++) rec_kv_doubles(r, keys[i], ex, 3);
    rec_kv_ints(r, "wire_bytes", wi, 3);
    rec_kv_ints(r, "momentum_sync_bytes", sy, 3);
    rec_kv_ints(r, "momentum_synced_layers", sy, 3);
    rec_kv_doubles(r, "disagreement", dis, 3);
    rec_map_end(r);
    rec_map_end(r);
    rec_key(r, "loss");
    rec_map_begin(r);
    rec_kv_doubles(r, "steps", loss, 3);
    rec_map_end(r);
    finish(r);
    arena_t *a = ar_new();
    record_t rr;
    load(a, "ux.yaml", &rr);
    const uxinfo_t *u = rec_ux(&rr);
    T_ASSERT(u, "update_exchange not read");
    T_STR(u->optimizer, "lion");
    T_STR(u->exchange, "1bit");
    T_STR(u->momentum_sync, "selective");
    T_SAME(u->bits, 1);
    T_SAME(u->sync_every, 10);
    T_SAME(u->sync_threshold, 1.5);
    same_list("exchange_s", u->exchange_s, u->nsteps, ex, 3);
    same_list("collective_s", u->collective_s, u->nsteps, ex, 3);
    same_list("wire_bytes", u->wire_bytes, u->nsteps, wire, 3);
    same_list("disagreement", u->disagreement, u->nsteps, dis, 3);
    same_list("loss", rec_training(&rr)->loss, rec_training(&rr)->nloss, loss, 3);
    ar_free(a);
}

static void test_bad_values(void)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"exadl_record: 1\nbenchmark: stemdl\nstatus: ok\ntiming: {step_s: [1, .nan]}\n",
         "b.yaml:4:22: expected a finite number for step_s, found '.nan'"},
        {"exadl_record: 1\nbenchmark: stemdl\nstatus: ok\nflops: {executed_per_step: \"lots\"}\n",
         "b.yaml:4:28: expected a number for executed_per_step, found the quoted string \"lots\""},
        {"exadl_record: 1\nbenchmark: stemdl\nstatus: ok\nthreads_per_rank: [2]\n",
         "b.yaml:4:19: expected a number for threads_per_rank, found a sequence"},
        {"exadl_record: 1\nbenchmark: stemdl\nstatus: ok\ngradient_reduction:\n  groups: 1\n"
         "  tensors:\n  - {name: w, bytes: .nan, group: 0}\n",
         "b.yaml:7:22: expected a count (a finite number >= 0) for bytes, found '.nan'"},
        {"exadl_record: 1\nbenchmark: collectives\nstatus: ok\nresults:\n"
         "- {op: allreduce, bytes: .nan}\n",
         "b.yaml:5:26: expected a count (a finite number >= 0) for bytes, found '.nan'"},
        {"exadl_record: 1\nbenchmark: collectives\nstatus: ok\nresults:\n"
         "- {op: allreduce, busbw_factor: 1}\n",
         "b.yaml:5:3: results: a row has no bytes"},
        {"exadl_record: 1\nbenchmark: orchestration\nstatus: ok\nresults:\n"
         "- {mode: cache, groups: .nan}\n",
         "b.yaml:5:25: expected an integer for groups, found '.nan'"},
        {"exadl_record: 1\nbenchmark: [stemdl]\nstatus: ok\n",
         "b.yaml:2:12: expected text for benchmark, found a sequence"},
        {"exadl_record: 1\nbenchmark: stemdl\nstatus: ok\nranks: .inf\n",
         "b.yaml:4:8: expected an integer for ranks, found '.inf'"},
        {"exadl_record: 1\nbenchmark: stemdl\nstatus: ok\nupdate_exchange:\n  optimizer: lion\n"
         "  exchange: 1bit\n  steps: {exchange_s: [1, 2], wire_bytes: [3]}\n",
         "b.yaml:7:10: update_exchange.steps: exposed_s has 0 entries, exchange_s 2"},
        {"exadl_record: 1\nbenchmark: stemdl\nstatus: ok\nupdate_exchange:\n  optimizer: lion\n"
         "  exchange: 1bit\n  steps: {exchange_s: [.nan]}\n",
         "b.yaml:7:24: expected a finite number for exchange_s, found '.nan'"},
        {"exadl_record: 1\nbenchmark: stemdl\nstatus: ok\ngradient_reduction:\n  groups: 1\n"
         "  engine: fast\n",
         "gradient_reduction.engine: must be none, thread or inline"},
        {"exadl_record: 1\nbenchmark: stemdl\nstatus: ok\nupdate_exchange: {optimizer: lion}\n",
         "b.yaml:4:18: update_exchange: optimizer and exchange are required"},
    };
    for (size_t i = 0; i < N(bad); i++) {
        write_text("b.yaml", bad[i].text);
        arena_t *a = ar_new();
        record_t r;
        err[0] = 0;
        int rc = record_load(a, path_of("b.yaml"), &r, err, sizeof err);
        ar_free(a);
        T_ASSERT(rc == -1 && strstr(err, bad[i].want), "case %zu: rc %d, '%s' lacks '%s'", i, rc,
                 err, bad[i].want);
    }
}

/* A record written before the engine option: no engine, no reason. */
static void test_gr_without_engine(void)
{
    write_text("old.yaml", "exadl_record: 1\nbenchmark: stemdl\nstatus: ok\n"
                           "gradient_reduction:\n  transport: mpi\n  groups: 1\n");
    arena_t *a = ar_new();
    record_t r;
    err[0] = 0;
    int rc = record_load(a, path_of("old.yaml"), &r, err, sizeof err);
    T_ASSERT(rc == 0, "an old record: %s", err);
    T_ASSERT(rec_gr(&r) && !rec_gr(&r)->engine && !rec_gr(&r)->engine_reason,
             "engine and engine_reason absent: NULL");
    ar_free(a);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/exadl-records-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        printf("FAIL: mkdtemp %s\n", dir);
        return 1;
    }
    snprintf(si.cpu_model, sizeof si.cpu_model, "Test CPU");
    si.cpu_cores = 2;
    snprintf(si.os, sizeof si.os, "Linux");
    static char *hosts[] = {"node01", "node02"};
    sysinfo_set_hosts(&si, hosts, 2);
    T_RUN(test_stemdl);
    T_RUN(test_collectives);
    T_RUN(test_orchestration);
    T_RUN(test_dispatch);
    T_RUN(test_update_exchange);
    T_RUN(test_bad_values);
    T_RUN(test_gr_without_engine);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("# could not remove %s\n", dir);
    T_DONE();
}
