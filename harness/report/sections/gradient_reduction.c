/* Report section: the gradient-reduction modes side by side (docs/ablation.md):
 * per entry with a gradient_reduction block and scale, the measured engine
 * numbers beside the scaling model's prediction (the gradient_reduction
 * block's, harness/blocks/gradient_reduction/: harness/model/ablation.c
 * builds the rows, its der_gradient_reduction.c adds their metrics
 * exposed_comm_s, negotiation_s, model_efficiency); the figures ablation_efficiency, ablation_modes and
 * model_efficiency; model.yaml in the run folder.  Only entries of one workload
 * (benchmark and config apart from the mode's settings) are set side by side. */
#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include "harness/blocks/gradient_reduction/blk_gradient_reduction.h"
#include "harness/model/ablation.h"
#include "harness/plots/axis.h"
#include "harness/report/runctx.h"
#include "harness/util/esc.h"

static void g4(sb_t *o, double v)
{
    if (isfinite(v)) sb_printf(o, "%.4g", v);
    else sb_puts(o, "-");
}

static void ms(sb_t *o, double v)
{
    if (isfinite(v)) sb_printf(o, "%.3g", v * 1e3);
    else sb_puts(o, "-");
}

/* The workload of an entry: its records' benchmark and config, apart from
 * the gradient-reduction settings that make the modes.  Only entries of one
 * workload are set side by side (issue 27: STEMDL against CosmoFlow is no
 * comparison of modes). */
static const char *const mode_keys[] = {"orchestration", "cache_capacity", "grouping",
                                        "groups",        "fusion_bytes",   "cycle_ms",
                                        "comm_timeout",  "engine",         NULL};

/* The engine that ran an entry at a scale (gradient_reduction.engine: thread
 * or inline; docs/gsync.md "Which engine runs"): `engine: auto` resolves per
 * machine, so two runs of one suite may differ here.  NULL: not recorded. */
static const char *engine_ran(const runctx_t *c, const char *bench, int scale)
{
    for (size_t i = 0; i < c->ri.no; i++) {
        const outcome_t *o = &c->ri.o[i];
        if (o->status != LS_OK || !o->rec || o->scale != scale || strcmp(o->bench, bench)) continue;
        const grinfo_t *g = rec_gr(o->rec);
        if (g && g->engine && strcmp(g->engine, "none")) return g->engine; /* none: one rank */
    }
    return NULL;
}

static void node_text(sb_t *b, const ytnode *n)
{
    if (!n) return;
    if (n->kind == YT_SCALAR) {
        sb_puts(b, n->str ? n->str : "~");
        return;
    }
    sb_puts(b, n->kind == YT_MAP ? "{" : "[");
    for (size_t i = 0; i < n->n; i++) {
        if (n->kind == YT_MAP) node_text(b, yt_key(n, i)), sb_puts(b, ":"), node_text(b, yt_val(n, i));
        else node_text(b, n->items[i]);
        sb_puts(b, ",");
    }
    sb_puts(b, n->kind == YT_MAP ? "}" : "]");
}

static const char *workload_of(const runctx_t *c, const char *bench)
{
    for (size_t i = 0; i < c->ri.no; i++) {
        const outcome_t *o = &c->ri.o[i];
        if (o->status != LS_OK || !o->rec || strcmp(o->bench, bench)) continue;
        sb_t b = {0};
        sb_printf(&b, "%s", o->rec->benchmark ? o->rec->benchmark : "?");
        const ytnode *cf = o->rec->config;
        for (size_t k = 0; cf && cf->kind == YT_MAP && k < cf->n; k++) {
            const ytnode *key = yt_key(cf, k);
            int mode = 0;
            for (const char *const *m = mode_keys; *m && key->str; m++) mode |= !strcmp(*m, key->str);
            if (mode) continue;
            sb_puts(&b, " "), node_text(&b, key), sb_puts(&b, "="), node_text(&b, yt_val(cf, k));
        }
        char *r = ar_strdup(c->a, sb_str(&b));
        sb_free(&b);
        return r;
    }
    return "";
}

/* The entries in first-appearance order, each with its workload group (the
 * index of the first entry of the same workload); an entry is shown when its
 * group has two entries or more, or it is the model's base. */
typedef struct {
    const char *name[64], *work[64];
    size_t group[64], size[64];
    int shown[64];
    size_t n;
} entries_t;

static void entries(const runctx_t *c, const ablation_t *ab, entries_t *e)
{
    memset(e, 0, sizeof *e);
    for (size_t i = 0; i < ab->n && e->n < 64; i++) {
        int dup = 0;
        for (size_t k = 0; k < e->n; k++) dup |= !strcmp(e->name[k], ab->r[i].bench);
        if (dup) continue;
        e->name[e->n] = ab->r[i].bench;
        e->work[e->n] = workload_of(c, ab->r[i].bench);
        size_t g = e->n;
        for (size_t k = 0; k < e->n && g == e->n; k++)
            if (!strcmp(e->work[k], e->work[e->n])) g = k;
        e->group[e->n] = g;
        e->size[g]++;
        e->n++;
    }
    const char *base = ab->model ? c->s.model_base : NULL;
    for (size_t k = 0; k < e->n; k++) {
        size_t g = e->group[k];
        int is_base = 0;
        for (size_t j = 0; j < e->n && base; j++) is_base |= e->group[j] == g && !strcmp(e->name[j], base);
        e->shown[k] = e->size[g] >= 2 || is_base;
    }
}

static int shown(const entries_t *e, const char *bench)
{
    for (size_t k = 0; k < e->n; k++)
        if (!strcmp(e->name[k], bench)) return e->shown[k];
    return 0;
}

static const abrow_t *row(const ablation_t *ab, const char *bench, int scale)
{
    for (size_t i = 0; i < ab->n; i++)
        if (!strcmp(ab->r[i].bench, bench) && ab->r[i].scale == scale) return &ab->r[i];
    return NULL;
}

/* plot names of workload group number gi (0: the names the docs list) */
static const char *pname(arena_t *a, const char *base, size_t gi)
{
    return gi ? ar_printf(a, "%s_%zu", base, gi + 1) : base;
}

/* the figures of one workload group g: efficiency against scale (measured with
 * its CI, the model dashed where it predicts) and the modes at the largest scale */
static void group_plots(const runctx_t *c, const ablation_t *ab, const entries_t *e, size_t g,
                        size_t gi, const char *dir, plots_t *pl)
{
    arena_t *a = c->a;
    const char *names[64];
    size_t ne = 0;
    for (size_t k = 0; k < e->n; k++)
        if (e->group[k] == g) names[ne++] = e->name[k];
    int sc[64];
    size_t ns = 0;
    int model = 0, train = 0;
    for (size_t i = 0; i < ab->n && ns < 64; i++) {
        int in = 0;
        for (size_t k = 0; k < ne; k++) in |= !strcmp(names[k], ab->r[i].bench);
        if (!in) continue;
        model |= ab->r[i].have_pred, train |= ab->r[i].have_train;
        int dup = 0;
        for (size_t k = 0; k < ns; k++) dup |= sc[k] == ab->r[i].scale;
        if (!dup) sc[ns++] = ab->r[i].scale;
    }
    if (!ns) return;
    for (size_t x = 1; x < ns; x++) /* ascending */
        for (size_t y = x; y > 0 && sc[y - 1] > sc[y]; y--) {
            int t = sc[y];
            sc[y] = sc[y - 1], sc[y - 1] = t;
        }
    const char *kind = NULL;
    for (size_t i = 0; i < ab->n && !kind; i++)
        if (!strcmp(ab->r[i].bench, names[0])) kind = ab->r[i].kind;
    const char *what = sanitize_name(a, kind ? kind : names[0]);
    sb_t d = {0};
    double *fit = ar_alloc(a, (4 * ns * ne + 1) * sizeof *fit);
    size_t nfit = 0;
    sb_puts(&d, "scale");
    for (size_t k = 0; k < ne; k++) {
        const char *n = sanitize_name(a, names[k]);
        sb_printf(&d, " %s %s(lo) %s(hi) %s(model)", n, n, n, n);
    }
    sb_puts(&d, "\n");
    for (size_t k = 0; k < ns; k++) {
        sb_printf(&d, "%d", sc[k]);
        for (size_t j = 0; j < ne; j++) {
            const abrow_t *r = row(ab, names[j], sc[k]);
            double v[4] = {r ? r->eff : NAN, r ? r->eff_lo : NAN, r ? r->eff_hi : NAN,
                           r && r->have_pred ? r->pred.efficiency : NAN};
            for (int q = 0; q < 4; q++) plots_datum(&d, v[q]), fit[nfit++] = v[q];
        }
        sb_puts(&d, "\n");
    }
    /* titles promise only what is drawn: the model where it predicted */
    const char *name = pname(a, "ablation_efficiency", gi);
    char *title = ar_printf(a, "gradient reduction, %s: efficiency per mode, measured (95%% CI)%s",
                            what, model ? " and model (dashed)" : "");
    char *mline = model ? ar_printf(a, ", \\\n     for [i=0:%zu] '%s.dat' using 1:(column(5+4*i)) "
                                       "with linespoints dt 2 lw 1 pt 6 lc i+1 "
                                       "title columnheader(5+4*i)", ne - 1, name)
                        : "";
    char *gp = ar_printf(a, "%s%s%s"
                            "plot for [i=0:%zu] '%s.dat' using 1:(column(2+4*i)):(column(3+4*i)):"
                            "(column(4+4*i)) with yerrorlines lw 2 pt 7 lc i+1 "
                            "title columnheader(2+4*i)%s\n%s",
                         plots_gp_header(a, name, title, "ranks", "efficiency"),
                         axis_ranks(a, sc, ns), axis_yfit(a, fit, nfit, 0, 1.1), ne - 1, name,
                         mline, plots_gp_footer);
    plots_add(a, dir, pl, name, title, &d, gp);
    sb_free(&d);
    /* the ablation proper: every mode at the largest scale, measured beside the model */
    int top = sc[ns - 1];
    sb_t b = {0};
    sb_printf(&b, "# entry measured ci_lo ci_hi model model_in_training_rate exposed_ms(measured) "
                  "exposed_ms(model)\n");
    nfit = 0;
    for (size_t k = 0; k < ne; k++) {
        const abrow_t *r = row(ab, names[k], top);
        if (!r) continue;
        sb_printf(&b, "%s", sanitize_name(a, names[k]));
        double v[7] = {r->eff, r->eff_lo, r->eff_hi, r->have_pred ? r->pred.efficiency : NAN,
                       r->have_train ? r->train.efficiency : NAN, r->exposed_s * 1e3,
                       r->have_pred ? r->pred.exposed_s * 1e3 : NAN};
        for (int q = 0; q < 7; q++) plots_datum(&b, v[q]);
        for (int q = 0; q < 5; q++) fit[nfit++] = v[q];
        sb_puts(&b, "\n");
    }
    name = pname(a, "ablation_modes", gi);
    title = ar_printf(a, "gradient reduction, %s at %d ranks: efficiency per mode, measured%s", what,
                      top, model ? " and model" : "");
    gp = ar_printf(a,
                   "%sset style data histograms\nset style histogram errorbars gap 1 lw 1\n"
                   "set style fill solid 0.8 border -1\nset xtics rotate by -30\n%s"
                   "plot '%s.dat' using 2:3:4:xtic(1) title 'measured (95%% CI)'%s%s\n%s",
                   plots_gp_header(a, name, title, "entry (mode)", "efficiency"),
                   axis_yfit(a, fit, nfit, 0, 1.1), name,
                   model ? ", '' using 5:5:5 title 'model'" : "",
                   train ? ", '' using 6:6:6 title 'model at the in-training reduction rate'" : "",
                   plots_gp_footer);
    plots_add(a, dir, pl, name, title, &b, gp);
    sb_free(&b);
}

static void plots(const runctx_t *c, const void *self, const char *dir, plots_t *pl)
{
    const ablation_t *ab = self;
    if (!ab->active) return;
    entries_t e;
    entries(c, ab, &e);
    size_t gi = 0;
    for (size_t k = 0; k < e.n; k++)
        if (e.group[k] == k && e.shown[k]) group_plots(c, ab, &e, k, gi++, dir, pl);
    if (gi && ab->ext.nseries && !ab->model_note)
        model_plot(c->a, dir, &ab->ext, "model_efficiency",
                   "model: efficiency per mode at further scales", pl);
}

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    const ablation_t *ab = self;
    const plots_t *pl = &c->pl;
    if (!ab->active) return;
    entries_t e;
    entries(c, ab, &e);
    size_t nshown = 0;
    for (size_t k = 0; k < e.n; k++) nshown += e.shown[k];
    if (!nshown) return; /* no two entries of one workload, no model: nothing to set side by side */
    sb_puts(o, "\n## Gradient reduction: modes side by side\n\n"
               "Entries of the same workload (benchmark and config, apart from the "
               "gradient-reduction settings) side by side, one row per entry and scale; "
               "entries of different workloads are never compared here. Efficiency as above (against the entry's "
               "smallest scale); mode: the orchestration and grouping, and the engine that "
               "ran (thread: overlapping backward; inline: after it; docs/gsync.md); exposed = "
               "the main thread waiting for reductions after "
               "backward, negotiation and reduce = the engine's time in orchestration cycles "
               "and in reductions, cycles = engine cycles: medians over the pooled timed steps "
               "(max over ranks; cycles: rank 0). Model: docs/model.md, with the inputs below.\n\n"
               "| entry | mode | cycle ms | scale | median step s | efficiency [95% CI] | "
               "exposed ms | negotiation ms | reduce ms | cycles | model efficiency | model "
               "exposed ms | model step s | model at the in-training reduction rate: "
               "efficiency (exposed ms) |\n|---|---|---:|---:|---:|---|---:|---:|---:|---:|"
               "---:|---:|---:|---|\n");
    for (size_t i = 0; i < ab->n; i++) {
        const abrow_t *r = &ab->r[i];
        if (!shown(&e, r->bench)) continue;
        const char *eng = engine_ran(c, r->bench, r->scale);
        sb_printf(o, "| %s | %s%s%s | %.3g | %d | ", r->bench, r->mode_name, eng ? ", engine " : "",
                  eng ? esc_md(c->a, eng) : "", r->mode.cycle_s * 1e3, r->scale);
        g4(o, r->step_s);
        sb_puts(o, " | "), g4(o, r->eff), sb_puts(o, " ["), g4(o, r->eff_lo), sb_puts(o, ", ");
        g4(o, r->eff_hi), sb_puts(o, "] | ");
        ms(o, r->exposed_s), sb_puts(o, " | "), ms(o, r->negotiation_s), sb_puts(o, " | ");
        ms(o, r->reduce_s), sb_puts(o, " | "), g4(o, r->cycles), sb_puts(o, " | ");
        if (r->have_pred) {
            sb_printf(o, "%.4f | ", r->pred.efficiency);
            ms(o, r->pred.exposed_s), sb_puts(o, " | "), g4(o, r->pred.step_s);
            sb_puts(o, " | ");
        } else {
            sb_puts(o, "- | - | - | ");
        }
        if (r->have_train) {
            sb_printf(o, "%.4f (", r->train.efficiency);
            ms(o, r->train.exposed_s);
            sb_printf(o, ") at %.3g GB/s |\n", r->train_Bps * 1e-9);
        } else {
            sb_puts(o, "- |\n");
        }
    }
    size_t gi = 0;
    for (size_t k = 0; k < e.n; k++)
        if (e.group[k] == k && e.shown[k]) {
            report_plot_link(o, pl, pname(c->a, "ablation_modes", gi));
            report_plot_link(o, pl, pname(c->a, "ablation_efficiency", gi++));
        }
    sb_t alone = {0};
    for (size_t k = 0; k < e.n; k++)
        if (!e.shown[k]) sb_printf(&alone, "%s%s", alone.len ? ", " : "", e.name[k]);
    if (alone.len)
        sb_printf(o, "\nNot set side by side: %s (no other entry of the same workload).\n",
                  sb_str(&alone));
    sb_free(&alone);
    if (!ab->model) {
        sb_puts(o, "\nNo model prediction: the suite has no `model:` key (docs/ablation.md).\n");
        return;
    }
    if (ab->model_note) {
        sb_printf(o, "\nNo model prediction: %s.\n", ab->model_note);
        return;
    }
    const minputs_t *in = &ab->in;
    sb_printf(o, "\n### The model's inputs\n\n- workload: %s\n- network: %s; ranks per node %d%s, "
                 "allreduce %s\n- negotiation: %s\n- stragglers: step-time variation %.3g "
                 "(std/mean), the step waits for the slowest rank: T(1) cv z(p)\n",
              in->work_source, in->net_source, in->net.ranks_per_node,
              in->net.hierarchical ? " (hierarchical)" : "", ar_algo_name(in->net.algo),
              in->neg_source, in->w.jitter_cv);
    sb_puts(o, "\nPredictions for each entry's mode at the run's scales and the suite's model "
               "scales (model.yaml has every number):\n\n| mode | scale | step s | efficiency | "
               "exposed ms | straggler ms | negotiation ms/step | comm ms/step | cycles |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t m = 0; m < ab->ext.nseries; m++)
        for (size_t k = 0; k < ab->ext.ns; k++) {
            const mresult_t *r = &ab->ext.s[m].r[k];
            sb_printf(o, "| %s | %d | %.4g | %.4f | ", ab->ext.s[m].name, r->p, r->step_s,
                      r->efficiency);
            ms(o, r->exposed_s), sb_puts(o, " | "), ms(o, r->straggler_s), sb_puts(o, " | ");
            ms(o, r->negotiation_s), sb_puts(o, " | "), ms(o, r->comm_s);
            sb_printf(o, " | %d |\n", r->cycles);
        }
    report_plot_link(o, pl, "model_efficiency");
}

static void files(const runctx_t *c, const void *self)
{
    const ablation_t *ab = self;
    if (!ab->active || !ab->model || ab->model_note || !ab->ext.nseries) return;
    char err[512];
    if (model_write_yaml(path_join(c->a, c->ri.dir, "model.yaml"), &ab->ext, c->ri.command, NULL,
                         err, sizeof err))
        fprintf(stderr, "exadl: warning: model.yaml: %s\n", err);
}

const section_t section_gradient_reduction = {.name = "gradient_reduction",
                                              .plots = plots,
                                              .md = md,
                                              .files = files};
