/* The scaling model's table, YAML and plot (model_out.h). */
#define _GNU_SOURCE
#include "harness/model/model_out.h"
#include "harness/model/model_orch.h"

#include <math.h>
#include <string.h>

#include "benchmarks/common/record/record.h"
#include "benchmarks/common/timer.h"

size_t model_modes_all(mmode_t *out, int groups, double fusion_bytes, double cycle_s)
{
    size_t n = 0;
    for (int o = 0; o < 2; o++)
        for (int g = 0; g < 3; g++)
            out[n++] = (mmode_t){o ? MO_BITVECTOR : MO_COORDINATOR, (mgroup_t)g, groups,
                                 fusion_bytes, cycle_s};
    return n;
}

int model_compute(arena_t *a, const minputs_t *in, const mmode_t *modes, size_t nm,
                  const int *scales, size_t ns, mpred_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->in = in;
    out->scales = ar_alloc(a, (ns + 1) * sizeof *out->scales);
    memcpy(out->scales, scales, ns * sizeof *scales);
    out->ns = ns;
    out->s = ar_alloc(a, (nm + 1) * sizeof *out->s);
    int *scratch = ar_alloc(a, (in->w.nt + 1) * sizeof *scratch);
    mneg_t neg = in->neg; /* the bit vector's size follows the workload's tensors */
    if (!(neg.bv_bytes > 0)) neg.bv_bytes = morch_bv_bytes((int)in->w.nt);
    for (size_t m = 0; m < nm; m++) {
        mseries_t *s = &out->s[out->nseries++];
        s->mode = modes[m];
        char buf[64];
        s->name = ar_strdup(a, model_mode_name(&modes[m], buf, sizeof buf));
        s->r = ar_alloc(a, (ns + 1) * sizeof *s->r);
        for (size_t k = 0; k < ns; k++)
            if (model_predict(&in->w, &modes[m], &in->net, &neg, scales[k], scratch, NULL,
                              &s->r[k])) {
                snprintf(err, errlen, "the model cannot predict %s at %d ranks (check the step "
                         "time, tensor sizes, fusion and cycle)", s->name, scales[k]);
                return -1;
            }
        /* efficiency against the smallest scale predicted, as the harness does for runs */
        size_t b = 0;
        for (size_t k = 1; k < ns; k++)
            if (scales[k] < scales[b]) b = k;
        for (size_t k = 0; k < ns; k++) {
            s->r[k].efficiency = s->r[b].step_s / s->r[k].step_s;
            s->r[k].efficiency_no_straggler = (s->r[b].step_s - s->r[b].straggler_s) /
                                              (s->r[k].step_s - s->r[k].straggler_s);
        }
        /* inputs from files and options: a prediction that is not a finite
         * positive time is refused here rather than written as inf or nan */
        for (size_t k = 0; k < ns; k++)
            if (!(isfinite(s->r[k].step_s) && s->r[k].step_s > 0 &&
                  isfinite(s->r[k].efficiency) && isfinite(s->r[k].exposed_s))) {
                snprintf(err, errlen, "the model's step time for %s at %d ranks is %g s: an input "
                         "(machine file, option or run) is out of any sensible range",
                         s->name, scales[k], s->r[k].step_s);
                return -1;
            }
    }
    return 0;
}

static const char *algo_mix(const mresult_t *r, char *buf, size_t len)
{
    buf[0] = 0;
    size_t k = 0;
    for (int i = 1; i < 4; i++)
        if (r->by_algo[i])
            k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%s%s %d", k ? ", " : "",
                                  ar_algo_name((ar_algo_t)i), r->by_algo[i]);
    if (!k) snprintf(buf, len, "-");
    return buf;
}

/* The two headline comparisons, each said in words: coordinator against bit
 * vector per grouping (orchestration cost per step, and the step), and every
 * mode's efficiency at the largest scale with and without the straggler term,
 * naming the spread's source. */
static void summary_print(FILE *f, const mpred_t *p)
{
    const minputs_t *in = p->in;
    size_t top = 0;
    for (size_t k = 1; k < p->ns; k++)
        if (p->scales[k] > p->scales[top]) top = k;
    fprintf(f, "\ncoordinator / bit vector (orchestration per step; step):\n");
    for (size_t m = 0; m < p->nseries; m++) {
        const mmode_t *x = &p->s[m].mode;
        if (x->orch != MO_COORDINATOR) continue;
        for (size_t b = 0; b < p->nseries; b++) {
            const mmode_t *y = &p->s[b].mode;
            if (y->orch != MO_BITVECTOR || x->grouping != y->grouping ||
                (x->grouping == MG_COUNT && x->groups != y->groups))
                continue;
            for (size_t k = 0; k < p->ns; k++) {
                const mresult_t *c = &p->s[m].r[k], *v = &p->s[b].r[k];
                if (c->p < 2) continue;
                fprintf(f, "  %-8s at %7d: orchestration %.3f (%.4g / %.4g ms), step %.4f\n",
                        strchr(p->s[m].name, '+') + 1, c->p,
                        v->negotiation_s > 0 ? c->negotiation_s / v->negotiation_s : NAN,
                        c->negotiation_s * 1e3, v->negotiation_s * 1e3, c->step_s / v->step_s);
            }
            break;
        }
    }
    double bytes = 0;
    for (size_t t = 0; t < in->w.nt; t++) bytes += in->w.t[t].bytes;
    fprintf(f, "\nablation at %d: the engine's groups of the %zu tensors, fused reductions per "
               "step (mean size), exposed time, efficiency\n", p->ns ? p->scales[top] : 0, in->w.nt);
    for (size_t m = 0; m < p->nseries && p->ns; m++) {
        const mresult_t *r = &p->s[m].r[top];
        fprintf(f, "  %-18s %4d groups %5d reductions of %9.4g MB  exposed %8.4g ms  efficiency "
                   "%.4f\n", p->s[m].name, r->ngroups, r->reductions,
                r->reductions ? bytes / r->reductions / 1e6 : 0.0, r->exposed_s * 1e3,
                r->efficiency);
    }
    fprintf(f, "\nstragglers at %d: efficiency with the straggler term (cv %.3g) / without\n",
            p->ns ? p->scales[top] : 0, in->w.jitter_cv);
    for (size_t m = 0; m < p->nseries && p->ns; m++)
        fprintf(f, "  %-18s with %.4f  without %.4f\n", p->s[m].name, p->s[m].r[top].efficiency,
                p->s[m].r[top].efficiency_no_straggler);
    fprintf(f, "  straggler source: %s\n",
            in->w.jitter_cv > 0 ? (in->jitter_source ? in->jitter_source : in->work_source)
                                : "none (cv 0: give --jitter-cv, a machine file's straggler_cv "
                                  "or --from RUN with per-rank compute times)");
}

void model_print(FILE *f, const mpred_t *p)
{
    const minputs_t *in = p->in;
    fprintf(f, "workload:    %s\n", in->work_source);
    fprintf(f, "network:     %s\n", in->net_source);
    fprintf(f, "             ranks per node %d%s, allreduce %s; intra a %.3g s, b %.3g s/B, "
               "g %.3g s/B; inter a %.3g s, b %.3g s/B, g %.3g s/B\n",
            in->net.ranks_per_node, in->net.hierarchical ? " (hierarchical)" : "",
            ar_algo_name(in->net.algo), in->net.intra.alpha_s, in->net.intra.beta_s,
            in->net.intra.gamma_s, in->net.inter.alpha_s, in->net.inter.beta_s,
            in->net.inter.gamma_s);
    fprintf(f, "negotiation: %s%s\n", in->neg_source,
            in->neg.coord_per_request_s > 0 ? "; plus rank 0's cost per request" : "");
    if (in->calib_detail) fputs(in->calib_detail, f);
    if (in->neg.coord_per_request_s > 0)
        fprintf(f, "             coordinator: %.3g s per tensor request at rank 0 (%s)\n",
                in->neg.coord_per_request_s, in->request_source ? in->request_source : "given");
    fprintf(f, "stragglers:  step-time variation %.3g (std/mean of one rank): the step waits for "
               "the slowest rank, T(1) cv z(p)\n", in->w.jitter_cv);
    fprintf(f, "             from: %s\n\n", in->jitter_source ? in->jitter_source : "the workload's source");
    if (in->neg.from_latency) morch_print(f, &in->net, &in->neg, (int)in->w.nt, p->scales, p->ns);
    fprintf(f, "%7s  %-18s %6s %8s %10s %10s %12s %12s %14s %10s %7s  %s\n", "scale", "mode",
            "groups", "cycle_ms", "step_s", "efficiency", "exposed_ms", "straggler_ms",
            "negotiation_ms", "comm_ms", "cycles", "reductions");
    for (size_t m = 0; m < p->nseries; m++)
        for (size_t k = 0; k < p->ns; k++) {
            const mresult_t *r = &p->s[m].r[k];
            char mix[64];
            fprintf(f, "%7d  %-18s %6d %8.3g %10.4g %10.4f %12.4g %12.4g %14.4g %10.4g %7d  %s\n",
                    r->p, p->s[m].name, r->ngroups, p->s[m].mode.cycle_s * 1e3, r->step_s,
                    r->efficiency, r->exposed_s * 1e3, r->straggler_s * 1e3,
                    r->negotiation_s * 1e3, r->comm_s * 1e3, r->cycles,
                    algo_mix(r, mix, sizeof mix));
        }
    summary_print(f, p);
}

static void link_yaml(rec_t *w, const char *key, const mlink_t *l)
{
    rec_key(w, key);
    rec_flow_map_begin(w);
    rec_kv_double(w, "alpha_s", l->alpha_s);
    rec_kv_double(w, "beta_s_per_byte", l->beta_s);
    rec_kv_double(w, "gamma_s_per_byte", l->gamma_s);
    rec_map_end(w);
}

static void inputs_yaml(rec_t *w, const minputs_t *in)
{
    arena_t *a = ar_new();
    double bytes = 0;
    for (size_t t = 0; t < in->w.nt; t++) bytes += in->w.t[t].bytes;
    rec_key(w, "workload");
    rec_map_begin(w);
    rec_kv_str(w, "source", in->work_source);
    rec_kv_double(w, "step_s", in->w.step_s);
    rec_kv_double(w, "backward_end_s", in->w.backward_end_s);
    rec_kv_double(w, "jitter_cv", in->w.jitter_cv);
    if (in->jitter_source) rec_kv_str(w, "jitter_source", in->jitter_source);
    rec_kv_int(w, "tensors", (int64_t)in->w.nt);
    rec_kv_double(w, "gradient_bytes", bytes);
    rec_key(w, "tensor_list");
    rec_seq_begin(w);
    for (size_t t = 0; t < in->w.nt; t++) {
        rec_flow_map_begin(w);
        rec_kv_str(w, "name", in->w.t[t].name);
        rec_kv_double(w, "bytes", in->w.t[t].bytes);
        rec_kv_double(w, "ready_s", in->w.t[t].ready_s);
        rec_map_end(w);
    }
    rec_seq_end(w);
    rec_map_end(w);
    rec_key(w, "network");
    rec_map_begin(w);
    rec_kv_str(w, "source", in->net_source);
    rec_kv_int(w, "ranks_per_node", in->net.ranks_per_node);
    rec_kv_bool(w, "hierarchical", in->net.hierarchical);
    rec_kv_str(w, "allreduce", ar_algo_name(in->net.algo));
    link_yaml(w, "intra_node", &in->net.intra);
    link_yaml(w, "inter_node", &in->net.inter);
    if (!isnan(in->fit_rms_rel)) {
        rec_kv_int(w, "fit_rows", (int64_t)in->fit_rows);
        rec_kv_double(w, "fit_rms_relative_error", in->fit_rms_rel);
    }
    rec_map_end(w);
    rec_key(w, "negotiation");
    rec_map_begin(w);
    rec_kv_str(w, "source", in->neg_source);
    rec_kv_bool(w, "from_latency", in->neg.from_latency);
    if (in->neg.from_latency) /* the collectives' model: its latency scale (docs/model.md) */
        rec_kv_double(w, "latency_scale", in->neg.lat_scale > 0 ? in->neg.lat_scale : 1);
    rec_kv_double(w, "coordinator_per_request_s", in->neg.coord_per_request_s);
    if (in->request_source) rec_kv_str(w, "request_source", in->request_source);
    if (!in->neg.from_latency) {
        rec_kv_double(w, "coordinator_base_s", in->neg.coord_base_s);
        rec_kv_double(w, "coordinator_per_rank_s", in->neg.coord_per_rank_s);
        rec_kv_double(w, "coordinator_per_level_s", in->neg.coord_per_level_s);
        rec_kv_double(w, "bitvector_base_s", in->neg.bv_base_s);
        rec_kv_double(w, "bitvector_per_level_s", in->neg.bv_per_level_s);
    }
    rec_map_end(w);
    if (in->machine) {
        rec_key(w, "machine");
        rec_map_begin(w);
        rec_kv_str(w, "file", in->machine->path);
        rec_kv_str(w, "name", in->machine->name);
        const mfig_t *figs[32];
        mfile_figures(in->machine, figs);
        rec_key(w, "figures");
        rec_seq_begin(w);
        for (size_t i = 0; figs[i]; i++) {
            rec_flow_map_begin(w);
            rec_kv_str(w, "key", figs[i]->key);
            rec_kv_double(w, "value", figs[i]->value);
            rec_kv_str(w, "origin", mfig_origin(a, figs[i]));
            rec_map_end(w);
        }
        rec_seq_end(w);
        rec_map_end(w);
    }
    ar_free(a);
}

int model_write_yaml(const char *path, const mpred_t *p, const char *command,
                     const checks_t *ck, char *err, size_t errlen)
{
    rec_t *w = rec_open(path, err, errlen);
    if (!w) return -1;
    char now[32];
    timer_utc_iso(now, sizeof now);
    rec_map_begin(w);
    rec_kv_int(w, "exadl_model", 1);
    rec_kv_str(w, "created_utc", now);
    rec_kv_str(w, "command", command);
    rec_kv_str(w, "formulas", "docs/model.md");
    int b = 0;
    for (size_t k = 1; k < p->ns; k++)
        if (p->scales[k] < p->scales[b]) b = (int)k;
    rec_kv_int(w, "efficiency_against_scale", p->ns ? p->scales[b] : 1);
    inputs_yaml(w, p->in);
    rec_key(w, "predictions");
    rec_seq_begin(w);
    for (size_t m = 0; m < p->nseries; m++)
        for (size_t k = 0; k < p->ns; k++) {
            const mresult_t *r = &p->s[m].r[k];
            const mmode_t *md = &p->s[m].mode;
            rec_flow_map_begin(w);
            rec_kv_int(w, "scale", r->p);
            rec_kv_str(w, "mode", p->s[m].name);
            rec_kv_int(w, "groups", r->ngroups);
            rec_kv_double(w, "cycle_ms", md->cycle_s * 1e3);
            rec_kv_double(w, "fusion_bytes", md->fusion_bytes);
            rec_kv_double(w, "step_s", r->step_s);
            rec_kv_double(w, "efficiency", r->efficiency);
            rec_kv_double(w, "efficiency_no_straggler", r->efficiency_no_straggler);
            rec_kv_double(w, "exposed_s", r->exposed_s);
            rec_kv_double(w, "straggler_s", r->straggler_s);
            rec_kv_double(w, "negotiation_s", r->negotiation_s);
            rec_kv_double(w, "comm_s", r->comm_s);
            rec_kv_int(w, "cycles", r->cycles);
            rec_kv_int(w, "reductions", r->reductions);
            rec_kv_int(w, "ring", r->by_algo[AR_RING]);
            rec_kv_int(w, "tree", r->by_algo[AR_TREE]);
            rec_kv_int(w, "rd", r->by_algo[AR_RD]);
            rec_map_end(w);
        }
    rec_seq_end(w);
    if (ck && ck->n) {
        rec_key(w, "checks");
        rec_seq_begin(w);
        for (size_t i = 0; i < ck->n; i++) {
            const check_t *c = &ck->c[i];
            rec_flow_map_begin(w);
            rec_kv_str(w, "outcome", ck_name(c->outcome));
            rec_kv_str(w, "reference", c->reference);
            rec_kv_str(w, "metric", c->metric);
            rec_kv_str(w, "where", c->where);
            rec_kv_double(w, "measured", c->measured);
            rec_kv_double(w, "expected", c->expected);
            rec_kv_double(w, "lo", c->lo);
            rec_kv_double(w, "hi", c->hi);
            rec_map_end(w);
        }
        rec_seq_end(w);
    }
    rec_map_end(w);
    return rec_close(w, err, errlen);
}

static void add_row(arena_t *a, mtable_t *t, const char *metric, int scale, double v, const char *k,
                    const char *val)
{
    kv_t *p = ar_alloc(a, 2 * sizeof *p);
    p[0] = (kv_t){k, val};
    const metric_info_t *mi = metric_info(metric);
    metric_t m = {.bench = "model", .program = "exadl model", .kind = "model", .scale = scale,
                  .metric = metric, .value = v, .lo = NAN, .hi = NAN, .n = NAN,
                  .unit = mi ? mi->unit : "", .better = mi ? mi->better : 0, .params = p,
                  .nparams = 1};
    mtable_add(a, t, &m);
}

void model_metrics(arena_t *a, const mpred_t *p, mtable_t *t)
{
    for (size_t m = 0; m < p->nseries; m++)
        for (size_t k = 0; k < p->ns; k++) {
            add_row(a, t, "model_efficiency", p->scales[k], p->s[m].r[k].efficiency, "mode",
                    p->s[m].name);
            if (p->s[m].mode.orch != MO_COORDINATOR) continue;
            for (size_t b = 0; b < p->nseries; b++) {
                const mmode_t *x = &p->s[m].mode, *y = &p->s[b].mode;
                if (y->orch != MO_BITVECTOR || x->grouping != y->grouping ||
                    (x->grouping == MG_COUNT && x->groups != y->groups) ||
                    x->cycle_s != y->cycle_s || x->fusion_bytes != y->fusion_bytes)
                    continue;
                const char *g = strchr(p->s[m].name, '+') + 1;
                add_row(a, t, "model_speedup", p->scales[k],
                        p->s[m].r[k].step_s / p->s[b].r[k].step_s, "grouping", g);
            }
        }
}

void model_plot(arena_t *a, const char *dir, const mpred_t *p, const char *name,
                const char *title, plots_t *pl)
{
    sb_t d = {0};
    sb_puts(&d, "scale");
    for (size_t m = 0; m < p->nseries; m++) sb_printf(&d, " %s", p->s[m].name);
    sb_puts(&d, "\n");
    for (size_t k = 0; k < p->ns; k++) {
        sb_printf(&d, "%d", p->scales[k]);
        for (size_t m = 0; m < p->nseries; m++) sb_printf(&d, " %.9g", p->s[m].r[k].efficiency);
        sb_puts(&d, "\n");
    }
    int big = p->ns && p->scales[p->ns - 1] > 8;
    /* the published point beside the curves (a datablock: replot for the SVG
     * reads it again); the line marks the level where the x axis cannot
     * reach 27,600 */
    char *gp = ar_printf(a, "%s%sset yrange [0:1.05]\n" /* the key: outside (plots.h) */
                            "$published << EOD\n27600 %.2f\nEOD\n"
                            "plot for [i=2:%zu] '%s.dat' using 1:i with linespoints lw 2 "
                            "title columnheader(i), \\\n"
                            "     %.2f with lines dt 3 lw 1 lc rgb 'red' notitle, \\\n"
                            "     $published using 1:2 with points pt 7 ps 2 lc rgb 'red' "
                            "title 'published: 0.93 at 27,600 V100 (Summit 2019)'\n%s",
                         plots_gp_header(a, name, title, "ranks (GPUs)", "efficiency (model)"),
                         big ? "set logscale x 10\n" : "set xtics 1\n", SUMMIT_EFFICIENCY,
                         p->nseries + 1, name, SUMMIT_EFFICIENCY, plots_gp_footer);
    plots_add(a, dir, pl, name, title, &d, gp);
    sb_free(&d);
}
