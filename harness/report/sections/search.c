/* Report section: network search (docs/search.md, MENNDL): one row per
 * search launch (every repetition: each is one search) with its mode,
 * fitness, workers, candidates evaluated, candidates per hour, the worker
 * groups' idle fraction, the master's decision cost (host CPU time, median
 * and 99th percentile) and busy fraction, messages, and for a planted
 * fitness the candidates evaluated when the optimum came back.  Plot
 * search_best: the best fitness against candidates evaluated, one line per
 * launch.  Metrics search_* (params mode, fitness; the first record of each
 * entry).  The numbers are the search block's (harness/blocks/search/). */
#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include "harness/blocks/search/der_search.h"
#include "harness/report/runctx.h"

static void g(sb_t *o, double v)
{
    if (isfinite(v)) sb_printf(o, " %.4g |", v);
    else sb_puts(o, " n/a |");
}

static void plots(const runctx_t *c, const void *self, const char *dir, plots_t *pl)
{
    const srrun_t *S = self;
    arena_t *a = c->a;
    if (!S || !S->nl) return;
    sb_t d = {0}, p = {0};
    int lines = 0;
    for (size_t i = 0; i < S->nl; i++) {
        const srinfo_t *m = S->l[i].m;
        if (!m->ncurve) continue;
        /* a step line: the best holds until the next improvement */
        sb_printf(&d, "# %s@%d\n", sanitize_name(a, S->l[i].bench), S->l[i].ranks);
        for (size_t k = 0; k < m->ncurve; k++) {
            if (k) {
                sb_printf(&d, "%.0f", m->curve_n[k]);
                plots_datum(&d, m->curve_f[k - 1]);
                sb_puts(&d, "\n");
            }
            sb_printf(&d, "%.0f", m->curve_n[k]);
            plots_datum(&d, m->curve_f[k]);
            sb_puts(&d, "\n");
        }
        sb_printf(&d, "%.0f", m->evaluated);
        plots_datum(&d, m->curve_f[m->ncurve - 1]);
        sb_puts(&d, "\n\n\n");
        const char *t = ar_printf(a, "%s@%d %s %s", S->l[i].bench, S->l[i].ranks, m->mode ? m->mode : "?",
                                  m->fitness ? m->fitness : "?");
        sb_printf(&p, "%s'search_best.dat' index %d using 1:2 with lines title %s", lines ? ", " : "plot ",
                  lines, plots_gp_str(a, t));
        lines++;
    }
    if (lines) {
        const char *name = "search_best", *title = "Search: the best fitness against candidates evaluated";
        char *gp = ar_printf(a, "%sset key below\n%s\n%s",
                             plots_gp_header(a, name, title, "candidates evaluated", "best fitness (lower is better)"),
                             p.s ? p.s : "", plots_gp_footer);
        plots_add(a, dir, pl, name, title, &d, gp);
    }
    sb_free(&d);
    sb_free(&p);
}

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    const srrun_t *S = self;
    if (!S || !S->nl) return;
    sb_puts(o, "\n## Network search (docs/search.md)\n\n"
               "A master rank evolves a population of FC-DenseNet configurations and sends each "
               "candidate to a free worker group, which trains it for a fixed number of steps and "
               "returns its held-out loss (fitness `train`), or evaluates a planted synthetic "
               "fitness with a simulated cost (`planted`). Candidates/h: candidates evaluated / "
               "the search's wall time x 3600; before the tail: the "
               "candidates done by the time the last one was sent, per hour (then groups fall "
               "idle one by one as the budget runs out). Idle: 1 - the groups' evaluation time / their wall "
               "time (before the tail: the groups' evaluations up to the last candidate's send, each "
               "ending when its result reached the master). Decision: the master's host CPU time to take a result and choose the next "
               "candidate (median, 99th percentile); master busy: decision time / wall time. To "
               "optimum: candidates evaluated when the planted optimum came back (random sampling "
               "needs half the space on average). One row per launch; under SMPI (simulated) the "
               "times are simulated seconds with each decision's measured cost charged.\n\n"
               "| entry | ranks | mode | fitness | workers | evaluated | candidates/h | before the tail | idle | idle before the tail | "
               "decision s (median) | p99 s | master busy | messages | best fitness | to optimum "
               "|\n|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < S->nl; i++) {
        const srinfo_t *m = S->l[i].m;
        sb_printf(o, "| %s | %d | %s%s | %s |", S->l[i].bench, S->l[i].ranks, m->mode ? m->mode : "?",
                  m->simulated ? " (simulated)" : "", m->fitness ? m->fitness : "?");
        g(o, m->workers);
        g(o, m->evaluated);
        g(o, m->per_hour);
        g(o, m->per_hour_steady);
        g(o, m->idle_fraction);
        g(o, m->idle_steady);
        g(o, m->decision_median_s);
        g(o, m->decision_p99_s);
        g(o, m->master_busy_fraction);
        g(o, m->msgs_sent + m->msgs_recv);
        g(o, m->best_fitness);
        g(o, m->evals_to_optimum >= 0 ? m->evals_to_optimum : NAN);
        sb_puts(o, "\n");
    }
    sb_puts(o, "\n");
    report_plot_link(o, &c->pl, "search_best");
}

const section_t section_search = {.name = "search", .plots = plots, .md = md};
