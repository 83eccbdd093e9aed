/* results.yaml written (results.h): the document, its run block and metric
 * rows; the entries that repeat (launches, scales, collectives, checks) are
 * results_blocks.c's. */
#define _GNU_SOURCE
#include "harness/report/results.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/checks/rowkeys.h"
#include "harness/report/results_export.h"
#include "harness/report/results_impl.h"
#include "harness/report/runctx.h"
#include "harness/util/version.h"

void results_kv_num(rec_t *w, const char *k, double v)
{
    rec_key(w, k);
    if (isfinite(v)) rec_double(w, v);
    else rec_null(w);
}

/* a metric row's or a check's scale: null for one of a configuration, not per scale */
void results_kv_scale(rec_t *w, int scale)
{
    rec_key(w, "scale");
    if (scale > 0) rec_int(w, scale);
    else rec_null(w);
}

/* a row key as its type: bytes an integer, inplace a boolean, the others text */
static void kv_rowkey(rec_t *w, const kv_t *k)
{
    long long i;
    int b, t = rowkey_typed(rowkey_find(k->key), k->value, &i, &b);
    rec_key(w, k->key);
    if (t == 1) rec_int(w, i);
    else if (t == 2) rec_bool(w, b);
    else rec_str(w, k->value);
}

void results_copy_node(rec_t *w, const ytnode *n)
{
    if (!n || yt_is_null(n)) {
        rec_null(w);
        return;
    }
    if (n->kind == YT_SCALAR) {
        long long i;
        double d;
        if (n->plain && !opt_parse_int(n->str, &i)) rec_int(w, i);
        else if (n->plain && !opt_parse_double(n->str, &d)) rec_double(w, d);
        else if (n->plain && (!strcmp(n->str, "true") || !strcmp(n->str, "false")))
            rec_bool(w, n->str[0] == 't');
        else rec_str(w, n->str);
        return;
    }
    if (n->kind == YT_SEQ) {
        int flat = 1;
        for (size_t i = 0; i < n->n; i++) flat &= n->items[i]->kind == YT_SCALAR;
        if (flat) rec_flow_seq_begin(w);
        else rec_seq_begin(w);
        for (size_t i = 0; i < n->n; i++) results_copy_node(w, n->items[i]);
        rec_seq_end(w);
        return;
    }
    rec_map_begin(w);
    for (size_t i = 0; i < n->n; i++) {
        const ytnode *k = yt_key(n, i);
        rec_key(w, k->kind == YT_SCALAR ? k->str : "?");
        results_copy_node(w, yt_val(n, i));
    }
    rec_map_end(w);
}

int results_write(const runctx_t *c, const char *path, char *err, size_t errlen)
{
    const runinfo_t *ri = &c->ri;
    const analysis_t *an = &c->an;
    const mtable_t *t = &c->t;
    const checks_t *ck = &c->ck;
    rec_t *w = rec_open(path, err, errlen);
    if (!w) return -1;
    int nok, nfail, nint, nnot;
    outcome_count(ri->o, ri->no, &nok, &nfail, &nint, &nnot);
    rec_map_begin(w);
    rec_kv_int(w, "exadl_results", RESULTS_FORMAT_VERSION);
    rec_key(w, "run");
    rec_map_begin(w);
    rec_kv_str(w, "name", ri->name);
    rec_kv_str(w, "suite", ri->suite);
    rec_kv_str(w, "suite_file", ri->suite_file);
    rec_kv_str(w, "started_utc", ri->started_utc);
    rec_kv_str(w, "finished_utc", ri->finished_utc);
    rec_kv_str(w, "host", ri->host);
    rec_kv_str(w, "exadl_host", ri->exadl_host);
    rec_kv_str(w, "machine", ri->machine);
    rec_kv_str(w, "exadl_version", exadl_version());
    rec_kv_str(w, "exadl_commit", exadl_commit());
    rec_kv_str(w, "command", ri->command);
    ck_tally_t tl = checks_tally(ck);
    rec_kv_str(w, "status", results_status(c));
    rec_kv_str(w, "stopped_by", ri->stopped_by);
    rec_kv_int(w, "exit_status", ri->exit_status);
    rec_kv_int(w, "launches", (int64_t)ri->no);
    rec_kv_int(w, "launches_ok", nok);
    rec_kv_int(w, "launches_failed", nfail);
    rec_kv_int(w, "launches_interrupted", nint);
    rec_kv_int(w, "launches_not_run", nnot);
    rec_kv_int(w, "launches_kept", ri->kept);
    int busy = 0;
    for (size_t i = 0; i < ri->no; i++) busy += ri->o[i].intf.verdict == INTF_BUSY;
    rec_kv_int(w, "launches_busy", busy); /* measured while the machine was busy */
    rec_kv_str(w, "preflight", ri->preflight);
    /* checks of what ran apart from --describe counts of configurations not run */
    rec_kv_int(w, "checks_passed", tl.pass);
    rec_kv_int(w, "checks_failed", tl.fail);
    rec_kv_int(w, "checks_not_applicable", tl.na);
    rec_kv_int(w, "describe_checks_passed", tl.described_pass);
    rec_kv_int(w, "describe_checks_failed", tl.described_fail);
    rec_kv_int(w, "checks_reference_errors", tl.ref_errors);
    rec_key(w, "history");
    rec_seq_begin(w);
    for (size_t i = 0; i < ri->nhistory; i++) rec_str(w, ri->history[i]);
    rec_seq_end(w);
    rec_map_end(w);
    results_write_slurm(w, ri);
    rec_key(w, "harness_cost");
    rec_map_begin(w);
    results_kv_num(w, "wall_s", ri->wall_s);
    results_kv_num(w, "launches_s", ri->launches_s);
    results_kv_num(w, "overhead_per_launch_s",
           ri->no ? (ri->wall_s - ri->launches_s - ri->probe_s - ri->analysis_s - ri->plots_s -
                     ri->report_s) /
                        (double)ri->no
                  : NAN);
    results_kv_num(w, "peak_probe_s", ri->probe_s);
    results_kv_num(w, "analysis_s", ri->analysis_s);
    results_kv_num(w, "plots_s", ri->plots_s);
    results_kv_num(w, "report_s", ri->report_s);
    rec_map_end(w);
    rec_kv_str(w, "statistics",
               "step times are the max over ranks (as the benchmark records them); warm-up "
               "steps excluded; the timed steps of all repetitions at a scale are pooled; "
               "median with a non-parametric 95% CI (Hoefler & Belli: ranks floor((n-1.96 "
               "sqrt n)/2), ceil(1+(n+1.96 sqrt n)/2); min..max for n <= 5); per-launch "
               "medians kept; rates never averaged arithmetically");
    rec_key(w, "device_peak");
    rec_flow_map_begin(w);
    results_kv_num(w, "flops_per_device", an->device_peak);
    rec_kv_str(w, "source", an->peak_source);
    if (an->any_cpu_bf16) { /* fp32-only runs keep the block they always had */
        results_kv_num(w, "bf16_flops_per_core", an->bf16.per_core);
        if (an->bf16.isa) rec_kv_str(w, "bf16_isa", an->bf16.isa);
        rec_kv_str(w, "bf16_source", an->bf16.source);
        rec_key(w, "precision"); /* per entry: which peak its fraction_of_peak divides by */
        rec_flow_map_begin(w);
        for (size_t i = 0; i < an->nb; i++)
            if (an->b[i].precision) rec_kv_str(w, an->b[i].name, an->b[i].precision);
        rec_map_end(w);
    }
    rec_map_end(w);
    rec_key(w, "system");
    results_copy_node(w, an->first_ok ? an->first_ok->system : NULL);
    rec_key(w, "references");
    rec_flow_seq_begin(w);
    for (size_t i = 0; i < ri->nreferences; i++) rec_str(w, ri->references[i]);
    rec_seq_end(w);
    if (ri->plots_note) rec_kv_str(w, "plots_note", ri->plots_note);
    rec_key(w, "skipped");
    rec_seq_begin(w);
    for (size_t i = 0; i < ri->nskipped; i++) {
        rec_flow_map_begin(w);
        rec_kv_str(w, "benchmark", ri->skipped[i].name);
        rec_kv_str(w, "reason", ri->skipped[i].reason);
        rec_map_end(w);
    }
    rec_seq_end(w);
    rec_key(w, "launches");
    rec_seq_begin(w);
    for (size_t i = 0; i < ri->no; i++) results_write_launch(w, &ri->o[i]);
    rec_seq_end(w);
    rec_key(w, "benchmarks");
    rec_seq_begin(w);
    for (size_t i = 0; i < an->nb; i++) {
        const bres_t *b = &an->b[i];
        rec_map_begin(w);
        rec_kv_str(w, "name", b->name);
        rec_kv_str(w, "program", b->program);
        rec_kv_str(w, "kind", b->kind);
        rec_kv_str(w, "scaling", scaling_name(b->scaling));
        rec_kv_int(w, "launches", b->nlaunch);
        rec_kv_int(w, "failed", b->nfailed);
        results_write_params(w, "config", b->params, b->nparams);
        rec_key(w, "scales");
        rec_seq_begin(w);
        for (size_t j = 0; j < b->ns; j++) results_write_scale(w, &b->s[j]);
        rec_seq_end(w);
        if (b->nc) {
            rec_key(w, "collectives");
            rec_seq_begin(w);
            for (size_t j = 0; j < b->nc; j++) results_write_coll(w, &b->c[j]);
            rec_seq_end(w);
        }
        rec_map_end(w);
    }
    rec_seq_end(w);
    rec_key(w, "metrics");
    rec_seq_begin(w);
    for (size_t i = 0; i < t->n; i++) {
        const metric_t *m = &t->m[i];
        rec_flow_map_begin(w);
        rec_kv_str(w, "benchmark", m->bench);
        results_kv_scale(w, m->scale);
        rec_kv_str(w, "metric", m->metric);
        results_kv_num(w, "value", m->value);
        results_kv_num(w, "ci_lo", m->lo);
        results_kv_num(w, "ci_hi", m->hi);
        results_kv_num(w, "n", m->n);
        rec_kv_str(w, "unit", m->unit);
        /* the keys that tell rows apart, typed (checks/rowkeys.h); the benchmark's
         * config is listed once above */
        const bres_t *b = NULL;
        for (size_t k = 0; k < an->nb && !b; k++)
            if (!strcmp(an->b[k].name, m->bench)) b = &an->b[k];
        kv_t rk[ROWKEYS_MAX];
        size_t nrk = rowkeys_of(m, b ? b->params : NULL, b ? b->nparams : 0, rk);
        if (nrk) {
            rec_key(w, "row");
            rec_flow_map_begin(w);
            for (size_t k = 0; k < nrk; k++) kv_rowkey(w, &rk[k]);
            rec_map_end(w);
        }
        rec_map_end(w);
    }
    rec_seq_end(w);
    results_write_checks(w, ck);
    rec_map_end(w);
    return rec_close(w, err, errlen);
}
