/* wf_rec (wf_rec.h): the workflow's result, line and record. */
#define _GNU_SOURCE
#include "benchmarks/workflow/wf_rec.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "benchmarks/common/record/header.h"
#include "benchmarks/common/sysinfo.h"
#include "benchmarks/workflow/wf_net.h"

void wf_result_make(const wf_cfg *c, const wf_tr *T, int P, double wall_s, int partial, wf_result *r)
{
    memset(r, 0, sizeof *r);
    r->producers = P, r->partial_files = partial, r->wall_s = wall_s;
    r->expected = (int64_t)P * c->samples;
    r->consumed = T->consumed, r->duplicates = T->duplicates, r->corrupt = T->corrupt;
    for (int p = 0; p < P; p++) {
        const wf_end *e = &T->ends[p];
        /* a killed producer cannot say what it made: what arrived of it */
        r->produced += e->produced >= 0 ? e->produced : T->received[p];
        r->blocked_s += isnan(e->blocked_s) ? 0 : e->blocked_s;
        if (e->failed) {
            r->failed_producers++;
            r->lost_to_failure += c->samples - T->received[p];
        } else r->unaccounted += c->samples - T->received[p];
    }
    r->produced_per_s = r->produced / wall_s;
    r->consumed_per_s = r->consumed / wall_s;
    r->stall_s = T->stall_s;
    r->depth_mean = T->steps ? T->depth_sum / (double)T->steps : NAN;
    stats_summarize(T->lat, (size_t)T->consumed, &r->lat);
    r->ok = !r->duplicates && !r->corrupt && !r->unaccounted && T->depth_max <= c->queue &&
            r->consumed + r->lost_to_failure == r->expected;
}

void wf_print(const wf_cfg *c, const wf_tr *T, const wf_result *r)
{
    printf("workflow: %s, %d producers x %d samples: consumed %" PRId64 " of %" PRId64 ", %.4g "
           "produced/s, %.4g consumed/s, stall %.3g s of %.3g s, latency median %.3g s [%.3g, %.3g], "
           "queue depth max %" PRId64 " of %d, loss %.4g -> %.4g\n",
           wf_modes[c->mode], r->producers, c->samples, r->consumed, r->expected, r->produced_per_s,
           r->consumed_per_s, r->stall_s, r->wall_s, r->lat.median, r->lat.ci_lo, r->lat.ci_hi,
           T->depth_max, c->queue, T->loss_first, T->loss_last);
    printf("workflow: duplicates %" PRId64 ", corrupt %" PRId64 ", failed producers %d, lost to the "
           "failure %" PRId64 ", unaccounted %" PRId64 "\n",
           r->duplicates, r->corrupt, r->failed_producers, r->lost_to_failure, r->unaccounted);
    for (int p = 0; p < r->producers; p++)
        if (T->ends[p].failed)
            printf("workflow: producer %d %s: %" PRId64 " of %d samples received, %" PRId64 " lost\n", p,
                   T->ends[p].how, T->received[p], c->samples, c->samples - T->received[p]);
}

static void write_config(rec_t *w, const void *arg)
{
    const wf_cfg *c = arg;
    rec_key(w, "config");
    rec_map_begin(w);
    rec_kv_str(w, "mode", wf_modes[c->mode]);
    rec_kv_int(w, "samples", c->samples);
    rec_kv_int(w, "grid", c->grid);
    rec_kv_int(w, "sim_steps", c->sim_steps);
    rec_kv_int(w, "queue", c->queue);
    rec_kv_int(w, "batch", c->batch);
    rec_kv_int(w, "hidden", c->hidden);
    rec_kv_double(w, "lr", c->lr);
    rec_kv_str(w, "kernels", wf_kernel_sets[c->kernels]);
    rec_kv_int(w, "seed", (int64_t)c->seed);
    rec_kv_int(w, "poll_us", c->poll_us);
    rec_kv_str(w, "dir", c->mode == WF_FILES ? c->dir : NULL);
    rec_kv_int(w, "fail_producer", c->fail_producer);
    rec_kv_int(w, "fail_after", c->fail_after);
    rec_kv_str(w, "fail_how", wf_fail_hows[c->fail_how]);
    rec_kv_int(w, "corrupt_sample", c->corrupt_seq);
    rec_kv_int(w, "duplicate_sample", c->duplicate_seq);
    rec_map_end(w);
}

int wf_write_record(const wf_cfg *c, const comm_t *comm, const wf_tr *T, const wf_result *r,
                    int argc, char **argv, const char *started)
{
    sysinfo_t si;
    sysinfo_collect(&si);
    sysinfo_set_hosts(&si, comm->hosts, comm->nhosts);
    char mpiv[256];
    comm_library_version(mpiv, sizeof mpiv);
    sysinfo_set_version(&si, "mpi", mpiv);
    sysinfo_set_version(&si, "fast_kernels", c->kernels == 1 ? wf_net_library(T->net) : NULL);
    char why[256] = "", err[512];
    if (!r->ok)
        snprintf(why, sizeof why, "%" PRId64 " duplicate(s), %" PRId64 " corrupt, %" PRId64
                 " unaccounted sample(s), queue depth max %" PRId64 " of %d", r->duplicates, r->corrupt,
                 r->unaccounted, T->depth_max, c->queue);
    rec_header_t h = {.benchmark = "workflow", .status = r->ok ? "ok" : "invalid",
                      .error = r->ok ? NULL : why, .started_utc = started, .argc = argc, .argv = argv,
                      .system = &si, .config = write_config, .config_arg = c, .ranks = comm->size,
                      .backend = "cpu", .precision = "fp32"};
    rec_t *w = rec_header_open(c->record, &h, err, sizeof err);
    if (!w) return fprintf(stderr, "workflow: error: %s\n", err), -1;
    rec_key(w, "workflow");
    rec_map_begin(w);
    rec_kv_str(w, "mode", wf_modes[c->mode]);
    rec_kv_int(w, "producers", r->producers);
    rec_kv_int(w, "trainers", 1);
    rec_kv_int(w, "sample_bytes", (int64_t)wf_sample_bytes(c));
    rec_kv_int(w, "expected", r->expected);
    rec_kv_int(w, "produced", r->produced);
    rec_kv_int(w, "consumed", r->consumed);
    rec_kv_int(w, "duplicates", r->duplicates);
    rec_kv_int(w, "corrupt", r->corrupt);
    rec_kv_int(w, "failed_producers", r->failed_producers);
    rec_kv_int(w, "lost_to_failure", r->lost_to_failure);
    rec_kv_int(w, "unaccounted", r->unaccounted);
    rec_kv_int(w, "partial_files", r->partial_files);
    rec_kv_double(w, "wall_s", r->wall_s);
    rec_kv_double(w, "produced_per_s", r->produced_per_s);
    rec_kv_double(w, "consumed_per_s", r->consumed_per_s);
    rec_kv_str(w, "stall", "the trainer's wall time neither in training steps (train_s) nor in "
                           "checking samples (check_s): waiting for data, receiving, reading");
    rec_kv_double(w, "stall_s", r->stall_s);
    rec_kv_double(w, "stall_fraction", r->stall_s / r->wall_s);
    rec_kv_double(w, "producer_blocked_s", r->blocked_s);
    rec_kv_str(w, "latency", "CLOCK_REALTIME from the end of a sample's simulation to the end of "
                             "the backward pass of the step that trained on it; median and its "
                             "95% CI by ranks");
    rec_kv_double(w, "latency_median_s", r->lat.median);
    rec_kv_double(w, "latency_ci_lo_s", r->lat.ci_lo);
    rec_kv_double(w, "latency_ci_hi_s", r->lat.ci_hi);
    rec_kv_double(w, "latency_max_s", r->lat.max);
    rec_kv_int(w, "queue_bound", c->queue);
    rec_kv_int(w, "queue_depth_max", T->depth_max);
    rec_kv_double(w, "queue_depth_mean", r->depth_mean);
    rec_kv_int(w, "steps", T->steps);
    rec_kv_double(w, "train_s", T->train_s);
    rec_kv_double(w, "check_s", T->check_s);
    rec_kv_int(w, "params", wf_net_params(T->net));
    rec_kv_int(w, "train_flops", wf_net_flops(T->net));
    rec_kv_double(w, "loss_first", T->loss_first);
    rec_kv_double(w, "loss_last", T->loss_last);
    rec_key(w, "ends");
    rec_seq_begin(w);
    for (int p = 0; p < r->producers; p++) {
        const wf_end *e = &T->ends[p];
        rec_map_begin(w);
        rec_kv_int(w, "producer", p);
        rec_kv_str(w, "how", e->how);
        rec_kv_bool(w, "failed", e->failed);
        rec_kv_int(w, "received", T->received[p]);
        rec_kv_int(w, "lost", e->failed ? c->samples - T->received[p] : 0);
        rec_map_end(w);
    }
    rec_seq_end(w);
    rec_map_end(w);
    rec_key(w, "validation");
    rec_seq_begin(w);
    char d[256];
    snprintf(d, sizeof d, "%" PRId64 " consumed + %" PRId64 " lost to %d failed producer(s) of %" PRId64
             " expected; %" PRId64 " duplicate(s), %" PRId64 " corrupt, %" PRId64 " unaccounted",
             r->consumed, r->lost_to_failure, r->failed_producers, r->expected, r->duplicates,
             r->corrupt, r->unaccounted);
    rec_validation(w, "every_sample_once",
                   !r->duplicates && !r->corrupt && !r->unaccounted &&
                           r->consumed + r->lost_to_failure == r->expected ? "pass" : "fail", 1, d);
    snprintf(d, sizeof d, "queue depth max %" PRId64 ", bound %d", T->depth_max, c->queue);
    rec_validation(w, "queue_bound", T->depth_max <= c->queue ? "pass" : "fail", 1, d);
    snprintf(d, sizeof d, "loss %.6g at the first step, %.6g at the last", T->loss_first, T->loss_last);
    rec_validation(w, "loss_trend", T->loss_last < T->loss_first ? "pass" : "fail", 0, d);
    rec_seq_end(w);
    if (rec_header_close(w, err, sizeof err)) return fprintf(stderr, "workflow: error: %s\n", err), -1;
    return 0;
}
