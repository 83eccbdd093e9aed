/* Report section: the gradient-reduction modes side by side (docs/ablation.md):
 * per entry with a gradient_reduction block and scale, the measured engine
 * numbers beside the scaling model's prediction (the gradient_reduction
 * block's, harness/blocks/gradient_reduction/: harness/model/ablation.c
 * builds the rows, its der_gradient_reduction.c adds their metrics
 * exposed_comm_s, negotiation_s, model_efficiency); the figures ablation_efficiency, ablation_modes and
 * model_efficiency; model.yaml in the run folder. */
#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include "harness/model/ablation.h"
#include "harness/report/runctx.h"

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

/* the entries in first-appearance order */
static size_t entries(const ablation_t *ab, const char **names, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < ab->n && n < max; i++) {
        int dup = 0;
        for (size_t k = 0; k < n; k++) dup |= !strcmp(names[k], ab->r[i].bench);
        if (!dup) names[n++] = ab->r[i].bench;
    }
    return n;
}

static const abrow_t *row(const ablation_t *ab, const char *bench, int scale)
{
    for (size_t i = 0; i < ab->n; i++)
        if (!strcmp(ab->r[i].bench, bench) && ab->r[i].scale == scale) return &ab->r[i];
    return NULL;
}

static void plots(const runctx_t *c, const void *self, const char *dir, plots_t *pl)
{
    const ablation_t *ab = self;
    arena_t *a = c->a;
    if (!ab->active) return;
    const char *names[64];
    size_t ne = entries(ab, names, 64);
    int sc[64];
    size_t ns = 0;
    for (size_t i = 0; i < ab->n && ns < 64; i++) {
        int dup = 0;
        for (size_t k = 0; k < ns; k++) dup |= sc[k] == ab->r[i].scale;
        if (!dup) sc[ns++] = ab->r[i].scale;
    }
    for (size_t x = 1; x < ns; x++) /* ascending */
        for (size_t y = x; y > 0 && sc[y - 1] > sc[y]; y--) {
            int t = sc[y];
            sc[y] = sc[y - 1], sc[y - 1] = t;
        }
    sb_t d = {0};
    sb_puts(&d, "scale");
    for (size_t e = 0; e < ne; e++)
        sb_printf(&d, " %s %s(model)", sanitize_name(a, names[e]), sanitize_name(a, names[e]));
    sb_puts(&d, "\n");
    for (size_t k = 0; k < ns; k++) {
        sb_printf(&d, "%d", sc[k]);
        for (size_t e = 0; e < ne; e++) {
            const abrow_t *r = row(ab, names[e], sc[k]);
            double m = r ? r->eff : NAN, p = r && r->have_pred ? r->pred.efficiency : NAN;
            sb_printf(&d, isfinite(m) ? " %.6g" : " NaN", m);
            sb_printf(&d, isfinite(p) ? " %.6g" : " NaN", p);
        }
        sb_puts(&d, "\n");
    }
    const char *name = "ablation_efficiency";
    char *title = "gradient reduction: efficiency per mode, measured (solid) and model (dashed)";
    char *gp = ar_printf(a, "%sset xtics 1\nset yrange [0:1.15]\nset key bottom left\n"
                            "plot for [i=0:%zu] '%s.dat' using 1:(column(2+2*i)) with linespoints "
                            "lw 2 pt 7 lc i+1 title columnheader(2+2*i), \\\n"
                            "     for [i=0:%zu] '%s.dat' using 1:(column(3+2*i)) with linespoints "
                            "dt 2 lw 1 pt 6 lc i+1 title columnheader(3+2*i)\n%s",
                         plots_gp_header(a, name, title, "ranks", "efficiency"), ne - 1, name,
                         ne - 1, name, plots_gp_footer);
    plots_add(a, dir, pl, name, title, &d, gp);
    sb_free(&d);
    /* the ablation proper: every mode at the largest scale, measured beside the model */
    int top = sc[ns - 1];
    sb_t b = {0};
    sb_printf(&b, "# entry measured model model_in_training_rate exposed_ms(measured) "
                  "exposed_ms(model)\n");
    for (size_t e = 0; e < ne; e++) {
        const abrow_t *r = row(ab, names[e], top);
        if (!r) continue;
        sb_printf(&b, "%s", sanitize_name(a, names[e]));
        double v[5] = {r->eff, r->have_pred ? r->pred.efficiency : NAN,
                       r->have_train ? r->train.efficiency : NAN, r->exposed_s * 1e3,
                       r->have_pred ? r->pred.exposed_s * 1e3 : NAN};
        for (int k = 0; k < 5; k++) sb_printf(&b, isfinite(v[k]) ? " %.6g" : " NaN", v[k]);
        sb_puts(&b, "\n");
    }
    name = "ablation_modes";
    title = ar_printf(a, "gradient reduction at %d ranks: efficiency per mode, measured and model",
                      top);
    gp = ar_printf(a,
                   "%sset style data histograms\nset style histogram clustered gap 1\n"
                   "set style fill solid 0.8 border -1\nset xtics rotate by -30\n"
                   "set yrange [0:1.15]\nset key top right\n"
                   "plot '%s.dat' using 2:xtic(1) title 'measured', '' using 3 title 'model', "
                      "'' using 4 title 'model at the in-training reduction rate'\n%s",
                   plots_gp_header(a, name, title, "entry (mode)", "efficiency"), name,
                   plots_gp_footer);
    plots_add(a, dir, pl, name, title, &b, gp);
    sb_free(&b);
    if (ab->ext.nseries && !ab->model_note)
        model_plot(a, dir, &ab->ext, "model_efficiency",
                   "model: efficiency per mode at further scales", pl);
}

static void link(sb_t *o, const plots_t *pl, const char *name)
{
    for (size_t i = 0; i < pl->n; i++) {
        if (strcmp(pl->p[i].name, name)) continue;
        if (pl->p[i].drawn)
            sb_printf(o, "\n![%s](plots/%s.png)\n\n(SVG: plots/%s.svg; data and script: "
                         "plots/%s.dat, plots/%s.gp)\n", pl->p[i].title, name, name, name, name);
        else
            sb_printf(o, "\n(plot %s not drawn; data and script: plots/%s.dat, plots/%s.gp)\n",
                      name, name, name);
    }
}

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    const ablation_t *ab = self;
    const plots_t *pl = &c->pl;
    if (!ab->active) return;
    sb_puts(o, "\n## Gradient reduction: modes side by side\n\n"
               "One row per stemdl entry and scale. Efficiency as above (against the entry's "
               "smallest scale); exposed = the main thread waiting for reductions after "
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
        sb_printf(o, "| %s | %s | %.3g | %d | ", r->bench, r->mode_name, r->mode.cycle_s * 1e3,
                  r->scale);
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
    link(o, pl, "ablation_modes");
    link(o, pl, "ablation_efficiency");
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
    link(o, pl, "model_efficiency");
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
