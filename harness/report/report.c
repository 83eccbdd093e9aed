#define _GNU_SOURCE
#include "harness/report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/report/summary.h"

static void si(sb_t *b, double v, const char *unit)
{
    char buf[48];
    fmt_si(v, unit, buf, sizeof buf);
    sb_puts(b, buf);
}

static void g(sb_t *b, double v)
{
    if (isfinite(v)) sb_printf(b, "%.4g", v);
    else sb_puts(b, "n/a");
}

static const char *sys_str(const ytnode *sys, const char *a, const char *b)
{
    const ytnode *n = yt_get(sys, a);
    if (b) n = yt_get(n, b);
    return n && n->kind == YT_SCALAR && !yt_is_null(n) ? n->str : "n/a";
}

static void system_section(sb_t *o, const analysis_t *an)
{
    sb_puts(o, "\n## System\n\n");
    const ytnode *s = an->first_ok ? an->first_ok->system : NULL;
    if (!s) {
        sb_puts(o, "No launch wrote a usable record, so nothing is known about the system "
                   "beyond the host name; `exadl sysinfo` prints it.\n");
        return;
    }
    sb_puts(o, "As rank 0 of the first successful launch recorded it.\n\n| | |\n|---|---|\n");
    const ytnode *h = yt_get(s, "hosts");
    sb_puts(o, "| hosts | ");
    for (size_t i = 0; h && h->kind == YT_SEQ && i < h->n && i < 16; i++)
        sb_printf(o, "%s%s", i ? ", " : "", h->items[i]->kind == YT_SCALAR ? h->items[i]->str : "?");
    if (h && h->kind == YT_SEQ && h->n > 16) sb_printf(o, " ... (%zu hosts)", h->n);
    sb_puts(o, " |\n");
    sb_printf(o, "| CPU | %s, %s cores |\n", sys_str(s, "cpu", "model"), sys_str(s, "cpu", "cores"));
    sb_printf(o, "| OS | %s |\n", sys_str(s, "os", NULL));
    sb_printf(o, "| GPU | %s x %s (driver %s, compute capability %s) |\n",
              sys_str(s, "gpu", "model"), sys_str(s, "gpu", "count"), sys_str(s, "gpu", "driver"),
              sys_str(s, "gpu", "compute_capability"));
    const ytnode *v = yt_get(s, "versions");
    for (size_t i = 0; v && v->kind == YT_MAP && i < v->n; i++) {
        const ytnode *k = yt_key(v, i), *x = yt_val(v, i);
        if (k->kind == YT_SCALAR && x->kind == YT_SCALAR && !yt_is_null(x))
            sb_printf(o, "| %s | %s |\n", k->str, x->str);
    }
}

static void plot_link(sb_t *o, const plots_t *pl, const char *name)
{
    for (size_t i = 0; i < pl->n; i++)
        if (!strcmp(pl->p[i].name, name)) {
            if (pl->p[i].drawn)
                sb_printf(o, "\n![%s](plots/%s.png)\n\n(SVG: [plots/%s.svg](plots/%s.svg); data "
                             "and script: plots/%s.dat, plots/%s.gp)\n",
                          pl->p[i].title, name, name, name, name, name);
            else
                sb_printf(o, "\n(plot %s not drawn; data and script: plots/%s.dat, "
                             "plots/%s.gp)\n", name, name, name);
        }
}

static void stemdl_section(sb_t *o, const bres_t *b)
{
    sb_puts(o, "\n### Step time, throughput, scaling\n\n"
               "| scale | devices | launches ok | timed steps | median step | 95% CI | min | max "
               "| per-launch medians | samples/s [95% CI] | efficiency [95% CI] |\n"
               "|---:|---:|---:|---:|---:|---|---:|---:|---|---|---|\n");
    for (size_t i = 0; i < b->ns; i++) {
        const sres_t *s = &b->s[i];
        sb_printf(o, "| %d | %d | %d/%d | %zu | ", s->scale, s->devices, s->nok, s->nlaunch, s->n);
        if (!s->n) {
            sb_puts(o, "- | - | - | - | - | - | - |\n");
            continue;
        }
        sb_printf(o, "%.4g s | [%.4g, %.4g]%s | %.4g | %.4g | ", s->st.median, s->st.ci_lo,
                  s->st.ci_hi, s->st.ci_exact ? "" : " (min..max, n<=5)", s->st.min, s->st.max);
        for (size_t k = 0; k < s->nlm; k++) sb_printf(o, "%s%.4g", k ? ", " : "", s->launch_median[k]);
        sb_puts(o, " | ");
        g(o, s->thr);
        sb_puts(o, " ["), g(o, s->thr_lo), sb_puts(o, ", "), g(o, s->thr_hi), sb_puts(o, "] | ");
        g(o, s->eff);
        sb_puts(o, " ["), g(o, s->eff_lo), sb_puts(o, ", "), g(o, s->eff_hi), sb_puts(o, "] |\n");
    }
    sb_printf(o, "\nEfficiency is %s scaling against the smallest scale run (n=%d): %s.\n",
              scaling_name(b->scaling), b->ns ? b->s[0].scale : 0,
              b->scaling == SCALING_WEAK ? "E(N) = X(N) N0 / (N X(N0)), X the samples/s at a "
                                           "fixed batch per rank"
                                         : "E(N) = T(N0) N0 / (N T(N)), T the median step time "
                                           "at a fixed global batch");
    sb_puts(o, "\n### FLOP rates (executed FLOPs: every kernel of a step)\n\n"
               "| scale | FLOP/step | sustained | peak | sustained/device | peak/device "
               "| convention sustained | fraction of device peak |\n"
               "|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < b->ns; i++) {
        const sres_t *s = &b->s[i];
        if (!s->n) continue;
        double d = s->devices > 0 ? s->devices : s->scale;
        sb_printf(o, "| %d | ", s->scale);
        si(o, s->exec_per_step, "FLOP"), sb_puts(o, " | ");
        si(o, s->sustained, "FLOP/s"), sb_puts(o, " | ");
        si(o, s->peak, "FLOP/s"), sb_puts(o, " | ");
        si(o, s->sustained / d, "FLOP/s"), sb_puts(o, " | ");
        si(o, s->peak / d, "FLOP/s"), sb_puts(o, " | ");
        si(o, s->conv_sustained, "FLOP/s"), sb_puts(o, " | ");
        if (isfinite(s->frac_peak)) sb_printf(o, "%.1f%% |\n", 100 * s->frac_peak);
        else sb_puts(o, "unknown |\n");
    }
    sb_puts(o, "\nSustained: executed FLOPs of all timed steps / their total time. Peak: "
               "executed FLOPs of one step / the fastest step. Convention: 3 x forward conv "
               "FLOPs, as the published STEMDL figures count.\n");
    sb_puts(o, "\nNetwork, per sample: forward conv ");
    si(o, b->fwd_conv_per_sample, "FLOP");
    sb_puts(o, ", convention (3x) ");
    si(o, b->conv_per_sample, "FLOP");
    sb_puts(o, ", executed ");
    si(o, b->exec_per_sample, "FLOP");
    sb_puts(o, "; conv weights ");
    if (isfinite(b->conv_weights)) sb_printf(o, "%.0f", b->conv_weights);
    else sb_puts(o, "n/a");
    sb_puts(o, ", parameters ");
    if (isfinite(b->parameters)) sb_printf(o, "%.0f", b->parameters);
    else sb_puts(o, "n/a");
    sb_puts(o, ".\n");
    const sres_t *k = NULL;
    for (size_t i = 0; i < b->ns; i++)
        if (b->s[i].nkinds) k = &b->s[i];
    if (k) {
        double tot = 0;
        for (size_t j = 0; j < k->nkinds; j++) tot += k->kinds[j].time_s;
        sb_printf(o, "\n### Time per kernel kind (n=%d, rank 0, per step)\n\n"
                     "| kernel | calls | FLOPs | time | share | FLOP/s |\n"
                     "|---|---:|---:|---:|---:|---:|\n", k->scale);
        for (size_t j = 0; j < k->nkinds; j++) {
            const kkind_t *x = &k->kinds[j];
            sb_printf(o, "| %s | %.4g | ", x->kind, x->calls);
            si(o, x->flops, "FLOP");
            sb_printf(o, " | %.4g ms | %.1f%% | ", x->time_s * 1e3, tot > 0 ? 100 * x->time_s / tot : 0);
            si(o, x->time_s > 0 ? x->flops / x->time_s : NAN, "FLOP/s");
            sb_puts(o, " |\n");
        }
    }
}

static void coll_section(sb_t *o, const bres_t *b)
{
    sb_puts(o, "\n### Collectives\n\nalgbw = bytes / median time (1e9 bytes per GB); busbw = "
               "algbw x the nccl-tests factor (allreduce 2(n-1)/n; allgather, reduce_scatter, "
               "alltoall (n-1)/n; broadcast, reduce 1). Times are per call, max over ranks.\n\n"
               "| scale | op | dtype | in-place | bytes | samples | median (us) | 95% CI (us) "
               "| algbw GB/s | busbw GB/s | wrong |\n"
               "|---:|---|---|---|---:|---:|---:|---|---:|---:|---:|\n");
    for (size_t i = 0; i < b->nc; i++) {
        const cres_t *c = &b->c[i];
        sb_printf(o, "| %d | %s | %s | %s | %.0f | %zu | %.4g | [%.4g, %.4g] | %.4g | %.4g | %lld |\n",
                  c->scale, c->op, c->dtype, c->inplace ? "yes" : "no", c->bytes, c->st.n,
                  c->latency_us, c->lat_lo, c->lat_hi, c->algbw, c->busbw, c->wrong);
    }
}

static void checks_section(sb_t *o, const checks_t *ck)
{
    sb_puts(o, "\n## Reference checks\n\n");
    if (!ck->n) {
        sb_puts(o, "The suite names no reference files. `exadl check RUN --reference FILE` "
                   "evaluates some.\n");
        return;
    }
    sb_printf(o, "%s. Bounds are fractions of the expected value (ReFrame style). Published "
                 "numbers are shown side by side; they pass or fail only where this run "
                 "measured the same thing (otherwise N/A).\n\n"
                 "| outcome | reference (kind) | metric | measured on | measured | expected | "
                 "bound | note |\n|---|---|---|---|---:|---:|---|---|\n", checks_line(ck));
    for (size_t i = 0; i < ck->n; i++) {
        const check_t *c = &ck->c[i];
        const char *u = c->unit ? c->unit : "";
        int ex = !strcmp(c->kind, "exact") || c->lo == c->hi;
        char t[4][64];
        double v[4] = {c->measured, c->expected, c->lo, c->hi};
        for (int k = 0; k < 4; k++) check_value_text(v[k], u, ex, t[k], sizeof t[k]);
        sb_printf(o, "| **%s** | %s (%s) | %s | ", ck_name(c->outcome), c->reference, c->kind,
                  c->metric);
        if (c->bench && c->scale) sb_printf(o, "%s n=%d | ", c->bench, c->scale);
        else if (c->bench) sb_printf(o, "%s | ", c->bench);
        else sb_printf(o, "%s | ", c->where);
        sb_printf(o, "%s | %s | [%s, %s", t[0], t[1], isnan(c->lo) ? "-inf" : t[2],
                  isnan(c->hi) ? "inf" : t[3]);
        sb_printf(o, "] | %s%s%s |\n", c->detail ? c->detail : "",
                  c->source && strcmp(c->source, "run") && strcmp(c->source, "none") ? " from " : "",
                  c->source && strcmp(c->source, "run") && strcmp(c->source, "none") ? c->source : "");
    }
}

static void launches_section(sb_t *o, const runinfo_t *ri)
{
    sb_puts(o, "\n## Launches\n\n| launch | status | how it ended | time | record | log |\n"
               "|---|---|---|---:|---|---|\n");
    int failed = 0;
    for (size_t i = 0; i < ri->no; i++) {
        const outcome_t *x = &ri->o[i];
        char t[32];
        fmt_duration(x->elapsed_s, t, sizeof t);
        sb_printf(o, "| %s | %s | %s | %s | ", x->id,
                  x->status == LS_OK ? "ok" : lstatus_name(x->status), x->why ? x->why : "-",
                  x->status == LS_NOTRUN ? "-" : t);
        if (x->rec) sb_printf(o, "[records/%s.yaml](records/%s.yaml)", x->id, x->id);
        else sb_puts(o, "none");
        sb_printf(o, " | [logs/%s.log](logs/%s.log) |\n", x->id, x->id);
        failed += x->status != LS_OK;
    }
    if (ri->nskipped) {
        sb_puts(o, "\nSkipped benchmarks:\n\n");
        for (size_t i = 0; i < ri->nskipped; i++)
            sb_printf(o, "- %s: %s\n", ri->skipped[i].name, ri->skipped[i].reason);
    }
    if (!failed) return;
    sb_puts(o, "\n### Failed launches\n");
    for (size_t i = 0; i < ri->no; i++) {
        const outcome_t *x = &ri->o[i];
        if (x->status == LS_OK) continue;
        sb_printf(o, "\n**%s**: %s%s%s.\n", x->id, lstatus_name(x->status), x->error ? ": " : "",
                  x->error ? x->error : "");
        if (x->command) sb_printf(o, "\nCommand: `%s`\n", x->command);
        if (x->log_tail && *x->log_tail)
            sb_printf(o, "\nEnd of logs/%s.log:\n\n```\n%s\n```\n", x->id, x->log_tail);
    }
}

int report_write(arena_t *a, const char *path, const runinfo_t *ri, const analysis_t *an,
                 const mtable_t *t, const checks_t *ck, const plots_t *pl, const ablation_t *ab,
                 char *err, size_t errlen)
{
    sb_t o = {0};
    int nfail = 0, p, f, na;
    for (size_t i = 0; i < ri->no; i++) nfail += ri->o[i].status != LS_OK;
    checks_count(ck, &p, &f, &na);
    sb_printf(&o, "# ExaDL report: suite %s on %s\n\n", ri->suite, ri->host);
    sb_printf(&o, "Run `%s`, started %s, finished %s. ", ri->name, ri->started_utc,
              ri->finished_utc);
    if (ri->interrupted) sb_puts(&o, "Status: **interrupted** (the sweep was stopped). ");
    else if (nfail || f)
        sb_printf(&o, "Status: **FAILED** (%d of %zu launches failed, %d checks failed). ",
                  nfail, ri->no, f);
    else sb_printf(&o, "Status: **ok** (%zu launches, %d checks passed). ", ri->no, p);
    sb_printf(&o, "\n\nCommand: `%s`\n\n## Summary\n\n", ri->command);
    FILE *mem = NULL;
    char *buf = NULL;
    size_t blen = 0;
    mem = open_memstream(&buf, &blen);
    if (mem) {
        summary_print(mem, t, ck, 1);
        fclose(mem);
        sb_putn(&o, buf, blen);
        free(buf);
    }
    system_section(&o, an);
    sb_puts(&o, "\n## Method\n\n"
                "- Each benchmark ran at every scale (MPI ranks; one rank per GPU where GPUs "
                "are used) the suite names, repeated as it says; launches ran one at a time in "
                "the order benchmark, repetition, scale.\n"
                "- Step and call times are the maximum over ranks, as the benchmarks record "
                "them; warm-up steps are excluded.\n"
                "- The timed steps of all repetitions at a scale are **pooled**; the median "
                "and its non-parametric 95% confidence interval (Hoefler & Belli, SC15: ranks "
                "floor((n-1.96 sqrt n)/2) and ceil(1+(n+1.96 sqrt n)/2); the whole range when "
                "n <= 5) come from the pooled samples; each launch's own median is listed "
                "too.\n"
                "- Throughput and efficiency confidence intervals follow from the step-time "
                "intervals; rates are never averaged arithmetically.\n");
    sb_puts(&o, "- Device peak: ");
    if (isfinite(an->device_peak))
        si(&o, an->device_peak, "FLOP/s"),
            sb_printf(&o, " per %s (%s).\n", an->peak_per_core ? "core" : "device", an->peak_source);
    else sb_printf(&o, "unknown (%s); fractions of peak are not given.\n", an->peak_source);
    for (size_t i = 0; i < an->nb; i++) {
        const bres_t *b = &an->b[i];
        sb_printf(&o, "\n## %s (%s, %s scaling)\n\n", b->name,
                  strcmp(b->kind, "unknown") ? b->kind : "no successful launch",
                  scaling_name(b->scaling));
        sb_printf(&o, "Program `%s`; %d launches, %d failed. Config (from the records):", b->program,
                  b->nlaunch, b->nfailed);
        for (size_t k = 0; k < b->nparams; k++)
            sb_printf(&o, " `%s=%s`", b->params[k].key, b->params[k].value ? b->params[k].value : "");
        sb_puts(&o, b->nparams ? "\n" : " none (no launch succeeded)\n");
        int stem = 0;
        for (size_t k = 0; k < b->ns; k++) stem |= b->s[k].n > 0;
        if (stem) {
            stemdl_section(&o, b);
            plot_link(&o, pl, ar_printf(a, "%s_throughput", b->name));
            plot_link(&o, pl, ar_printf(a, "%s_efficiency", b->name));
            plot_link(&o, pl, ar_printf(a, "%s_flops", b->name));
            plot_link(&o, pl, ar_printf(a, "%s_kernels", b->name));
        }
        if (b->nc) {
            coll_section(&o, b);
            for (size_t k = 0; k < pl->n; k++) {
                size_t l = strlen(b->name);
                if (!strncmp(pl->p[k].name, b->name, l) && pl->p[k].name[l] == '_' &&
                    (strstr(pl->p[k].name, "_busbw") || strstr(pl->p[k].name, "_latency")))
                    plot_link(&o, pl, pl->p[k].name);
            }
        }
    }
    if (ab) ablation_section(&o, ab, pl);
    if (pl->note) sb_printf(&o, "\nPlots: %s.\n", pl->note);
    checks_section(&o, ck);
    launches_section(&o, ri);
    sb_puts(&o, "\n## Files\n\n- `results.yaml`: every derived metric, launch and check "
                "(what `exadl check`, `compare` and `history` read)\n- `suite.yaml`: the suite "
                "as run\n- `records/`: each launch's result record\n- `logs/`: each launch's "
                "stdout and stderr\n- `plots/`: PNG and SVG, with the .dat and .gp files "
                "(re-plot: `cd plots && gnuplot NAME.gp`)\n- `references/`: the reference files "
                "the checks used\n");
    int rc = fileio_write_atomic(path, sb_str(&o), o.len, err, errlen);
    sb_free(&o);
    return rc;
}
