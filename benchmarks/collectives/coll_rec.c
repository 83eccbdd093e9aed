/* coll_rec: the `collectives` program's record (coll_rec.h). */
#include "benchmarks/collectives/coll_rec.h"

#include <stdio.h>
#include <string.h>

#include "benchmarks/collectives/bench.h"
#include "benchmarks/collectives/coll.h"
#include "benchmarks/common/record/header.h"

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
    rec_kv_int(rec, "batch", r->batch);
    rec_kv_int(rec, "samples", r->nsamples);
    size_t keep = r->nsamples < COLL_MAX_KEPT_SAMPLES ? (size_t)r->nsamples : COLL_MAX_KEPT_SAMPLES;
    rec_kv_doubles(rec, "time_s", r->time_s, keep);
    rec_kv_stats_s(rec, &r->st);
    rec_kv_double(rec, "algbw_GBps", r->algbw_GBps);
    rec_kv_double(rec, "busbw_GBps", r->busbw_GBps);
    rec_kv_double(rec, "busbw_factor", r->busbw_factor);
    if (r->wire_bytes >= 0) rec_kv_int(rec, "wire_bytes", r->wire_bytes);
    rec_kv_double(rec, "latency_us", r->latency_us);
    rec_kv_double(rec, "osu_avg_s", r->osu_avg_s);
    rec_kv_int(rec, "wrong", r->wrong);
    rec_map_end(rec);
}

static void write_config(rec_t *r, const void *arg)
{
    const coll_cfg_t *cfg = arg;
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
    rec_kv_str(r, "inplace", coll_inplace_names[cfg->inplace_mode]);
    rec_kv_str(r, "timing", coll_timing_names[cfg->per_call]);
    rec_kv_double(r, "batch_target_s", cfg->batch_target_s);
    rec_key(r, "batch_calls"); /* --batch; null: from batch_target_s */
    if (cfg->batch_calls > 0) rec_int(r, cfg->batch_calls); else rec_null(r);
    rec_kv_int(r, "seed", (int64_t)cfg->seed);
    rec_map_end(r);
}

int coll_rec_write(const coll_cfg_t *cfg, const comm_t *c, const sysinfo_t *si, int argc,
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
        return -1;
    }
    rec_key(r, "timing");
    rec_map_begin(r);
    rec_kv_str(r, "mode", coll_timing_names[cfg->per_call]);
    if (cfg->per_call) {
        rec_kv_str(r, "sample", "one call");
        rec_kv_str(r, "combine", "max over ranks, per call");
        rec_kv_str(r, "sync", cfg->backend == BK_NCCL
                                  ? "stream sync + MPI_Barrier before each call, stream sync after"
                                  : "MPI_Barrier before each call");
    } else {
        rec_kv_str(r, "sample", cfg->batch_calls > 0
                                    ? "a batch of `batch` back-to-back calls: its time / batch, per rank "
                                      "(batch given: --batch, nccl-tests' -n)"
                                    : "a batch of `batch` back-to-back calls: its time / batch, per rank "
                                      "(batch so that it lasts >= batch_target_s, from the warm-up's mean)");
        rec_kv_str(r, "combine", "max over ranks of each batch's mean time per call");
        rec_kv_str(r, "sync", cfg->backend == BK_NCCL
                                  ? "stream sync + MPI_Barrier before each batch, stream sync after"
                                  : "MPI_Barrier before each batch");
    }
    rec_kv_str(r, "clock", "CLOCK_MONOTONIC, samples rounded to 1 ps");
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
    if (rec_header_close(r, err, sizeof err)) {
        fprintf(stderr, "collectives: error: %s\n", err);
        return -1;
    }
    return 0;
}
