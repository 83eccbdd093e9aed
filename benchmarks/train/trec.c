#include "benchmarks/train/trec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/stats.h"
#include "benchmarks/train/gsync/gsync_pick.h"

void trec_si(double v, char *buf, size_t len)
{
    static const char *prefix[] = {"", "k", "M", "G", "T", "P", "E", "Z"};
    int i = 0;
    double a = v < 0 ? -v : v;
    while (a >= 1000.0 && i < 7) {
        a /= 1000.0;
        v /= 1000.0;
        i++;
    }
    snprintf(buf, len, i ? "%.2f %s" : "%.0f %s", v, prefix[i]);
}

typedef struct {
    stats_summary_t st;
    int64_t per_step, per_rank_step, per_sample, conv_per_sample, fwd_per_sample;
    double samples_per_step, sustained, peak, samples_per_s;
} derived_t;

/* one flow list of n numbers, as an item of the open sequence */
static void doubles_row(rec_t *w, const double *x, size_t n)
{
    rec_flow_seq_begin(w);
    for (size_t i = 0; i < n; i++) rec_double(w, x[i]);
    rec_seq_end(w);
}

static void derive(const train_job *j, const train_result *r, derived_t *d)
{
    net_facts f;
    train_facts(j->net, j->model, &f);
    memset(d, 0, sizeof *d);
    /* spatial parallelism: the ranks of a group share their samples */
    d->samples_per_step = (double)j->run->batch * (j->comm->size / train_replica_ranks(&f));
    d->per_rank_step = r->flops_rank_step;
    d->per_step = r->flops_step > 0 ? r->flops_step : r->flops_rank_step * j->comm->size;
    d->per_sample = (int64_t)(d->per_step / d->samples_per_step);
    d->fwd_per_sample = f.fwd_conv_flops;
    d->conv_per_sample = f.convention_flops;
    stats_summarize(r->step_s, (size_t)r->steps, &d->st);
    double sum = 0, min = r->step_s[0];
    for (int i = 0; i < r->steps; i++) {
        sum += r->step_s[i];
        if (r->step_s[i] < min) min = r->step_s[i];
    }
    d->sustained = (double)d->per_step * r->steps / sum;
    d->peak = (double)d->per_step / min;
    d->samples_per_s = d->samples_per_step / d->st.median;
}

/* dtype (docs/record.md): the type each row's kernel computed in, on the
 * cpu backend (bf16 or fp32: kern_fast_kernel_dtype); the cuda backend's
 * rows carry none (its precision_detail says what runs in 16 bits) */
static void write_kernels(rec_t *w, const ktab_t *t, const backend_t *be)
{
    int cpu = be && !be->cuda;
    rec_key(w, "kernels");
    rec_seq_begin(w);
    for (int i = 0; i < t->n; i++) {
        const ktab_row *k = &t->rows[i];
        rec_flow_map_begin(w);
        rec_kv_str(w, "kernel", k->kernel);
        rec_kv_str(w, "layer", k->layer);
        rec_kv_int(w, "calls", k->calls);
        rec_kv_int(w, "flops", k->flops);
        rec_kv_double(w, "time_s", k->time_s);
        if (cpu) rec_kv_str(w, "dtype", kern_fast_kernel_dtype(be->fast ? be->ctx : NULL, k->kernel));
        rec_map_end(w);
    }
    rec_seq_end(w);
}

static const char *grouping_name(const gsync_cfg *g)
{
    return g->grouping == GS_GROUP_NONE ? "none" : g->grouping == GS_GROUP_LAYER ? "layer" : "count";
}

/* docs/record.md "gradient_reduction": the engine's settings, its tensors
 * and groups, per-step costs, and rank 0's timeline of every timed step. */
static void write_reduction(const train_job *j, const train_result *r, rec_t *w)
{
    const gsync_cfg *g = &r->gcfg;
    rec_key(w, "gradient_reduction");
    rec_map_begin(w);
    rec_kv_str(w, "transport", j->backend ? j->backend->transport.name : "none");
    /* who ran the cycles and why (gsync_pick.h; docs/gsync.md "Which engine runs") */
    rec_kv_str(w, "engine", gsync_engine_name(r->engine));
    rec_kv_str(w, "engine_reason", r->engine_reason[0] ? r->engine_reason : "no engine opened");
    rec_kv_str(w, "orchestration", g->orchestration == GS_BITVECTOR && g->cache_capacity > 0
                                       ? "bitvector"
                                       : "coordinator");
    rec_kv_int(w, "cache_capacity", g->cache_capacity);
    rec_kv_str(w, "grouping", grouping_name(g));
    rec_kv_int(w, "groups", r->ngroups);
    rec_kv_int(w, "fusion_bytes", g->fusion_bytes);
    rec_kv_double(w, "cycle_ms", g->cycle_ms);
    /* a device transport's times are the device's (gsync_settle) */
    rec_kv_str(w, "clock", j->backend && j->backend->transport.settle
                               ? "device (events on the GPU's streams), seconds from the step's start, rank 0"
                               : "seconds from the step's start, rank 0");
    rec_key(w, "tensors");
    rec_seq_begin(w);
    for (int i = 0; i < r->ntensors; i++) {
        rec_flow_map_begin(w);
        rec_kv_str(w, "name", r->tensors[i].name);
        rec_kv_int(w, "bytes", r->tensors[i].count * (int64_t)sizeof(float));
        rec_kv_int(w, "group", r->tensor_group[i]);
        rec_map_end(w);
    }
    rec_seq_end(w);
    rec_key(w, "group_list");
    rec_seq_begin(w);
    for (int k = 0; k < r->ngroups; k++) {
        rec_flow_map_begin(w);
        rec_kv_int(w, "group", k);
        rec_kv_str(w, "label", r->group_label[k]);
        rec_kv_int(w, "bytes", r->group_bytes[k]);
        rec_kv_int(w, "reductions", r->group_reductions[k]);
        rec_map_end(w);
    }
    rec_seq_end(w);
    rec_key(w, "steps");
    rec_map_begin(w);
    rec_kv_doubles(w, "exposed_s", r->exposed_s, (size_t)r->steps);
    rec_kv_doubles(w, "negotiation_s", r->negotiation_s, (size_t)r->steps);
    rec_kv_doubles(w, "reduce_s", r->comm_s, (size_t)r->steps);
    rec_kv_doubles(w, "backward_end_s", r->backward_end_s, (size_t)r->steps);
    int64_t *cyc = XMALLOC((size_t)r->steps * sizeof *cyc, "cycles");
    for (int i = 0; i < r->steps; i++) cyc[i] = r->cycles[i];
    rec_kv_ints(w, "cycles", cyc, (size_t)r->steps);
    free(cyc);
    rec_map_end(w);
    /* [ready, start, end] per group, one list per timed step */
    rec_key(w, "timeline");
    rec_seq_begin(w);
    for (int i = 0; i < r->steps; i++) {
        rec_flow_seq_begin(w);
        for (int k = 0; k < r->ngroups; k++) {
            const double *x = r->timeline + ((size_t)i * r->ngroups + k) * 3;
            rec_flow_seq_begin(w);
            for (int e = 0; e < 3; e++) rec_double(w, x[e]);
            rec_seq_end(w);
        }
        rec_seq_end(w);
    }
    rec_seq_end(w);
    rec_map_end(w);
}

/* docs/record.md "update_exchange": the optimizer, how the ranks agree on
 * its update, and per timed step what that cost (docs/lioncub.md). */
static void write_update(const train_job *j, const train_result *r, rec_t *w)
{
    const runcfg_t *c = j->run;
    const train_update *u = &r->up;
    size_t n = (size_t)r->steps;
    int lion = !strcmp(c->optimizer, "lion");
    rec_key(w, "update_exchange");
    rec_map_begin(w);
    rec_kv_str(w, "optimizer", c->optimizer);
    rec_kv_str(w, "exchange", c->exchange);
    rec_kv_int(w, "bits_per_weight", u->bits);
    rec_kv_str(w, "momentum_sync", lion ? c->momentum_sync : "none");
    rec_kv_int(w, "momentum_sync_every", c->momentum_sync_every);
    rec_kv_double(w, "momentum_sync_threshold", c->momentum_sync_threshold);
    rec_kv_str(w, "wire", "bytes each rank sends per step in a bandwidth-optimal algorithm: "
                          "2(n-1)/n of the fp32 gradients for exchange grad; (n-1) chunks in each "
                          "all-to-all, reduce-scatter and all-gather of packed signs");
    rec_key(w, "steps");
    rec_map_begin(w);
    rec_kv_doubles(w, "exchange_s", r->comm_s, n);
    rec_kv_doubles(w, "exposed_s", r->exposed_s, n);
    rec_kv_doubles(w, "sign_kernel_s", u->kernel_s, n);
    rec_kv_doubles(w, "collective_s", u->collective_s, n);
    rec_kv_ints(w, "wire_bytes", u->wire_bytes, n);
    rec_kv_ints(w, "momentum_sync_bytes", u->sync_bytes, n);
    int64_t *sy = XMALLOC((n ? n : 1) * sizeof *sy, "synced layers");
    for (size_t i = 0; i < n; i++) sy[i] = u->synced[i];
    rec_kv_ints(w, "momentum_synced_layers", sy, n);
    free(sy);
    rec_kv_doubles(w, "disagreement", u->disagreement, n);
    rec_map_end(w);
    rec_map_end(w);
}

void trec_write_results(const train_job *j, const train_result *r, rec_t *w)
{
    derived_t d;
    derive(j, r, &d);
    rec_key(w, "timing");
    rec_map_begin(w);
    rec_kv_str(w, "combine", "max over ranks");
    rec_kv_str(w, "sync", "barrier before each step; device synchronised before the clock stops");
    rec_kv_doubles(w, "warmup_s", r->warm_s, (size_t)r->warmup);
    rec_kv_doubles(w, "step_s", r->step_s, (size_t)r->steps);
    rec_kv_doubles(w, "data_s", r->data_s, (size_t)r->steps);
    rec_kv_doubles(w, "allreduce_s", r->comm_s, (size_t)r->steps);
    rec_kv_double(w, "samples_per_step", d.samples_per_step);
    if (r->rank_step_s) {
        /* the spread over ranks, for the model's straggler term (docs/model.md) */
        rec_kv_str(w, "per_rank", "one list per timed step, one value per rank: rank_step_s its own "
                                  "step (barrier to device sync), rank_compute_s its forward + backward");
        rec_key(w, "rank_step_s");
        rec_seq_begin(w);
        for (int i = 0; i < r->steps; i++)
            doubles_row(w, r->rank_step_s + (size_t)i * r->nranks, (size_t)r->nranks);
        rec_seq_end(w);
        rec_key(w, "rank_compute_s");
        rec_seq_begin(w);
        for (int i = 0; i < r->steps; i++)
            doubles_row(w, r->rank_compute_s + (size_t)i * r->nranks, (size_t)r->nranks);
        rec_seq_end(w);
    }
    rec_map_end(w);

    rec_key(w, "summary");
    rec_map_begin(w);
    rec_kv_double(w, "median_s", d.st.median);
    rec_kv_double(w, "ci_lo_s", d.st.ci_lo);
    rec_kv_double(w, "ci_hi_s", d.st.ci_hi);
    rec_kv_bool(w, "ci_exact", d.st.ci_exact);
    rec_kv_double(w, "min_s", d.st.min);
    rec_kv_double(w, "max_s", d.st.max);
    rec_kv_double(w, "samples_per_s", d.samples_per_s);
    rec_map_end(w);

    rec_key(w, "flops");
    rec_map_begin(w);
    rec_kv_int(w, "executed_per_step", d.per_step);
    rec_kv_int(w, "executed_per_rank_step", d.per_rank_step);
    rec_kv_int(w, "executed_per_sample", d.per_sample);
    rec_kv_int(w, "convention_per_sample", d.conv_per_sample);
    rec_kv_int(w, "convention_per_step", (int64_t)(d.conv_per_sample * d.samples_per_step));
    rec_kv_int(w, "forward_conv_per_sample", d.fwd_per_sample);
    rec_kv_double(w, "sustained_flops", d.sustained);
    rec_kv_double(w, "peak_flops", d.peak);
    rec_map_end(w);

    write_reduction(j, r, w);
    write_update(j, r, w);
    rec_kv_int(w, "kernels_steps", r->steps);
    write_kernels(w, &r->kernels, j->backend);

    if (r->power.nodes)
        tpower_write(&r->power, d.samples_per_step * r->steps, (double)d.per_step * r->steps,
                     (double)d.conv_per_sample * d.samples_per_step * r->steps, w);

    rec_key(w, "loss");
    rec_map_begin(w);
    rec_kv_doubles(w, "warmup", r->warm_loss, (size_t)r->warmup);
    rec_kv_doubles(w, "steps", r->loss, (size_t)r->steps);
    rec_map_end(w);
    ttt_write_record(&r->ttt, w);
    if (j->ckpt) ckpt_write_record(j->ckpt, &r->ckpt, w);

    rec_key(w, "memory");
    rec_map_begin(w);
    rec_kv_int(w, "rank0_bytes", (int64_t)r->bytes);
    rec_map_end(w);

    /* K trainers: each one's rates and the tournament (ensemble.h) */
    if (r->ens.trainers > 1) {
        net_facts f;
        train_facts(j->net, j->model, &f);
        ens_write_record(&r->ens, j->run->batch, train_replica_ranks(&f), w);
    }
    rec_key(w, "validation");
    rec_seq_begin(w);
    for (int i = 0; i < r->nchecks; i++)
        rec_validation(w, r->checks[i].check, r->checks[i].outcome, r->checks[i].decides,
                       r->checks[i].detail);
    rec_seq_end(w);
}

void trec_write_run(const train_job *j, rec_t *w)
{
    rec_kv_str(w, "kernels_impl", j->run->kernels);
    rec_kv_int(w, "threads_per_rank", j->backend ? j->backend->threads : 0);
    /* the instruction set oneDNN dispatched the fast set's kernels to */
    if (j->backend && j->backend->fast) rec_kv_str(w, "cpu_isa", kern_fast_cpu_isa());
    if (j->backend) backend_write_record(j->backend, w);
}

int trec_write(const char *path, const train_job *j, const train_result *r, const trec_meta_t *m,
               char *err, size_t errlen)
{
    char why[320] = "validation failed";
    const char *error = m->error;
    if (!error && r && r->invalid) {
        for (int i = 0; i < r->nchecks; i++)
            if (r->checks[i].decides && !strcmp(r->checks[i].outcome, "fail"))
                snprintf(why, sizeof why, "%s: %s", r->checks[i].check, r->checks[i].detail);
        error = why;
    }
    rec_header_t h = {
        .benchmark = m->benchmark,
        .status = m->error ? "failed" : (r && r->invalid ? "invalid" : "ok"),
        .error = error, .started_utc = m->started_utc, .argc = m->argc, .argv = m->argv,
        .system = m->system, .config = m->config, .config_arg = m->config_arg,
        .ranks = j->comm->size, .gpus = j->backend ? j->backend->gpus : 0,
        .backend = j->run->backend, .precision = j->run->precision,
    };
    rec_t *w = rec_header_open(path, &h, err, errlen);
    if (!w) return -1;
    trec_write_run(j, w);
    j->net->write_record(j->model, w);
    if (r) trec_write_results(j, r, w);
    return rec_header_close(w, err, errlen);
}

void trec_print_summary(const train_job *j, const train_result *r, const sysinfo_t *si,
                        const char *program, const char *title, const char *record_path)
{
    const runcfg_t *c = j->run;
    const backend_t *be = j->backend;
    derived_t d;
    derive(j, r, &d);
    char a[32], b[32], e[32], f[32], g[32];
    trec_si((double)d.per_sample, a, sizeof a);
    trec_si((double)d.conv_per_sample, b, sizeof b);
    trec_si(d.sustained, e, sizeof e);
    trec_si(d.peak, f, sizeof f);
    trec_si(d.sustained / (be->gpus ? be->gpus : j->comm->size), g, sizeof g);
    printf("%s: %s, %d rank%s x batch %d, %s/%s %s, %d timed steps (+%d warm-up)\n", program,
           title, j->comm->size, j->comm->size > 1 ? "s" : "", c->batch, c->backend, c->kernels,
           c->precision, r->steps, r->warmup);
    printf("  step time   median %.4g s, 95%% CI [%.4g, %.4g]%s, min %.4g, max %.4g (max over ranks)\n",
           d.st.median, d.st.ci_lo, d.st.ci_hi, d.st.ci_exact ? "" : " (n <= 5: min..max)",
           d.st.min, d.st.max);
    printf("  throughput  %.4g samples/s\n", d.samples_per_s);
    printf("  FLOPs       executed %sFLOP per sample, convention (3 x forward conv) %sFLOP\n", a, b);
    printf("  FLOP/s      sustained %sFLOP/s (%sFLOP/s per %s), peak %sFLOP/s\n", e, g,
           be->gpus ? "GPU" : "rank", f);
    if (be->peak_flops > 0) {
        char pk[32];
        double per_gpu = d.sustained / (be->gpus ? be->gpus : 1);
        trec_si(be->peak_flops, pk, sizeof pk);
        printf("  device      %s: measured %s GEMM peak %sFLOP/s; sustained per GPU = %.1f%% of it\n",
               si->gpu_model, c->precision, pk, 100.0 * per_gpu / be->peak_flops);
    }
    if (r->power.nodes)
        tpower_print(&r->power, d.samples_per_step * r->steps, (double)d.per_step * r->steps, stdout);
    printf("  loss        %.5g -> %.5g\n", r->loss[0], r->loss[r->steps - 1]);
    const ttt_result *q = &r->ttt;
    if (q->enabled && q->n > 0) {
        if (q->reached)
            printf("  quality     target %.5g reached after %d steps, %lld samples (%.3g epochs), "
                   "time to train %.4g s (evaluations %.3g s)\n",
                   q->target_loss, q->step_reached, (long long)q->samples_to_target,
                   q->epochs_to_target, q->time_to_train_s, q->eval_s);
        else
            printf("  quality     validation loss %.5g after %d steps%s, %.4g s\n",
                   q->loss[q->n - 1], q->steps_done,
                   q->target_loss > 0 ? ": target not reached" : "", q->time_to_train_s);
        if (q->has_mae)
            printf("  eval_error  validation MAE %.5g after step %d (MLLOG eval_error)\n",
                   q->mae[q->n - 1], q->step[q->n - 1]);
    }
    for (int i = 0; i < r->nchecks; i++)
        printf("  check       %-32s %s%s\n", r->checks[i].check, r->checks[i].outcome,
               r->checks[i].decides ? "" : " (informative)");
    if (record_path) printf("  record      %s\n", record_path);
    fflush(stdout);
}
