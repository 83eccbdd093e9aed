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
 * lioncub_loss (the loss per step of the longest runs there). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/stats.h"
#include "harness/blocks/training/blk_training.h"
#include "harness/blocks/update_exchange/blk_update_exchange.h"
#include "harness/report/runctx.h"
#include "harness/workloads/workload.h"

typedef struct {
    const bres_t *b;
    const sres_t *s;
    const uxinfo_t *ux;
    const char *rate;          /* EXADL_NET_RATE of the entry, or NULL */
    stats_summary_t exch;      /* exchange time per step */
    double exposed, collective, wire, sync, disagree, loss;
    double speedup, sp_lo, sp_hi; /* over exchange grad at the same rate and scale */
} lcrow_t;

typedef struct {
    lcrow_t *r;
    size_t n;
} lioncub_t;

static const char *rate_of(const suite_t *s, const char *bench)
{
    for (size_t i = 0; i < s->nbench; i++) {
        if (strcmp(s->bench[i].name, bench)) continue;
        for (size_t k = s->bench[i].nenv; k-- > 0;) /* the benchmark's own env comes last */
            if (!strcmp(s->bench[i].env[k].key, "EXADL_NET_RATE")) return s->bench[i].env[k].value;
    }
    return NULL;
}

static double med(const double *x, size_t n)
{
    size_t k = 0;
    double *y = malloc((n ? n : 1) * sizeof *y);
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i])) y[k++] = x[i];
    double m = k ? stats_median(y, k) : NAN;
    free(y);
    return m;
}

static double mean(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += x[i];
    return n ? s / (double)n : NAN;
}

static int same(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

/* the same training work: network, image, batch and steps (the exchange may differ) */
static int same_work(const record_t *a, const record_t *b)
{
    static const char *const also[] = {"steps", NULL};
    return training_same_work(a, b, also);
}

static void *build(const runctx_t *c)
{
    lioncub_t *L = ar_alloc(c->a, sizeof *L);
    size_t cap = 0;
    for (size_t i = 0; i < c->an.nb; i++) cap += c->an.b[i].ns;
    L->r = ar_alloc(c->a, (cap + 1) * sizeof *L->r);
    for (size_t i = 0; i < c->an.nb; i++) {
        const bres_t *b = &c->an.b[i];
        for (size_t k = 0; k < b->ns; k++) {
            const sres_t *s = &b->s[k];
            const uxinfo_t *u = s->rec ? rec_ux(s->rec) : NULL;
            if (!u || strcmp(u->optimizer, "lion")) continue;
            lcrow_t *r = &L->r[L->n++];
            r->b = b, r->s = s, r->ux = u;
            r->rate = rate_of(&c->s, b->name);
            stats_summarize(u->exchange_s, u->nsteps, &r->exch);
            r->exposed = med(u->exposed_s, u->nsteps);
            r->collective = med(u->collective_s, u->nsteps);
            r->wire = med(u->wire_bytes, u->nsteps);
            r->sync = mean(u->sync_bytes, u->nsteps);
            r->disagree = med(u->disagreement, u->nsteps);
            r->loss = training_final_loss(s->rec);
            r->speedup = r->sp_lo = r->sp_hi = NAN;
        }
    }
    /* the speedup over exchange grad at the same rate and scale: the ratio of
     * the median step times, bounded by the two 95% CIs (joint coverage of
     * both intervals at least 90%) */
    for (size_t i = 0; i < L->n; i++) {
        lcrow_t *r = &L->r[i];
        for (size_t j = 0; j < L->n; j++) {
            const lcrow_t *g = &L->r[j];
            if (strcmp(g->ux->exchange, "grad") || g->s->scale != r->s->scale ||
                !same(g->rate, r->rate) || !same_work(g->s->rec, r->s->rec))
                continue;
            r->speedup = g->s->st.median / r->s->st.median;
            r->sp_lo = g->s->st.ci_lo / r->s->st.ci_hi;
            r->sp_hi = g->s->st.ci_hi / r->s->st.ci_lo;
            break;
        }
    }
    return L;
}

static void add(arena_t *a, mtable_t *t, const lcrow_t *r, const char *name, double v, double lo,
                double hi, double n)
{
    if (!isfinite(v)) return;
    kv_t *p = ar_alloc(a, 3 * sizeof *p);
    p[0] = (kv_t){"exchange", r->ux->exchange};
    p[1] = (kv_t){"rate", r->rate ? r->rate : "none"};
    const metric_info_t *mi = metric_info(name);
    metric_t m = {.bench = r->b->name, .program = r->b->program, .kind = r->b->kind,
                  .scale = r->s->scale, .metric = name, .value = v, .lo = lo, .hi = hi, .n = n,
                  .unit = mi ? mi->unit : "", .better = mi ? mi->better : 0, .params = p,
                  .nparams = 2};
    mtable_add(a, t, &m);
}

static void metrics(const runctx_t *c, const void *self, mtable_t *t)
{
    const lioncub_t *L = self;
    for (size_t i = 0; i < L->n; i++) {
        const lcrow_t *r = &L->r[i];
        add(c->a, t, r, "exchange_s", r->exch.median, r->exch.ci_lo, r->exch.ci_hi,
            (double)r->exch.n);
        add(c->a, t, r, "wire_bytes_per_step", r->wire, NAN, NAN, (double)r->ux->nsteps);
        if (strcmp(r->ux->exchange, "grad"))
            add(c->a, t, r, "speedup_over_grad", r->speedup, r->sp_lo, r->sp_hi, NAN);
        add(c->a, t, r, "final_loss", r->loss, NAN, NAN, NAN);
    }
}

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

const section_t section_lioncub = {
    .name = "lioncub", .build = build, .metrics = metrics, .plots = plots, .md = md};
