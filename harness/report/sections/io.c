/* Report section: data sets and time to train (docs/data.md): one row per
 * entry and scale (first record at the scale) whose training read a data set
 * or evaluated: the source, encoding and shuffle, rank 0's read GB/s and
 * exposed read time per step, and the time to train (steps, samples, epochs
 * to the target, or "not reached" with the budget), and the last
 * evaluation's validation MAE where the network reports it (CosmoFlow's
 * eval_error); the figure io_quality draws each row's validation loss after
 * each evaluation, io_mae its validation MAE (rows that report it).  Metrics
 * io_read_GBps, io_exposed_read_s, time_to_train_s, steps_to_target,
 * epochs_to_target, checkpoint_write_GBps; a line per row that wrote or
 * restored checkpoints.  The numbers are the io block's (harness/blocks/io/). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/blocks/io/der_io.h"
#include "harness/report/runctx.h"
#include "harness/util/esc.h"

/* the curve a figure draws: the validation loss (mae 0) or MAE (1) of row x,
 * NULL when x has none */
static const double *curve_of(const ioinfo_t *x, int mae)
{
    if (!x->has_ttt || !x->ncurve) return NULL;
    return mae ? x->curve_mae : x->curve_loss;
}

/* one figure: a line per row that has the curve */
static void curve_plot(const runctx_t *c, const iorun_t *D, const char *dir, plots_t *pl,
                       const char *name, const char *title, const char *ylabel, int mae)
{
    arena_t *a = c->a;
    size_t lines = 0;
    sb_t d = {0}, cmd = {0};
    /* one block of points per row, separated by two blank lines (gnuplot's
     * index); each line titled by its entry and scale through plots_gp_str */
    for (size_t i = 0; i < D->n; i++) {
        const ioinfo_t *x = D->r[i].d;
        const double *y = curve_of(x, mae);
        if (!y) continue;
        for (size_t k = 0; k < x->ncurve; k++) {
            sb_printf(&d, "%.0f", x->curve_step[k]);
            plots_datum(&d, y[k]);
            sb_puts(&d, "\n");
        }
        sb_puts(&d, "\n\n");
        char *t = ar_printf(a, "%s, %d ranks", D->r[i].b->name, D->r[i].scale);
        sb_printf(&cmd, "%s'%s.dat' index %zu using 1:2 with linespoints title %s",
                  lines ? ", " : "plot ", name, lines, plots_gp_str(a, t));
        lines++;
    }
    if (lines) {
        char *gp = ar_printf(a, "%sset key top right\n%s\n%s",
                             plots_gp_header(a, name, title, "training step", ylabel), cmd.s,
                             plots_gp_footer);
        plots_add(a, dir, pl, name, title, &d, gp);
    }
    sb_free(&d);
    sb_free(&cmd);
}

static void plots(const runctx_t *c, const void *self, const char *dir, plots_t *pl)
{
    curve_plot(c, self, dir, pl, "io_quality", "Validation loss after each evaluation",
               "validation loss", 0);
    curve_plot(c, self, dir, pl, "io_mae",
               "Validation MAE after each evaluation (CosmoFlow's eval_error)",
               "validation mean absolute error", 1);
}

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    const iorun_t *D = self;
    if (!D->n) return;
    sb_puts(o, "\n## Data sets and time to train (docs/data.md)\n\n"
               "Trainings that read a data set (`--data files:DIR`: shards; `grf`: the same "
               "samples made in memory) or evaluated on its validation split. Read GB/s: rank "
               "0's bytes read / its time in reads (the reader thread's); exposed: what a step "
               "waited for its batch, mean per step (rank 0). Time to train: MLPerf's run_start "
               "to the evaluation that reached the target loss, evaluations included; "
               "val MAE: the last evaluation's validation mean absolute error, where the "
               "network reports it (CosmoFlow's eval_error, MLPerf HPC's quality metric); "
               "staging (`--stage`: the copy to node-local storage before the first step, the "
               "slowest node's) comes on top of it (metric time_to_train_staged_s).\n\n"
               "| entry | scale | source | encoding | shuffle | read GB/s | exposed read s/step | "
               "target | steps | samples | epochs | time to train s | staging s | val MAE |\n"
               "|---|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < D->n; i++) {
        const iores_t *r = &D->r[i];
        const ioinfo_t *x = r->d;
        sb_printf(o, "| %s | %d | %s | %s | %s | %.3g | %.3g | ", esc_md(c->a, r->b->name),
                  r->scale, esc_md(c->a, x->has_io ? x->source : "-"),
                  esc_md(c->a, x->has_io ? x->encoding : "-"),
                  esc_md(c->a, x->has_io ? x->shuffle : "-"), r->read_GBps, r->exposed_per_step_s);
        if (!x->has_ttt || x->target_loss <= 0)
            sb_puts(o, "none | | | | | ");
        else if (x->reached)
            sb_printf(o, "%.4g | %.0f | %.0f | %.3g | %.4g | ", x->target_loss, x->steps_to_target,
                      x->samples_to_target, x->epochs_to_target, x->time_to_train_s);
        else
            sb_printf(o, "%.4g | not reached in %.0f | | | %.4g (budget) | ", x->target_loss,
                      x->ttt_steps, x->time_to_train_s);
        if (x->has_io && x->staging_s > 0) sb_printf(o, "%.4g | ", x->staging_s);
        else sb_puts(o, "- | ");
        const double *m = curve_of(x, 1);
        if (m) sb_printf(o, "%.4g |\n", m[x->ncurve - 1]);
        else sb_puts(o, "- |\n");
    }
    for (size_t i = 0; i < D->n; i++) {
        const ioinfo_t *x = D->r[i].d;
        if (x->has_ckpt && (x->ckpt_writes > 0 || x->restored_step > 0))
        {
            sb_printf(o, "\nCheckpoints, %s at %d ranks: %.0f written of %.4g MB each (all "
                         "ranks), %.3g GB/s",
                      esc_md(c->a, D->r[i].b->name), D->r[i].scale, x->ckpt_writes,
                      x->ckpt_bytes / 1e6, x->ckpt_GBps);
            if (x->restored_step > 0) sb_printf(o, "; restored from step %.0f", x->restored_step);
            sb_puts(o, ".\n");
        }
    }
    report_plot_link(o, &c->pl, "io_quality");
    report_plot_link(o, &c->pl, "io_mae");
}

const section_t section_io = {.name = "io", .plots = plots, .md = md};
