/* sr_rec: the search record and --replay's reader (sr_rec.h). */
#define _GNU_SOURCE
#include "benchmarks/search/sr_rec.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/record/header.h"
#include "benchmarks/common/stats.h"
#include "benchmarks/common/ytree.h"

static const char *const mode_names[] = {"async", "sync"};
static const char *const strategy_names[] = {"evolve", "random"};
static const char *const fitness_names[] = {"train", "planted"};

uint64_t sr_trace_hash(const sr_cand *cand, int64_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int64_t i = 0; i < n; i++)
        for (int g = 0; g < SR_GENES; g++) {
            h ^= (uint64_t)cand[i].x.g[g];
            h *= 0x100000001b3ULL;
        }
    return h;
}

static void write_config(rec_t *w, const void *arg)
{
    const sr_cfg *c = arg;
    rec_key(w, "config");
    rec_map_begin(w);
    rec_kv_str(w, "mode", mode_names[c->mode]);
    rec_kv_str(w, "strategy", strategy_names[c->strategy]);
    rec_kv_str(w, "fitness", fitness_names[c->fitness]);
    rec_kv_int(w, "evals", c->evals);
    rec_kv_int(w, "population", c->population);
    rec_kv_int(w, "generation", c->generation);
    rec_kv_int(w, "group_ranks", c->group_ranks);
    rec_kv_bool(w, "stop_at_optimum", c->stop_at_optimum);
    rec_kv_double(w, "cost_s", c->cost_s);
    rec_kv_int(w, "seed", (int64_t)c->seed);
    rec_kv_int(w, "steps", c->steps);
    rec_kv_int(w, "batch", c->batch);
    rec_kv_int(w, "threads", c->threads);
    rec_kv_str(w, "kernels", c->kernels);
    rec_kv_str(w, "replay", c->replay);
    rec_map_end(w);
}

static void write_space(rec_t *w, const sr_cfg *c)
{
    rec_key(w, "space");
    rec_map_begin(w);
    rec_kv_str(w, "family", "FC-DenseNet (STEMDL), preset tiny's data: 16x16 images, 6 channels");
    rec_kv_int(w, "configurations", sr_space_size());
    for (int g = 0; g < SR_GENES; g++) {
        int64_t v[16];
        for (int i = 0; i < sr_gene_count(g); i++) v[i] = sr_gene_value(g, i);
        rec_kv_ints(w, sr_gene_name(g), v, (size_t)sr_gene_count(g));
    }
    if (c->fitness == SR_PLANTED) {
        sr_genome opt;
        char s[160];
        sr_planted_optimum(c->seed, &opt);
        sr_format(&opt, s, sizeof s);
        rec_kv_str(w, "planted_optimum", s);
        /* uniform sampling without repetition meets one configuration in N after (N + 1) / 2 on average */
        rec_kv_double(w, "random_expected_evals", (double)(sr_space_size() + 1) / 2);
    }
    rec_map_end(w);
}

static void write_candidates(rec_t *w, const sr_cand *cand, int64_t n)
{
    rec_key(w, "candidates");
    rec_seq_begin(w);
    for (int64_t i = 0; i < n; i++) {
        const sr_cand *k = &cand[i];
        char s[160];
        sr_format(&k->x, s, sizeof s);
        rec_flow_map_begin(w);
        rec_kv_int(w, "id", i);
        rec_kv_str(w, "config", s);
        rec_kv_int(w, "parent_a", k->parent_a);
        rec_kv_int(w, "parent_b", k->parent_b);
        rec_kv_int(w, "group", k->group);
        rec_kv_double(w, "fitness", k->fitness);
        rec_kv_double(w, "flops", k->flops);
        rec_kv_double(w, "eval_s", k->eval_s);
        rec_kv_double(w, "done_s", k->done_s);
        rec_map_end(w);
    }
    rec_seq_end(w);
}

static void write_block(rec_t *w, const sr_cfg *c, const sr_outcome *o)
{
    const sr_stats *st = o->st;
    stats_summary_t d;
    stats_summarize(st->decision_cpu_s, (size_t)st->decisions, &d);
    double *sorted = XMALLOC((size_t)(st->decisions + 1) * sizeof *sorted, "decision times");
    memcpy(sorted, st->decision_cpu_s, (size_t)st->decisions * sizeof *sorted);
    stats_sort(sorted, (size_t)st->decisions);
    double p99 = st->decisions ? sorted[(size_t)((double)(st->decisions - 1) * 0.99)] : NAN;
    free(sorted);
    double flops = 0;
    for (int64_t i = 0; i < st->generated; i++)
        if (o->cand[i].done_rank >= 0 && o->cand[i].flops > 0) flops += o->cand[i].flops;
    rec_key(w, "search");
    rec_map_begin(w);
    rec_kv_int(w, "workers", o->ngroups);
    rec_kv_int(w, "group_ranks", c->group_ranks);
    rec_kv_str(w, "mode", mode_names[c->mode]);
    rec_kv_str(w, "strategy", strategy_names[c->strategy]);
    rec_kv_str(w, "fitness", fitness_names[c->fitness]);
    rec_kv_int(w, "evaluated", st->evaluated);
    rec_kv_int(w, "generated", st->generated);
    rec_kv_double(w, "wall_s", st->wall_s);
    rec_kv_double(w, "candidates_per_hour", st->wall_s > 0 ? 3600.0 * (double)st->evaluated / st->wall_s : NAN);
    /* before the tail: once the budget is all sent, groups fall idle one by one */
    rec_kv_double(w, "last_send_s", st->last_send_s);
    rec_kv_double(w, "candidates_per_hour_steady",
                  st->last_send_s > 0 ? 3600.0 * (double)st->done_at_last_send / st->last_send_s : NAN);
    /* and the groups' idle time before it: 1 - their evaluations inside [0, last_send_s]
     * / (groups x last_send_s); an evaluation is placed on the master's clock as the
     * eval_s before its result arrived (a result queued at a busy master lands later, by
     * the time it waited, but keeps its length: the groups' own time, not the master's) */
    double held = 0;
    for (int64_t i = 0; i < st->generated; i++) {
        const sr_cand *k = &o->cand[i];
        if (k->done_rank < 0) continue; /* never came back (a replay that diverged) */
        double b = k->done_s - k->eval_s, e = k->done_s < st->last_send_s ? k->done_s : st->last_send_s;
        if (b < 0) b = 0;
        if (e > b) held += e - b;
    }
    rec_kv_double(w, "worker_idle_fraction_steady",
                  st->last_send_s > 0 ? 1 - held / ((double)o->ngroups * st->last_send_s) : NAN);
    rec_kv_double(w, "worker_idle_fraction", o->idle_fraction);
    rec_kv_int(w, "decisions", st->decisions);
    rec_kv_double(w, "decision_cpu_median_s", d.median);
    rec_kv_double(w, "decision_cpu_mean_s", d.mean);
    rec_kv_double(w, "decision_cpu_p99_s", p99);
    rec_kv_double(w, "decision_cpu_max_s", d.max);
    rec_kv_double(w, "master_busy_fraction", st->wall_s > 0 ? st->decision_wall_s / st->wall_s : NAN);
    rec_kv_int(w, "messages_sent", st->msgs_sent);
    rec_kv_int(w, "messages_received", st->msgs_recv);
    rec_kv_int(w, "bytes_sent", st->bytes_sent);
    rec_kv_int(w, "bytes_received", st->bytes_recv);
    rec_kv_double(w, "flops", flops);
    if (c->mode == SR_SYNC) rec_kv_int(w, "generations", st->generations);
    rec_kv_int(w, "evals_to_optimum", st->evals_to_optimum);
    if (st->best >= 0) {
        char s[160];
        sr_format(&o->cand[st->best].x, s, sizeof s);
        rec_kv_int(w, "best_id", st->best);
        rec_kv_double(w, "best_fitness", o->cand[st->best].fitness);
        rec_kv_str(w, "best_config", s);
    }
    char h[24];
    snprintf(h, sizeof h, "%016" PRIx64, o->trace_hash);
    rec_kv_str(w, "trace_hash", h);
    rec_kv_bool(w, "replayed", st->replayed);
    rec_kv_ints(w, "best_curve_evals", st->curve_n, (size_t)st->ncurve);
    rec_kv_doubles(w, "best_curve_fitness", st->curve_f, (size_t)st->ncurve);
    rec_kv_doubles(w, "worker_busy_s", o->busy_s, (size_t)o->ngroups);
    rec_kv_doubles(w, "worker_wall_s", o->wall_s, (size_t)o->ngroups);
    rec_kv_ints(w, "completion_order", st->order, (size_t)st->evaluated);
    rec_map_end(w);
}

int sr_write_record(const sr_cfg *c, const sr_outcome *o, const sysinfo_t *si, int ranks, int argc,
                    char **argv, const char *started)
{
    const sr_stats *st = o->st;
    /* every candidate sent came back once, and none twice */
    int64_t dup = 0, missing = 0, invalid = 0;
    unsigned char *got = XCALLOC((size_t)st->generated + 1, 1, "completions");
    for (int64_t i = 0; i < st->evaluated; i++) {
        int64_t id = st->order[i];
        if (id < 0 || id >= st->generated || got[id]++) dup++;
    }
    for (int64_t i = 0; i < st->generated; i++) missing += !got[i], invalid += got[i] && !o->cand[i].valid;
    free(got);
    char why[600] = "";
    if (o->replay_failed) snprintf(why, sizeof why, "%s", o->error);
    else if (dup || missing) snprintf(why, sizeof why, "%lld candidate(s) returned twice, %lld never", (long long)dup, (long long)missing);
    else if (o->replay_hash && o->replay_hash != o->trace_hash)
        snprintf(why, sizeof why, "--replay: the same completion order generated other candidates");
    int bad = why[0] != 0;
    rec_header_t h = {.benchmark = "search", .status = bad ? "invalid" : "ok", .error = bad ? why : NULL,
                      .started_utc = started, .argc = argc, .argv = argv, .system = si,
                      .config = write_config, .config_arg = c, .ranks = ranks, .backend = "cpu",
                      .precision = c->fitness == SR_TRAIN ? "fp32" : "none"};
    char err[512];
    rec_t *w = rec_header_open(c->record, &h, err, sizeof err);
    if (!w) return fprintf(stderr, "search: error: %s\n", err), -1;
    write_space(w, c);
    write_block(w, c, o);
    write_candidates(w, o->cand, st->generated);
    rec_key(w, "validation");
    rec_seq_begin(w);
    char d[256];
    snprintf(d, sizeof d, "%lld sent, %lld completions, %lld twice, %lld never", (long long)st->generated,
             (long long)st->evaluated, (long long)dup, (long long)missing);
    rec_validation(w, "every_candidate_once", dup || missing ? "fail" : "pass", 1, d);
    snprintf(d, sizeof d, "%lld candidate(s) without a finite fitness (refused configuration or failed training)",
             (long long)invalid);
    rec_validation(w, "fitness_finite", invalid ? "fail" : "pass", 0, d);
    if (c->replay)
        rec_validation(w, "replay_identical", o->replay_failed || o->replay_hash != o->trace_hash ? "fail" : "pass", 1,
                       o->replay_failed ? o->error : "the candidates generated match the replayed record's (trace_hash)");
    rec_seq_end(w);
    if (rec_header_close(w, err, sizeof err)) return fprintf(stderr, "search: error: %s\n", err), -1;
    return bad;
}

int sr_read_replay(const char *path, int64_t **order, int64_t *n, uint64_t *hash, char *err, size_t errlen)
{
    ytdoc *d = yt_load_file(path, err, errlen);
    if (!d) return -1;
    const ytnode *s = d->root && d->root->kind == YT_MAP ? yt_get(d->root, "search") : NULL;
    const ytnode *o = s && s->kind == YT_MAP ? yt_get(s, "completion_order") : NULL;
    const ytnode *th = s && s->kind == YT_MAP ? yt_get(s, "trace_hash") : NULL;
    const char *hs = NULL;
    int rc = -1;
    if (!o || o->kind != YT_SEQ) {
        snprintf(err, errlen, "%s: no search.completion_order list (not a search record)", path);
    } else if (!th || yt_string(d, th, &hs, err, errlen)) {
        if (!th) snprintf(err, errlen, "%s: no search.trace_hash", path);
    } else {
        char *end;
        *hash = strtoull(hs, &end, 16);
        if (*end || !*hs) {
            yt_err(err, errlen, d, th, "trace_hash '%.40s' is not hexadecimal", hs);
        } else {
            *order = XMALLOC((o->n + 1) * sizeof **order, "replay order");
            *n = (int64_t)o->n;
            rc = 0;
            for (size_t i = 0; i < o->n && rc == 0; i++) {
                long long v = 0;
                if (yt_int(d, o->items[i], &v, err, errlen) || v < 0) {
                    if (v < 0) yt_err(err, errlen, d, o->items[i], "a negative candidate id");
                    rc = -1;
                } else {
                    (*order)[i] = v;
                }
            }
            if (rc) free(*order), *order = NULL;
        }
    }
    yt_free(d);
    return rc;
}
