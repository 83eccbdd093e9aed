/* Report section, per benchmark: step time, throughput and scaling; FLOP
 * rates; the network's counts; time per kernel kind; and their figures
 * (<bench>_throughput, _efficiency, _flops, _kernels).  For records with timed
 * steps (stemdl's). */
#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include "harness/plots/axis.h"
#include "harness/report/runctx.h"

static void g(sb_t *b, double v)
{
    if (isfinite(v)) sb_printf(b, "%.4g", v);
    else sb_puts(b, "n/a");
}

static void md(sb_t *o, const runctx_t *c, const bres_t *b)
{
    int any = 0;
    for (size_t k = 0; k < b->ns; k++) any |= b->s[k].n > 0;
    if (!any) return;
    sb_puts(o, "\n### Step time, throughput, scaling\n\n"
               "| scale | devices | launches ok | timed steps | median step | 95% CI | min | max "
               "| per-launch medians | samples/s [95% CI] | efficiency [95% CI] |\n"
               "|---:|---:|---:|---:|---:|---|---:|---:|---|---|---|\n");
    for (size_t i = 0; i < b->ns; i++) {
        const sres_t *s = &b->s[i];
        sb_printf(o, "| %d%s | %d | %d/%d | %zu | ", s->scale, report_sim_mark(c, b->name, s->scale),
                  s->devices, s->nok, s->nlaunch, s->n);
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
              b->scaling == SCALING_WEAK     ? "E(N) = X(N) N0 / (N X(N0)), X the samples/s at a "
                                               "fixed batch per rank"
              : b->scaling == SCALING_STRONG ? "E(N) = T(N0) N0 / (N T(N)), T the median step time "
                                               "at a fixed global batch"
                                             : "E(N) = T(N0) N0 / (N T(N)), T the median step time "
                                               "while more ranks split each sample (spatial)");
    sb_puts(o, "\n### FLOP rates (executed FLOPs: every kernel of a step)\n\n"
               "| scale | FLOP/step | sustained | peak | sustained/device | peak/device "
               "| convention sustained | fraction of device peak |\n"
               "|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < b->ns; i++) {
        const sres_t *s = &b->s[i];
        if (!s->n) continue;
        double d = s->devices > 0 ? s->devices : s->scale;
        sb_printf(o, "| %d%s | ", s->scale, report_sim_mark(c, b->name, s->scale));
        report_si(o, s->exec_per_step, "FLOP"), sb_puts(o, " | ");
        report_si(o, s->sustained, "FLOP/s"), sb_puts(o, " | ");
        report_si(o, s->peak, "FLOP/s"), sb_puts(o, " | ");
        report_si(o, s->sustained / d, "FLOP/s"), sb_puts(o, " | ");
        report_si(o, s->peak / d, "FLOP/s"), sb_puts(o, " | ");
        report_si(o, s->conv_sustained, "FLOP/s"), sb_puts(o, " | ");
        if (isfinite(s->frac_peak)) sb_printf(o, "%.1f%% |\n", 100 * s->frac_peak);
        else sb_puts(o, "unknown |\n");
    }
    sb_puts(o, "\nSustained: executed FLOPs of all timed steps / their total time. Peak: "
               "executed FLOPs of one step / the fastest step. Convention: 3 x forward conv "
               "FLOPs, as the published STEMDL figures count.\n");
    sb_puts(o, "\nNetwork, per sample: forward conv ");
    report_si(o, b->fwd_conv_per_sample, "FLOP");
    sb_puts(o, ", convention (3x) ");
    report_si(o, b->conv_per_sample, "FLOP");
    sb_puts(o, ", executed ");
    report_si(o, b->exec_per_sample, "FLOP");
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
            report_si(o, x->flops, "FLOP");
            sb_printf(o, " | %.4g ms | %.1f%% | ", x->time_s * 1e3, tot > 0 ? 100 * x->time_s / tot : 0);
            report_si(o, x->time_s > 0 ? x->flops / x->time_s : NAN, "FLOP/s");
            sb_puts(o, " |\n");
        }
    }
    static const char *const figs[] = {"throughput", "efficiency", "flops", "kernels"};
    for (int i = 0; i < 4; i++)
        report_plot_link(o, &c->pl, ar_printf(c->a, "%s_%s", b->name, figs[i]));
}

static void scale_plots(arena_t *a, const char *dir, const bres_t *b, plots_t *out)
{
    const sres_t *base = NULL;
    for (size_t i = 0; i < b->ns && !base; i++)
        if (isfinite(b->s[i].thr)) base = &b->s[i];
    if (!base) return;
    sb_t t = {0}, e = {0}, f = {0};
    sb_puts(&t, "# scale  throughput_samples_per_s  ci_lo  ci_hi  ideal\n");
    sb_puts(&e, "# scale  efficiency  ci_lo  ci_hi\n");
    sb_puts(&f, "# scale  sustained_flops  peak_flops  convention_sustained_flops  "
                "sustained_per_device\n");
    for (size_t i = 0; i < b->ns; i++) {
        const sres_t *s = &b->s[i];
        if (!s->n) continue;
        sb_printf(&t, "%d", s->scale);
        plots_datum(&t, s->thr), plots_datum(&t, s->thr_lo), plots_datum(&t, s->thr_hi);
        plots_datum(&t, base->thr * s->scale / base->scale);
        sb_puts(&t, "\n");
        sb_printf(&e, "%d", s->scale);
        plots_datum(&e, s->eff), plots_datum(&e, s->eff_lo), plots_datum(&e, s->eff_hi);
        sb_puts(&e, "\n");
        sb_printf(&f, "%d", s->scale);
        plots_datum(&f, s->sustained), plots_datum(&f, s->peak), plots_datum(&f, s->conv_sustained);
        plots_datum(&f, s->sustained / (s->devices > 0 ? s->devices : s->scale));
        sb_puts(&f, "\n");
    }
    const char *xl = "scale (ranks; one per GPU where GPUs are used)";
    int *sc = ar_alloc(a, (b->ns + 1) * sizeof *sc);
    for (size_t i = 0; i < b->ns; i++) sc[i] = b->s[i].n ? b->s[i].scale : 0;
    const char *xaxis = axis_ranks(a, sc, b->ns); /* integer ticks at the scales run */
    /* rates with one SI prefix for the axis, from 0 (a throughput axis that
     * starts at 1.5 makes 1.6 look like twice 1.5) */
    double top = 0, div;
    for (size_t i = 0; i < b->ns; i++)
        if (isfinite(b->s[i].thr_hi) && b->s[i].thr_hi > top) top = b->s[i].thr_hi;
    const char *pre = axis_si(top, &div);
    char *name = ar_printf(a, "%s_throughput", b->name);
    char *title = ar_printf(a, "%s: throughput (%s scaling)", b->name, scaling_name(b->scaling));
    char *gp = ar_printf(a,
                         "%s%sset yrange [0:*]\nset format y '%%g'\n"
                         "plot '%s.dat' using 1:($2/%g):($3/%g):($4/%g) with yerrorlines lw 2 pt 7 "
                         "title 'measured (median, 95%% CI)', \\\n"
                         "     '%s.dat' using 1:($5/%g) with lines dt 2 lw 2 title 'ideal (linear "
                         "from the smallest scale)'\n%s",
                         plots_gp_header(a, name, title, xl, ar_printf(a, "%ssamples/s", pre)),
                         xaxis, name, div, div, div, name, div, plots_gp_footer);
    plots_add(a, dir, out, name, title, &t, gp);
    name = ar_printf(a, "%s_efficiency", b->name);
    title = ar_printf(a, "%s: %s scaling efficiency", b->name, scaling_name(b->scaling));
    /* the y range holds every CI bound drawn (a CI above 1.2 was cut) */
    double *ev = ar_alloc(a, (3 * b->ns + 1) * sizeof *ev);
    size_t nev = 0;
    for (size_t i = 0; i < b->ns; i++)
        if (b->s[i].n) ev[nev++] = b->s[i].eff, ev[nev++] = b->s[i].eff_lo, ev[nev++] = b->s[i].eff_hi;
    /* the published reference where one applies: STEMDL's weak-scaling
     * efficiency on Summit (reference/summit-2019.yaml), drawn as a line
     * with its scale in the key, the run's own scale beside it */
    int summit = b->scaling == SCALING_WEAK && b->kind && !strcmp(b->kind, "stemdl");
    char *summit_line = summit ? ar_printf(a, ", \\\n     %.2f with lines dt 3 lw 2 lc rgb 'red' "
                                              "title 'published: Summit 2019, %.2f at 27,600 "
                                              "V100 (reference/summit-2019.yaml)'",
                                           SUMMIT_EFFICIENCY, SUMMIT_EFFICIENCY)
                               : "";
    gp = ar_printf(a, "%s%s%s"
                      "plot '%s.dat' using 1:2:3:4 with yerrorlines lw 2 pt 7 title "
                      "'measured (95%% CI)', \\\n"
                      "     1 with lines dt 2 lc rgb 'gray40' title 'ideal'%s\n%s",
                   plots_gp_header(a, name, title, xl, "efficiency"), xaxis,
                   axis_yfit(a, ev, nev, 0, 1.1), name, summit_line, plots_gp_footer);
    plots_add(a, dir, out, name, title, &e, gp);
    name = ar_printf(a, "%s_flops", b->name);
    title = ar_printf(a, "%s: FLOP rate (executed FLOPs)", b->name);
    /* one SI prefix for the whole axis, chosen from the data: "170 GFLOP/s"
     * ticks, not "170.00GFLOP/s" or 1.7e+11 */
    top = 0;
    for (size_t i = 0; i < b->ns; i++)
        if (isfinite(b->s[i].peak) && b->s[i].peak > top) top = b->s[i].peak;
    for (size_t i = 0; i < b->ns; i++)
        if (isfinite(b->s[i].sustained) && b->s[i].sustained > top) top = b->s[i].sustained;
    pre = axis_si(top, &div);
    gp = ar_printf(a,
                   "%s%sset yrange [0:*]\nset format y '%%g'\n"
                   "plot '%s.dat' using 1:($2/%g) with linespoints lw 2 pt 7 title 'sustained', \\\n"
                   "     '%s.dat' using 1:($3/%g) with linespoints lw 2 pt 5 title 'peak (fastest "
                   "step)', \\\n"
                   "     '%s.dat' using 1:($5/%g) with linespoints lw 1 pt 6 title 'sustained per "
                   "device'\n%s",
                   plots_gp_header(a, name, title, xl, ar_printf(a, "%sFLOP/s", pre)), xaxis,
                   name, div, name, div, name, div, plots_gp_footer);
    plots_add(a, dir, out, name, title, &f, gp);
    sb_free(&t), sb_free(&e), sb_free(&f);
}

static void kernel_plot(arena_t *a, const char *dir, const bres_t *b, plots_t *out)
{
    const sres_t *top = NULL; /* kinds in the order of the largest scale that has them */
    size_t ncol = 0;
    for (size_t i = 0; i < b->ns; i++)
        if (b->s[i].nkinds) top = &b->s[i], ncol++;
    if (!top) return;
    sb_t k = {0};
    sb_puts(&k, "kernel");
    for (size_t i = 0; i < b->ns; i++)
        if (b->s[i].nkinds) sb_printf(&k, " n=%d", b->s[i].scale);
    sb_puts(&k, "\n");
    for (size_t j = 0; j < top->nkinds; j++) {
        sb_puts(&k, sanitize_name(a, top->kinds[j].kind));
        for (size_t i = 0; i < b->ns; i++) {
            const sres_t *s = &b->s[i];
            if (!s->nkinds) continue;
            double v = NAN;
            for (size_t x = 0; x < s->nkinds; x++)
                if (!strcmp(s->kinds[x].kind, top->kinds[j].kind)) v = s->kinds[x].time_s * 1e3;
            plots_datum(&k, v);
        }
        sb_puts(&k, "\n");
    }
    char *name = ar_printf(a, "%s_kernels", b->name);
    char *title = ar_printf(a, "%s: time per step by kernel kind (rank 0)", b->name);
    char *gp = ar_printf(a,
                         "%sset style data histograms\nset style histogram clustered gap 1\n"
                         "set style fill solid 0.8 border -1\nset xtics rotate by -35\n"
                         "set yrange [0:*]\n"
                         "plot for [i=2:%zu] '%s.dat' using i:xtic(1) title columnheader(i)\n%s",
                         plots_gp_header(a, name, title, "kernel kind", "ms per step"), ncol + 1,
                         name, plots_gp_footer);
    plots_add(a, dir, out, name, title, &k, gp);
    sb_free(&k);
}

static void plots(const runctx_t *c, const bres_t *b, const char *dir, plots_t *pl)
{
    scale_plots(c->a, dir, b, pl);
    kernel_plot(c->a, dir, b, pl);
}

const bsection_t bsection_training = {.name = "training", .plots = plots, .md = md};
