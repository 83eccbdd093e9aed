/* Report section: energy (docs/energy.md): per entry and scale of a
 * training benchmark whose records carry an energy block, J per sample and
 * FLOP/s per W (executed and convention FLOPs), average and peak power, each
 * the median over the launches with its 95% CI, and how the nodes were
 * combined; the first launch's sources (each with its accuracy, or why it is
 * n/a) and the sources absent.  Metrics energy_* (param energy_basis).  Plot
 * energy_power: each node's power over the timed steps of each entry's
 * first launch per scale.  The numbers are the energy block's
 * (harness/blocks/energy/). */
#define _GNU_SOURCE
#include <math.h>

#include "harness/blocks/energy/der_energy.h"
#include "harness/report/runctx.h"
#include "harness/util/esc.h"

static void g(sb_t *o, double v)
{
    if (isfinite(v)) sb_printf(o, " %.4g |", v);
    else sb_puts(o, " n/a |");
}

static void ci(sb_t *o, const stats_summary_t *st)
{
    if (!isfinite(st->median)) {
        sb_puts(o, " n/a |");
        return;
    }
    sb_printf(o, " %.4g", st->median);
    if (isfinite(st->ci_lo) && isfinite(st->ci_hi) && st->ci_hi > st->ci_lo)
        sb_printf(o, " [%.4g, %.4g]", st->ci_lo, st->ci_hi);
    sb_puts(o, " |");
}

static void plots(const runctx_t *c, const void *self, const char *dir, plots_t *pl)
{
    const enrun_t *E = self;
    arena_t *a = c->a;
    if (!E || !E->n) return;
    sb_t d = {0}, clauses = {0};
    int idx = 0;
    sb_puts(&d, "# t_s power_w, one block per entry@ranks and node\n");
    for (size_t i = 0; i < E->n; i++) {
        const eninfo_t *e = E->r[i].first;
        for (size_t k = 0; k < e->nn; k++) {
            const ennode_t *n = &e->n[k];
            if (!n->npts) continue;
            for (size_t j = 0; j < n->npts; j++) {
                plots_datum(&d, n->t_s[j]);
                plots_datum(&d, n->w[j]);
                sb_puts(&d, "\n");
            }
            sb_puts(&d, "\n\n");
            /* names from data: sanitize_name keeps gnuplot's quoting safe */
            sb_printf(&clauses, "%s'energy_power.dat' index %d using 1:2 with linespoints title "
                                "'%s@%d node %lld'",
                      idx ? ", " : "", idx, sanitize_name(a, E->r[i].b->name), E->r[i].scale,
                      n->node);
            idx++;
        }
    }
    if (idx) {
        const char *name = "energy_power";
        const char *title = "Power of each node over the timed steps";
        char *gp = ar_printf(a, "%sset yrange [0:*]\nset key below\nplot %s\n%s",
                             plots_gp_header(a, name, title, "s from the first timed step", "W"),
                             clauses.s, plots_gp_footer);
        plots_add(a, dir, pl, name, title, &d, gp);
    }
    sb_free(&d);
    sb_free(&clauses);
}

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    const enrun_t *E = self;
    arena_t *a = c->a;
    if (!E || !E->n) return;
    sb_puts(o, "\n## Energy (docs/energy.md)\n\n"
               "The energy of the timed steps (from the barrier before the first to the end of "
               "the last), read on each node by one rank: the site's node meter where there is "
               "one (basis meter), else the sum of the CPU packages' and DRAM's RAPL counters and "
               "the GPUs' NVML counters (basis components: not the whole node), summed over the "
               "nodes; n/a when a node's is. J/sample and FLOP/s per W (FLOPs per J) are the "
               "median over the launches with the 95% CI of the median; peak power is the sum of "
               "the nodes' highest power between two samples.\n\n"
               "| entry | ranks | nodes | basis | launches measured | J/sample | FLOP/s per W "
               "(executed) | FLOP/s per W (convention) | average W | peak W |\n"
               "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < E->n; i++) {
        const enrow_t *r = &E->r[i];
        sb_printf(o, "| %s | %d | %lld | %s | %d of %d |", esc_md(a, r->b->name), r->scale,
                  r->first->nodes, esc_md(a, r->first->basis), r->nmeasured, r->nlaunch);
        ci(o, &r->j_per_sample);
        ci(o, &r->flops_per_w);
        ci(o, &r->conv_flops_per_w);
        ci(o, &r->avg_w);
        ci(o, &r->peak_w);
        sb_puts(o, "\n");
    }
    sb_puts(o, "\nSources of each entry's first launch per scale (accuracy: relative, as its "
               "maker states it; n/a: not stated):\n\n"
               "| entry | ranks | node | source | reads | status | J | peak W | accuracy | "
               "note |\n|---|---:|---:|---|---|---|---:|---:|---:|---|\n");
    for (size_t i = 0; i < E->n; i++) {
        const enrow_t *r = &E->r[i];
        for (size_t k = 0; k < r->first->ns; k++) {
            const ensrc_t *s = &r->first->s[k];
            sb_printf(o, "| %s | %d | %lld | %s | %s | %s |", esc_md(a, r->b->name), r->scale,
                      s->node, esc_md(a, s->name), esc_md(a, s->reads), esc_md(a, s->status));
            g(o, s->energy_j);
            g(o, s->peak_w);
            g(o, s->accuracy);
            sb_printf(o, " %s |\n", esc_md(a, *s->reason ? s->reason : s->accuracy_note));
        }
        for (size_t k = 0; k < r->first->nabsent; k++)
            sb_printf(o, "| %s | %d | | absent | | n/a | n/a | n/a | n/a | %s |\n",
                      esc_md(a, r->b->name), r->scale, esc_md(a, r->first->absent[k]));
    }
    /* why an energy is n/a, below the table (a line inside would end it) */
    sb_puts(o, "\n");
    for (size_t i = 0; i < E->n; i++)
        if (*E->r[i].first->reason)
            sb_printf(o, "- %s@%d: energy n/a: %s\n", esc_md(a, E->r[i].b->name), E->r[i].scale,
                      esc_md(a, E->r[i].first->reason));
    sb_puts(o, "\n");
    report_plot_link(o, &c->pl, "energy_power");
}

const section_t section_energy = {.name = "energy", .plots = plots, .md = md};
