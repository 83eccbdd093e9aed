/* Report section, per benchmark with a spatial decomposition (cosmoflow):
 * for every scale the split and groups that ran, the halo exchange's time
 * and bytes per step, the feature gather, and the spatial model's
 * prediction (harness/model/spatial.h) beside each measured point, with the
 * split the model would pick for that rank count; the figure
 * <bench>_spatial puts measured and predicted step and halo times side by
 * side.  Inputs: the run's one-rank cosmoflow record and allreduce sweep
 * (docs/cosmoflow.md "The model").  The numbers are the spatial block's
 * (harness/blocks/spatial/der_spatial.c).
 *
 * A 2D network split spatially (stemdl --spatial, climate --spatial;
 * docs/spatial.md), whose record has no spatial block: per scale the grid,
 * the per-level plan (a network without per-level plans, climate, records
 * none: every level is split, shown as h), rank 0's halo and shuffle bytes
 * and messages per step (the network block), the
 * measured step and, where the record carries it (a run of what `exadl
 * model --spatial --stemdl` chose: --model-predicted-step-s), the plan
 * model's prediction, its ratio to the measured median and the machine's
 * load during the launches (results.yaml's interference), since the ratio
 * on a loaded machine says more about the load than about the model. */
#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include "harness/blocks/network/blk_network.h"
#include "harness/blocks/spatial/der_spatial.h"
#include "harness/plots/axis.h"
#include "harness/report/runctx.h"
#include "harness/util/esc.h"

static void g(sb_t *o, double v)
{
    if (isfinite(v)) sb_printf(o, "%.4g", v);
    else sb_puts(o, "n/a");
}

/* the entry's derived numbers (NULL: no spatial block) */
static const spentry_t *entry_of(const runctx_t *c, const bres_t *b)
{
    const spentry_t *e = spatial_of(c->d.derived[BLOCK_spatial], &c->an, b);
    return e && e->active ? e : NULL;
}

/* the scales of a benchmark whose records are split 2D runs (none: 0) */
static size_t split2d_scales(const bres_t *b)
{
    size_t n = 0;
    for (size_t i = 0; i < b->ns; i++) {
        const record_t *r = b->s[i].rec;
        if (r && (rec_network(r)->spatial_ranks > 1 ||
                  isfinite(rec_network(r)->predicted_step_s)))
            n++;
    }
    return n;
}

/* the 1-minute load average before the launches of bench at scale, lowest
 * and highest (NaN: not read) */
static void load_of(const runctx_t *c, const char *bench, int scale, double *lo, double *hi)
{
    *lo = *hi = NAN;
    for (size_t i = 0; i < c->ri.no; i++) {
        const outcome_t *x = &c->ri.o[i];
        double l = x->intf.load1_before;
        if (!x->bench || strcmp(x->bench, bench) || x->scale != scale || !isfinite(l)) continue;
        if (!(l >= *lo)) *lo = l;
        if (!(l <= *hi)) *hi = l;
    }
}

static void split2d_md(sb_t *o, const runctx_t *c, const bres_t *b)
{
    sb_puts(o, "\n### Spatial split and per-level plan\n\n"
               "| ranks | grid HxW | plan | ranks per sample | halo bytes/step rank 0 | halo "
               "messages | shuffle bytes/step rank 0 | shuffle messages | step measured [95% CI] "
               "| step predicted | predicted / measured | load before |\n"
               "|---:|---|---|---:|---:|---:|---:|---:|---|---:|---:|---|\n");
    for (size_t i = 0; i < b->ns; i++) {
        const sres_t *s = &b->s[i];
        const nwinfo_t *nw = s->rec ? rec_network(s->rec) : NULL;
        if (!nw || !(nw->spatial_ranks > 1 || isfinite(nw->predicted_step_s))) continue;
        const char *grid = record_config(s->rec, "spatial");
        int split = nw->spatial_ranks > 1;
        sb_printf(o, "| %d | %s | %s | %.0f | ", s->scale, esc_md(c->a, grid ? grid : "1"),
                  split ? esc_md(c->a, nw->spatial_plan ? nw->spatial_plan : "h") : "data",
                  split ? nw->spatial_ranks : 1);
        g(o, split ? nw->halo_bytes : 0), sb_puts(o, " | "), g(o, split ? nw->halo_msgs : 0);
        sb_puts(o, " | "), g(o, split ? nw->shuffle_bytes : 0), sb_puts(o, " | ");
        g(o, split ? nw->shuffle_msgs : 0);
        sb_printf(o, " | %.4g s [%.4g, %.4g] | ", s->st.median, s->st.ci_lo, s->st.ci_hi);
        if (isfinite(nw->predicted_step_s)) {
            sb_printf(o, "%.4g s | ", nw->predicted_step_s);
            if (s->st.median > 0) sb_printf(o, "%.3f | ", nw->predicted_step_s / s->st.median);
            else sb_puts(o, "n/a | ");
        } else {
            sb_puts(o, "- | - | ");
        }
        double lo, hi;
        load_of(c, b->name, s->scale, &lo, &hi);
        if (!isfinite(lo)) sb_puts(o, "n/a |\n");
        else if (lo == hi) sb_printf(o, "%.1f |\n", lo);
        else sb_printf(o, "%.1f-%.1f |\n", lo, hi);
    }
    sb_puts(o, "\nThe grid is the run's `--spatial` (N alone: N x 1, along H). The plan gives "
               "each level of the network its decomposition (`h`: the grid's tiles with halos; "
               "`s`: whole samples after an all-to-all shuffle); a network without per-level "
               "plans splits every level (`h`, no shuffles). Bytes and messages are counted by "
               "the benchmark (the record's `network` block; climate counts its busiest rank's, "
               "rank 0's where no axis is split more than 2 ways). The prediction is a plan model's "
               "for the run where the network has one (`exadl model --spatial --stemdl` puts it "
               "in the command and suite entry it prints, `--model-predicted-step-s`; \"-\": "
               "none recorded); the load is the 1-minute load "
               "average before the scale's launches (the machine's cores: the system section): "
               "on a shared machine the ratio measures the load as much as the model "
               "(docs/spatial.md).\n");
}

static void md(sb_t *o, const runctx_t *c, const bres_t *b)
{
    const spentry_t *e = entry_of(c, b);
    if (!e && split2d_scales(b)) split2d_md(o, c, b);
    if (!e) return;
    sb_puts(o, "\n### Spatial decomposition, halo exchange and the model\n\n");
    if (e->why) {
        sb_printf(o, "No prediction: %s.\n", e->why);
        return;
    }
    sb_puts(o, "| ranks | split DxHxW | groups | batch/group | step measured [95% CI] | predicted "
               "| predicted/measured | halo s/step measured | predicted | halo bytes/step rank 0 "
               "| predicted | gather s/step measured | predicted | efficiency measured | predicted "
               "| model's best for these ranks |\n"
               "|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (size_t i = 0; i < e->nsc; i++) {
        const spscale_t *x = &e->sc[i];
        const sres_t *s = x->s;
        const spinfo_t *sp = x->sp;
        const msp_t *p = &x->p;
        sb_printf(o, "| %d | %lldx%lldx%lld | %lld | %d | %.4g s [%.4g, %.4g] | %.4g s | %.3f | ",
                  s->scale, sp->split[0], sp->split[1], sp->split[2], sp->groups, x->batch,
                  s->st.median, s->st.ci_lo, s->st.ci_hi, p->step_s, p->step_s / s->st.median);
        g(o, x->halo_s), sb_puts(o, " | "), g(o, p->halo_s), sb_puts(o, " | ");
        g(o, sp->halo_bytes_per_sample * x->batch), sb_puts(o, " | "), g(o, p->halo_bytes);
        sb_puts(o, " | "), g(o, x->gather_s), sb_puts(o, " | "), g(o, p->gather_s);
        sb_puts(o, " | "), g(o, s->eff), sb_puts(o, " | "), g(o, x->pred_eff);
        const msp_t *best = &x->best;
        if (x->have_best)
            sb_printf(o, " | %dx%dx%d x %d group%s, %.4g s |\n", best->split[0], best->split[1],
                      best->split[2], best->groups, best->groups == 1 ? "" : "s", best->step_s);
        else
            sb_puts(o, " | none fits |\n");
    }
    sb_printf(o,
              "\nMeasured halo and gather times are rank 0's exchange time per step (kernel rows "
              "`halo`, `gather`: packing, MPI and unpacking not hidden behind interior planes); "
              "bytes are rank 0's, counted by the benchmark. Predicted: the busiest rank's. The "
              "model (docs/cosmoflow.md): T = max over ranks (b sum_l c_l f_r + halo_r) + b head "
              "+ gather + optimizer + other + allreduce. Workload: %s. Links: %s.\n",
              e->in.work_source, e->in.net_source);
    report_plot_link(o, &c->pl, ar_printf(c->a, "%s_spatial", b->name));
}

static void plots(const runctx_t *c, const bres_t *b, const char *dir, plots_t *pl)
{
    const spentry_t *e = entry_of(c, b);
    if (!e || e->why) return;
    sb_t t = {0};
    size_t rows = 0;
    for (size_t i = 0; i < e->nsc; i++) {
        const sres_t *s = e->sc[i].s;
        const msp_t *p = &e->sc[i].p;
        sb_printf(&t, "%d", s->scale);
        plots_datum(&t, s->st.median), plots_datum(&t, s->st.ci_lo), plots_datum(&t, s->st.ci_hi);
        double hm = e->sc[i].halo_s;
        plots_datum(&t, p->step_s), plots_datum(&t, hm > 0 ? hm : NAN);
        plots_datum(&t, p->halo_s > 0 ? p->halo_s : NAN);
        sb_puts(&t, "\n");
        rows++;
    }
    if (rows < 1) {
        sb_free(&t);
        return;
    }
    int *sc = ar_alloc(c->a, (e->nsc + 1) * sizeof *sc);
    for (size_t i = 0; i < e->nsc; i++) sc[i] = e->sc[i].s->scale;
    const char *name = ar_printf(c->a, "%s_spatial", b->name);
    const char *title = ar_printf(c->a, "%s: step and halo time, measured and modelled", b->name);
    /* integer rank ticks; seconds on a log axis as 100 us / 10 ms */
    const char *gp = ar_printf(
        c->a,
        "%s%s%s"
        "plot '%s.dat' using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'step, measured (95%% CI)', \\\n"
        "     '%s.dat' using 1:5 with linespoints lw 2 dt 2 pt 6 title 'step, model', \\\n"
        "     '%s.dat' using 1:6 with linespoints lw 2 pt 5 title 'halo, measured (rank 0)', \\\n"
        "     '%s.dat' using 1:7 with linespoints lw 2 dt 2 pt 4 title 'halo, model'\n%s",
        plots_gp_header(c->a, name, title, "ranks", "time per step"), axis_ranks(c->a, sc, e->nsc),
        AXIS_LOG_TIME_Y, name, name, name, name,
        plots_gp_footer);
    plots_add(c->a, dir, pl, name, title, &t, gp);
    sb_free(&t);
}

const bsection_t bsection_spatial = {
    .name = "spatial",
    .plots = plots,
    .md = md,
};
