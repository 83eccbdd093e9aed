/* Report section, per benchmark with a spatial decomposition (cosmoflow):
 * for every scale the split and groups that ran, the halo exchange's time
 * and bytes per step, the feature gather, and the spatial model's
 * prediction (harness/model/spatial.h) beside each measured point, with the
 * split the model would pick for that rank count; the figure
 * <bench>_spatial puts measured and predicted step and halo times side by
 * side.  Inputs: the run's one-rank cosmoflow record and allreduce sweep
 * (docs/cosmoflow.md "The model"). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/blocks/spatial/blk_spatial.h"
#include "harness/model/spatial_input.h"
#include "harness/report/runctx.h"

static double kind_time(const sres_t *s, const char *kind)
{
    for (size_t j = 0; j < s->nkinds; j++)
        if (!strcmp(s->kinds[j].kind, kind)) return s->kinds[j].time_s;
    return 0;
}

static int batch_of(const record_t *r)
{
    const char *b = record_config(r, "batch");
    return b && atoi(b) > 0 ? atoi(b) : 1;
}

static void g(sb_t *o, double v)
{
    if (isfinite(v)) sb_printf(o, "%.4g", v);
    else sb_puts(o, "n/a");
}

/* The prediction for the configuration the record at scale s ran. */
static int predict(const mspin_t *in, const sres_t *s, msp_t *p)
{
    const spinfo_t *sp = s->rec ? rec_spatial(s->rec) : NULL;
    if (!sp) return -1;
    int split[3] = {(int)sp->split[0], (int)sp->split[1], (int)sp->split[2]};
    return msp_predict(&in->w, split, (int)sp->groups, batch_of(s->rec), &in->net, p);
}

static int inputs(const runctx_t *c, const bres_t *b, mspin_t *in, const char **why)
{
    int any = 0;
    for (size_t i = 0; i < b->ns; i++) any |= b->s[i].rec && rec_spatial(b->s[i].rec);
    if (!any) return -1;
    char err[512];
    if (msp_inputs_from_run(c->a, c->ri.o, c->ri.no, b->name, NULL, in, err, sizeof err)) {
        *why = ar_strdup(c->a, err);
        return 1;
    }
    return 0;
}

static double pred_eff(const bres_t *b, const msp_t *p0, const sres_t *s0, const msp_t *p,
                       const sres_t *s)
{
    double k = (double)s0->scale / s->scale;
    if (b->scaling == SCALING_WEAK) return p->samples_per_s * k / p0->samples_per_s;
    return p0->step_s * k / p->step_s;
}

static void md(sb_t *o, const runctx_t *c, const bres_t *b)
{
    mspin_t in;
    const char *why = NULL;
    int rc = inputs(c, b, &in, &why);
    if (rc < 0) return;
    sb_puts(o, "\n### Spatial decomposition, halo exchange and the model\n\n");
    if (rc > 0) {
        sb_printf(o, "No prediction: %s.\n", why);
        return;
    }
    sb_puts(o, "| ranks | split DxHxW | groups | batch/group | step measured [95% CI] | predicted "
               "| predicted/measured | halo s/step measured | predicted | halo bytes/step rank 0 "
               "| predicted | gather s/step measured | predicted | efficiency measured | predicted "
               "| model's best for these ranks |\n"
               "|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    const sres_t *s0 = NULL;
    msp_t p0;
    for (size_t i = 0; i < b->ns; i++) {
        const sres_t *s = &b->s[i];
        msp_t p;
        if (!s->n || predict(&in, s, &p)) continue;
        if (!s0) s0 = s, p0 = p;
        const spinfo_t *sp = rec_spatial(s->rec);
        int batch = batch_of(s->rec);
        sb_printf(o, "| %d | %lldx%lldx%lld | %lld | %d | %.4g s [%.4g, %.4g] | %.4g s | %.3f | ",
                  s->scale, sp->split[0], sp->split[1], sp->split[2], sp->groups, batch, s->st.median,
                  s->st.ci_lo, s->st.ci_hi, p.step_s, p.step_s / s->st.median);
        g(o, kind_time(s, "halo")), sb_puts(o, " | "), g(o, p.halo_s), sb_puts(o, " | ");
        g(o, sp->halo_bytes_per_sample * batch), sb_puts(o, " | "), g(o, p.halo_bytes);
        sb_puts(o, " | "), g(o, kind_time(s, "gather")), sb_puts(o, " | "), g(o, p.gather_s);
        sb_puts(o, " | "), g(o, s->eff), sb_puts(o, " | "), g(o, pred_eff(b, &p0, s0, &p, s));
        msp_t best;
        if (msp_best(&in.w, s->scale, (int)sp->groups * batch, &in.net, &best) == 0)
            sb_printf(o, " | %dx%dx%d x %d group%s, %.4g s |\n", best.split[0], best.split[1],
                      best.split[2], best.groups, best.groups == 1 ? "" : "s", best.step_s);
        else
            sb_puts(o, " | none fits |\n");
    }
    sb_printf(o,
              "\nMeasured halo and gather times are rank 0's exchange time per step (kernel rows "
              "`halo`, `gather`: packing, MPI and unpacking not hidden behind interior planes); "
              "bytes are rank 0's, counted by the benchmark. Predicted: the busiest rank's. The "
              "model (docs/cosmoflow.md): T = max over ranks (b sum_l c_l f_r + halo_r) + b head "
              "+ gather + optimizer + other + allreduce. Workload: %s. Links: %s.\n",
              in.work_source, in.net_source);
    report_plot_link(o, &c->pl, ar_printf(c->a, "%s_spatial", b->name));
}

static void plots(const runctx_t *c, const bres_t *b, const char *dir, plots_t *pl)
{
    mspin_t in;
    const char *why;
    if (inputs(c, b, &in, &why)) return;
    sb_t t = {0};
    size_t rows = 0;
    for (size_t i = 0; i < b->ns; i++) {
        const sres_t *s = &b->s[i];
        msp_t p;
        if (!s->n || predict(&in, s, &p)) continue;
        sb_printf(&t, "%d", s->scale);
        plots_datum(&t, s->st.median), plots_datum(&t, s->st.ci_lo), plots_datum(&t, s->st.ci_hi);
        double hm = kind_time(s, "halo");
        plots_datum(&t, p.step_s), plots_datum(&t, hm > 0 ? hm : NAN);
        plots_datum(&t, p.halo_s > 0 ? p.halo_s : NAN);
        sb_puts(&t, "\n");
        rows++;
    }
    if (rows < 1) {
        sb_free(&t);
        return;
    }
    const char *name = ar_printf(c->a, "%s_spatial", b->name);
    const char *title = ar_printf(c->a, "%s: step and halo time, measured and modelled", b->name);
    const char *gp = ar_printf(
        c->a,
        "%sset logscale y\nset key top right\n"
        "plot '%s.dat' using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'step, measured (95%% CI)', \\\n"
        "     '%s.dat' using 1:5 with linespoints lw 2 dt 2 pt 6 title 'step, model', \\\n"
        "     '%s.dat' using 1:6 with linespoints lw 2 pt 5 title 'halo, measured (rank 0)', \\\n"
        "     '%s.dat' using 1:7 with linespoints lw 2 dt 2 pt 4 title 'halo, model'\n%s",
        plots_gp_header(c->a, name, title, "ranks", "seconds per step"), name, name, name, name,
        plots_gp_footer);
    plots_add(c->a, dir, pl, name, title, &t, gp);
    sb_free(&t);
}

const bsection_t bsection_spatial = {
    .name = "spatial",
    .plots = plots,
    .md = md,
};
