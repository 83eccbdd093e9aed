/* Report section: the simulated launches (records with a simulation block,
 * written by harness/launchers/smpi.sh; docs/simulate.md "In the report"):
 * per launch its benchmark, ranks, platform, simulated time, and what the
 * simulation cost this machine; measured launches of the same benchmarks
 * beside them, kept apart; and where the suite asks for the scaling model
 * (`model:`, built by the gradient_reduction section's ablation), its
 * prediction for the same benchmark, mode and scale as a third kind of point.  Shown only when some record is simulated.  Also
 * report_sim_mark, the mark the other sections put on simulated points. */
#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include "benchmarks/common/stats.h"
#include "harness/blocks/collectives/blk_collectives.h"
#include "harness/blocks/orchestration/blk_orchestration.h"
#include "harness/blocks/simulation/blk_simulation.h"
#include "harness/blocks/training/blk_training.h"
#include "harness/model/ablation.h"
#include "harness/report/runctx.h"

static int ok_rec(const outcome_t *x) { return x->status == LS_OK && x->rec; }

const char *report_sim_mark(const runctx_t *c, const char *bench, int scale)
{
    int sim = 0, meas = 0;
    for (size_t i = 0; i < c->ri.no; i++) {
        const outcome_t *x = &c->ri.o[i];
        if (!ok_rec(x) || strcmp(x->bench, bench) || (scale > 0 && x->scale != scale)) continue;
        if (record_simulated(x->rec)) sim++;
        else meas++;
    }
    return !sim ? "" : meas ? " (measured + simulated)" : " (simulated)";
}

/* a simulated ok launch of benchmark name, or of the "NAME (simulated)" the
 * analysis split from it (analysis_split_simulated) */
static int has_simulated(const runctx_t *c, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < c->ri.no; i++) {
        const outcome_t *x = &c->ri.o[i];
        if (ok_rec(x) && record_simulated(x->rec) && !strncmp(x->bench, name, len) &&
            (!x->bench[len] || !strcmp(x->bench + len, " (simulated)")))
            return 1;
    }
    return 0;
}

/* untrusted text into one table cell: no pipes, line breaks, HTML, links,
 * code or emphasis by stars (underscores inside names stay: no emphasis) */
static void cell(sb_t *o, const char *s, size_t max)
{
    if (!s || !*s) {
        sb_puts(o, "-");
        return;
    }
    for (size_t i = 0; s[i] && i < max; i++)
        sb_putn(o, strchr("|\n\r`<>[]*\\", s[i]) ? " " : &s[i], 1);
}

/* a time in s, ms, us or ns, 4 digits */
static void secs(sb_t *o, double v)
{
    if (!isfinite(v)) {
        sb_puts(o, "n/a");
        return;
    }
    double a = fabs(v);
    if (a >= 1 || a == 0) sb_printf(o, "%.4g s", v);
    else if (a >= 1e-3) sb_printf(o, "%.4g ms", v * 1e3);
    else if (a >= 1e-6) sb_printf(o, "%.4g us", v * 1e6);
    else sb_printf(o, "%.4g ns", v * 1e9);
}

/* the time the record holds, by its kind */
static void sim_time(sb_t *o, const record_t *r)
{
    if (rec_training(r)->nstep) {
        sb_puts(o, "median step ");
        secs(o, stats_median(rec_training(r)->step_s, rec_training(r)->nstep));
        sb_printf(o, " (%zu steps)", rec_training(r)->nstep);
        return;
    }
    if (rec_orch(r)->no) {
        for (size_t i = 0; i < rec_orch(r)->no && i < 8; i++) {
            sb_puts(o, i ? ", " : "per step: ");
            cell(o, rec_orch(r)->o[i].mode, 40);
            sb_puts(o, " ");
            secs(o, rec_orch(r)->o[i].median_s);
        }
        return;
    }
    if (rec_coll(r)->nc) {
        const crow_t *big = &rec_coll(r)->c[0];
        for (size_t i = 1; i < rec_coll(r)->nc; i++)
            if (rec_coll(r)->c[i].bytes > big->bytes) big = &rec_coll(r)->c[i];
        cell(o, big->op, 40);
        sb_puts(o, " ");
        report_si(o, big->bytes, "B");
        sb_puts(o, ": median ");
        secs(o, big->median_s);
        sb_printf(o, " (%zu rows)", rec_coll(r)->nc);
        return;
    }
    sb_puts(o, "no times in the record");
}

static void row(sb_t *o, const outcome_t *x, const char *point)
{
    const record_t *r = x->rec;
    const siminfo_t *s = record_simulated(r) ? rec_sim(r) : NULL;
    sb_puts(o, "| ");
    cell(o, x->bench, 80);
    sb_printf(o, " | %s | %s | %lld | ", x->id, point, r->ranks);
    if (s) cell(o, s->platform ? path_basename(s->platform) : NULL, 120);
    else sb_puts(o, "- (measured)");
    sb_puts(o, " | ");
    sim_time(o, r);
    sb_puts(o, " | ");
    if (s) secs(o, s->wall_s);
    else sb_puts(o, "-");
    sb_puts(o, " | ");
    if (s && isfinite(s->peak_memory_bytes)) report_si(o, s->peak_memory_bytes, "B");
    else sb_puts(o, "-");
    sb_puts(o, " |\n");
}

/* the modes side by side the gradient_reduction block derived (NULL: none),
 * for the model's rows at the points simulated */
static const ablation_t *ablation_of(const runctx_t *c)
{
    return c->d.derived[BLOCK_gradient_reduction];
}

/* the model's rows at the benchmarks and scales simulated; the count */
static int modelled(sb_t *o, const runctx_t *c)
{
    const ablation_t *ab = ablation_of(c);
    int n = 0;
    for (size_t k = 0; ab && ab->active && k < ab->n; k++) {
        const abrow_t *r = &ab->r[k];
        if (!r->have_pred || strcmp(report_sim_mark(c, r->bench, r->scale), " (simulated)")) continue;
        sb_puts(o, "| ");
        cell(o, r->bench, 80);
        sb_printf(o, " | - | modelled | %d | exadl model, ", r->scale);
        cell(o, r->mode_name, 40);
        sb_puts(o, " | step ");
        secs(o, r->pred.step_s);
        if (isfinite(r->pred.efficiency)) sb_printf(o, ", efficiency %.3f", r->pred.efficiency);
        sb_puts(o, " | - | - |\n");
        n++;
    }
    return n;
}

static void md(sb_t *o, const runctx_t *c, const void *self)
{
    (void)self;
    const runinfo_t *ri = &c->ri;
    size_t nsim = 0;
    const char *simulator = NULL;
    for (size_t i = 0; i < ri->no; i++)
        if (ok_rec(&ri->o[i]) && record_simulated(ri->o[i].rec)) {
            nsim++;
            if (!simulator) simulator = rec_sim(ri->o[i].rec)->simulator;
        }
    if (!nsim) return;
    sb_puts(o, "\n## Simulation\n\n");
    sb_printf(o, "%zu launch%s of this run %s **simulated**, not measured: SimGrid SMPI ran the "
                 "program's MPI ranks on a description of a machine (docs/simulate.md). Their times are "
                 "the simulator's seconds on the named platform: the communication the platform "
                 "describes (and the computation the program declares), not a measurement on "
                 "any machine. The other tables mark them \"(simulated)\". Wall is what the "
                 "simulation took on this machine, peak memory its resident memory.\n\n",
              nsim, nsim == 1 ? "" : "es", nsim == 1 ? "was" : "were");
    if (simulator) {
        sb_puts(o, "Simulator: ");
        cell(o, simulator, 120);
        sb_puts(o, ".\n\n");
    }
    sb_puts(o, "| benchmark | launch | point | ranks | platform | time | wall | peak memory |\n"
               "|---|---|---|---:|---|---|---:|---:|\n");
    for (size_t i = 0; i < ri->no; i++)
        if (ok_rec(&ri->o[i]) && record_simulated(ri->o[i].rec)) row(o, &ri->o[i], "simulated");
    /* measured launches of a benchmark that also has simulated ones: beside them, apart */
    int mixed = 0;
    for (size_t i = 0; i < ri->no; i++) {
        const outcome_t *x = &ri->o[i];
        if (!ok_rec(x) || record_simulated(x->rec) || !has_simulated(c, x->bench)) continue;
        row(o, x, "measured");
        mixed = 1;
    }
    if (modelled(o, c))
        sb_puts(o, "\nRows marked \"modelled\" are the scaling model's prediction (docs/model.md) "
                   "for the same benchmark, mode and scale, from the inputs of the suite's "
                   "`model:` key (the Gradient reduction section lists them): a third kind of "
                   "point, neither measured nor simulated. Its efficiency is against the "
                   "model's single-rank step (docs/model.md), the tables' against the smallest "
                   "scale run.\n");
    if (!mixed) return;
    sb_puts(o, "\nSome benchmarks have both measured and simulated launches (the rows marked "
               "\"measured\" above): the two are different quantities and are never to be read "
               "as one series. The analysis keeps them apart: the simulated launches of such a "
               "benchmark NAME are the benchmark \"NAME (simulated)\" in the tables below and "
               "in results.yaml.\n");
}

const section_t section_simulation = {.name = "simulation", .md = md};
