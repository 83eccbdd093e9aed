/* Report section: Lion's update exchange side by side (docs/lioncub.md).
 * One row per stemdl entry and scale whose records carry an update_exchange
 * block of the Lion optimizer: the emulated network rate (the entry's
 * EXADL_NET_RATE, harness/launchers/netns.sh), the exchange mode and its
 * momentum sync, the step time with its 95% CI (all repetitions pooled),
 * the exchange's time, wire bytes and momentum-sync bytes per step (medians
 * of the first record at that scale), the speedup over the entry with
 * exchange grad at the same rate, scale and network, the loss after the last timed
 * step, and the share of weights whose local sign differs from the agreed
 * one.  Metrics exchange_s, wire_bytes_per_step, speedup_over_grad,
 * final_loss; plots lioncub_speedup (every entry at the largest scale) and
 * lioncub_loss (the loss per step of the longest runs there).  The numbers
 * are the update_exchange block's (harness/blocks/update_exchange/). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/blocks/training/blk_training.h"
#include "harness/blocks/update_exchange/der_update_exchange.h"
#include "harness/report/runctx.h"

static const char *mode_of(arena_t *a, const lcrow_t *r)
{
    if (!strcmp(r->ux->exchange, "grad")) return "grad";
    const char *ms = r->ux->momentum_sync ? r->ux->momentum_sync : "none";
    if (!strcmp(ms, "none")) return ar_printf(a, "%s", r->ux->exchange);
    if (!strcmp(ms, "every")) return ar_printf(a, "%s+sync/%lld", r->ux->exchange, r->ux->sync_every);
    return ar_printf(a, "%s+sel/%lld>%.3g", r->ux->exchange, r->ux->sync_every, r->ux->sync_threshold);
}

static void plots(const runctx_t *c, const void *self, const char *dir, plots_t *pl)
{
    const lioncub_t *L = self;
    arena_t *a = c->a;
    if (!L->n) return;
    int top = 0;
    for (size_t i = 0; i < L->n; i++)
        if (L->r[i].s->scale > top) top = L->r[i].s->scale;
    sb_t d = {0}, l = {0};
    size_t nbars = 0, nlines = 0, maxsteps = 0;
    sb_puts(&d, "# entry speedup lo hi\n");
    for (size_t i = 0; i < L->n; i++) {
        const lcrow_t *r = &L->r[i];
        if (r->s->scale != top) continue;
        if (rec_training(r->s->rec)->nloss > maxsteps) maxsteps = rec_training(r->s->rec)->nloss;
        if (!isfinite(r->speedup) || !strcmp(r->ux->exchange, "grad")) continue;
        sb_printf(&d, "%s", sanitize_name(a, r->b->name));
        plots_datum(&d, r->speedup), plots_datum(&d, r->sp_lo), plots_datum(&d, r->sp_hi);
        sb_puts(&d, "\n");
        nbars++;
    }
    if (nbars) {
        const char *name = "lioncub_speedup";
        char *title = ar_printf(a, "Lion update exchange at %d ranks: step-time speedup over grad", top);
        char *gp = ar_printf(a, "%sset style data histograms\nset style histogram errorbars gap 1 lw 1\n"
                                "set style fill solid 0.7 border -1\nset xtics rotate by -30\n"
                                "set yrange [0:*]\nunset key\n"
                                "plot '%s.dat' using 2:3:4:xtic(1), 1 with lines dt 2 lc rgb 'black'\n%s",
                             plots_gp_header(a, name, title, "entry", "speedup (x)"), name,
                             plots_gp_footer);
        plots_add(a, dir, pl, name, title, &d, gp);
    }
    /* the loss of every timed step of the longest runs at the top scale, one
     * column per entry */
#define LONGEST(r) ((r)->s->scale == top && rec_training((r)->s->rec)->nloss == maxsteps)
    sb_puts(&l, "step");
    for (size_t i = 0; i < L->n; i++)
        if (LONGEST(&L->r[i])) sb_printf(&l, " %s", sanitize_name(a, L->r[i].b->name)), nlines++;
    sb_puts(&l, "\n");
    for (size_t k = 0; k < maxsteps; k++) {
        sb_printf(&l, "%zu", k + 1);
        for (size_t i = 0; i < L->n; i++)
            if (LONGEST(&L->r[i])) plots_datum(&l, rec_training(L->r[i].s->rec)->loss[k]);
        sb_puts(&l, "\n");
    }
    if (nlines && maxsteps) {
        const char *name = "lioncub_loss";
        char *title = ar_printf(a, "Lion update exchange at %d ranks: loss per timed step", top);
        char *gp = ar_printf(a, "%sset key outside right\nplot for [i=2:%zu] '%s.dat' using 1:i "
                                "with linespoints title columnheader(i)\n%s",
                             plots_gp_header(a, name, title, "timed step", "loss (mean over ranks)"),
                             nlines + 1, name, plots_gp_footer);
        plots_add(a, dir, pl, name, title, &l, gp);
    }
#undef LONGEST
    sb_free(&d);
    sb_free(&l);
}

static void num(sb_t *o, double v, double scale, const char *fmt)
{
    if (isfinite(v)) sb_printf(o, fmt, v * scale);
    else sb_puts(o, "-");
}

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    const lioncub_t *L = self;
    if (!L->n) return;
    sb_puts(o, "\n## Lion update exchange (docs/lioncub.md)\n\n"
               "One row per stemdl entry with the Lion optimizer and scale. rate: the emulated "
               "network (EXADL_NET_RATE, the netns launcher: the ranks' TCP over a loopback "
               "shaped to that total rate); mode: exchange (grad: fp32 allreduce of gradients; "
               "1bit: majority vote of signs; pbit: sum of signs in ceil(log2(ranks+1)) bits) "
               "and momentum sync (sync/K: every K steps; sel/K>T: every K steps the layers "
               "whose sign disagreement exceeds T). Step: median with 95% CI, timed steps of "
               "all repetitions pooled, max over ranks. Exchange: the gradient engine's time "
               "in the exchange per step (overlaps backward; exposed: what it did not hide); "
               "collective: of which inside the collectives; wire: bytes each rank sends per "
               "step (a bandwidth-optimal algorithm's count), momentum sync: mean bytes per "
               "step for the sync; medians of the first record at that scale. Speedup: grad's "
               "median step over this one at the same rate and scale, bounded by the two "
               "CIs. Loss: after the last timed step (the same seed and data in every mode). "
               "Disagree: weights whose local sign differs from the agreed update.\n\n"
               "| entry | rate | mode | scale | step s [95% CI] | exchange ms | exposed ms | "
               "collective ms | wire MB/step | sync MB/step | speedup over grad [bounds] | "
               "loss | disagree |\n|---|---|---|---:|---|---:|---:|---:|---:|---:|---|---:|---:|\n");
    for (size_t i = 0; i < L->n; i++) {
        const lcrow_t *r = &L->r[i];
        const stats_summary_t *st = &r->s->st;
        sb_printf(o, "| %s | %s | %s | %d | %.4g [%.4g, %.4g] | ", r->b->name,
                  r->rate ? r->rate : "-", mode_of(c->a, r), r->s->scale, st->median, st->ci_lo,
                  st->ci_hi);
        num(o, r->exch.median, 1e3, "%.4g"), sb_puts(o, " | ");
        num(o, r->exposed, 1e3, "%.4g"), sb_puts(o, " | ");
        num(o, r->collective, 1e3, "%.4g"), sb_puts(o, " | ");
        num(o, r->wire, 1e-6, "%.4g"), sb_puts(o, " | ");
        num(o, r->sync, 1e-6, "%.4g"), sb_puts(o, " | ");
        if (!strcmp(r->ux->exchange, "grad"))
            sb_puts(o, "1 (baseline)");
        else if (isfinite(r->speedup))
            sb_printf(o, "%.3g [%.3g, %.3g]", r->speedup, r->sp_lo, r->sp_hi);
        else
            sb_puts(o, "- (no grad entry at this rate and scale)");
        sb_puts(o, " | ");
        num(o, r->loss, 1, "%.5g"), sb_puts(o, " | ");
        num(o, r->disagree, 1, "%.3f"), sb_puts(o, " |\n");
    }
    report_plot_link(o, &c->pl, "lioncub_speedup");
    report_plot_link(o, &c->pl, "lioncub_loss");
}

const section_t section_lioncub = {.name = "lioncub", .plots = plots, .md = md};
