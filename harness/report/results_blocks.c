/* results_blocks: the entries of results.yaml that repeat (results_impl.h):
 * a launch, the Slurm allocation, a benchmark's scales, collectives and
 * config, the checks.  results.c writes the document around them. */
#define _GNU_SOURCE
#include "harness/report/results_impl.h"

#include <math.h>

static void kv_count(rec_t *w, const char *k, double v)
{
    rec_key(w, k);
    if (isfinite(v) && v == floor(v) && fabs(v) < 9e18) rec_int(w, (int64_t)v);
    else if (isfinite(v)) rec_double(w, v);
    else rec_null(w);
}

static void kv_ci(rec_t *w, const char *k, double v, double lo, double hi)
{
    rec_key(w, k);
    rec_flow_map_begin(w);
    results_kv_num(w, "value", v);
    results_kv_num(w, "ci_lo", lo);
    results_kv_num(w, "ci_hi", hi);
    rec_map_end(w);
}

void results_write_launch(rec_t *w, const outcome_t *o)
{
    rec_map_begin(w);
    rec_kv_str(w, "id", o->id);
    rec_kv_str(w, "benchmark", o->bench);
    rec_kv_int(w, "scale", o->scale);
    rec_kv_int(w, "nodes", o->nodes);
    rec_kv_int(w, "repetition", o->rep);
    rec_kv_str(w, "status", lstatus_name(o->status));
    rec_kv_str(w, "how", o->why);
    rec_kv_str(w, "error", o->error);
    results_kv_num(w, "elapsed_s", o->elapsed_s);
    rec_kv_str(w, "record", o->rec ? o->record_path : NULL);
    rec_kv_str(w, "log", o->log_path);
    rec_kv_str(w, "command", o->command);
    rec_kv_str(w, "step", o->step);
    rec_kv_str(w, "hosts", o->hosts);
    if (o->affinity) rec_kv_str(w, "affinity", o->affinity);
    if (o->status != LS_OK && o->log_tail) rec_kv_str(w, "log_tail", o->log_tail);
    intf_write(w, "interference", &o->intf); /* absent: not recorded (an older exadl) */
    rec_map_end(w);
}

/* the allocation: job, partition, nodes, time limit, srun's --mpi; null
 * outside Slurm */
void results_write_slurm(rec_t *w, const runinfo_t *ri)
{
    rec_key(w, "slurm");
    const slurm_job_t *j = ri->slurm;
    if (!j) {
        rec_null(w);
        return;
    }
    rec_map_begin(w);
    rec_kv_str(w, "job_id", j->id);
    rec_kv_str(w, "job_name", j->name);
    rec_kv_str(w, "cluster", j->cluster);
    rec_kv_str(w, "partition", j->partition);
    rec_kv_str(w, "account", j->account);
    rec_kv_str(w, "qos", j->qos);
    rec_kv_str(w, "nodelist", j->nodelist);
    rec_kv_int(w, "nodes", j->nodes);
    rec_kv_int(w, "cpus", j->cpus);
    rec_kv_int(w, "tasks", j->tasks);
    rec_kv_str(w, "time_limit", j->time_limit);
    rec_kv_str(w, "start_time", j->start);
    rec_kv_str(w, "end_time", j->end);
    rec_kv_str(w, "state_at_start", j->state);
    rec_kv_str(w, "ranks_from", ri->slurm_ranks);
    rec_kv_str(w, "srun_mpi", ri->launcher_mpi);
    rec_kv_str(w, "srun_mpi_chosen_by", ri->launcher_mpi_source);
    rec_key(w, "jobs");
    rec_flow_seq_begin(w);
    for (size_t i = 0; i < ri->nslurm_jobs; i++) rec_str(w, ri->slurm_jobs[i]);
    rec_seq_end(w);
    rec_map_end(w);
}

void results_write_scale(rec_t *w, const sres_t *s)
{
    rec_map_begin(w);
    rec_kv_int(w, "scale", s->scale);
    rec_kv_int(w, "gpus", s->gpus);
    rec_kv_int(w, "devices", s->devices);
    rec_kv_int(w, "launches", s->nlaunch);
    rec_kv_int(w, "ok", s->nok);
    rec_kv_int(w, "samples", (int64_t)s->n);
    if (s->n) {
        rec_key(w, "step_s");
        rec_flow_map_begin(w);
        results_kv_num(w, "median", s->st.median);
        results_kv_num(w, "ci_lo", s->st.ci_lo);
        results_kv_num(w, "ci_hi", s->st.ci_hi);
        results_kv_num(w, "min", s->st.min);
        results_kv_num(w, "max", s->st.max);
        rec_kv_bool(w, "ci_exact", s->st.ci_exact);
        rec_map_end(w);
        rec_kv_doubles(w, "launch_medians_s", s->launch_median, s->nlm);
        results_kv_num(w, "samples_per_step", s->samples_per_step);
        kv_ci(w, "throughput_samples_per_s", s->thr, s->thr_lo, s->thr_hi);
        kv_ci(w, "efficiency", s->eff, s->eff_lo, s->eff_hi);
        results_kv_num(w, "executed_flops_per_step", s->exec_per_step);
        results_kv_num(w, "sustained_flops", s->sustained);
        results_kv_num(w, "peak_flops", s->peak);
        results_kv_num(w, "convention_sustained_flops", s->conv_sustained);
        results_kv_num(w, "convention_peak_flops", s->conv_peak);
        results_kv_num(w, "fraction_of_peak", s->frac_peak);
    }
    if (s->nkinds) {
        rec_key(w, "kernels_per_step");
        rec_seq_begin(w);
        double tot = 0;
        for (size_t k = 0; k < s->nkinds; k++) tot += s->kinds[k].time_s;
        for (size_t k = 0; k < s->nkinds; k++) {
            const kkind_t *x = &s->kinds[k];
            rec_flow_map_begin(w);
            rec_kv_str(w, "kernel", x->kind);
            results_kv_num(w, "calls", x->calls);
            results_kv_num(w, "flops", x->flops);
            results_kv_num(w, "time_s", x->time_s);
            results_kv_num(w, "share", tot > 0 ? x->time_s / tot : NAN);
            rec_map_end(w);
        }
        rec_seq_end(w);
    }
    rec_map_end(w);
}

void results_write_coll(rec_t *w, const cres_t *c)
{
    rec_flow_map_begin(w);
    rec_kv_int(w, "scale", c->scale);
    rec_kv_str(w, "op", c->op);
    rec_kv_str(w, "dtype", c->dtype);
    rec_kv_str(w, "redop", c->redop);
    rec_kv_bool(w, "inplace", c->inplace);
    kv_count(w, "bytes", c->bytes); /* integers, as in the record */
    kv_count(w, "count", c->count);
    rec_kv_int(w, "samples", (int64_t)c->st.n);
    results_kv_num(w, "median_s", c->st.median);
    results_kv_num(w, "ci_lo_s", c->st.ci_lo);
    results_kv_num(w, "ci_hi_s", c->st.ci_hi);
    results_kv_num(w, "min_s", c->st.min);
    results_kv_num(w, "max_s", c->st.max);
    results_kv_num(w, "algbw_GBps", c->algbw);
    results_kv_num(w, "busbw_GBps", c->busbw);
    results_kv_num(w, "latency_us", c->latency_us);
    rec_kv_int(w, "wrong", c->wrong);
    rec_map_end(w);
}

void results_write_params(rec_t *w, const char *key, const kv_t *p, size_t n)
{
    rec_key(w, key);
    rec_flow_map_begin(w);
    for (size_t i = 0; i < n; i++) {
        rec_key(w, p[i].key);
        long long iv;
        double d;
        if (p[i].value && !opt_parse_int(p[i].value, &iv)) rec_int(w, iv);
        else if (p[i].value && !opt_parse_double(p[i].value, &d) && isfinite(d)) rec_double(w, d);
        else rec_str(w, p[i].value);
    }
    rec_map_end(w);
}

void results_write_checks(rec_t *w, const checks_t *ck)
{
    rec_key(w, "checks");
    rec_seq_begin(w);
    for (size_t i = 0; i < ck->n; i++) {
        const check_t *c = &ck->c[i];
        rec_map_begin(w);
        rec_kv_str(w, "reference", c->reference);
        rec_kv_str(w, "reference_file", c->reference_file);
        rec_kv_str(w, "kind", c->kind);
        rec_kv_str(w, "metric", c->metric);
        rec_kv_str(w, "where", c->where);
        rec_kv_str(w, "benchmark", c->bench);
        results_kv_scale(w, c->scale);
        if (c->row) rec_kv_str(w, "row_keys", c->row); /* text: the row it was measured on */
        results_kv_num(w, "measured", c->measured);
        results_kv_num(w, "expected", c->expected);
        results_kv_num(w, "lower_bound", c->lo);
        results_kv_num(w, "upper_bound", c->hi);
        rec_kv_str(w, "unit", c->unit);
        rec_kv_str(w, "outcome", ck_name(c->outcome));
        rec_kv_str(w, "source", c->source);
        rec_kv_str(w, "detail", c->detail);
        rec_map_end(w);
    }
    rec_seq_end(w);
}
