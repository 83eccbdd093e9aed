/* section: the report's sections, each one file in harness/report/sections/,
 * listed once in REPORT_SECTIONS in the order report.md shows them.  A section
 * may add figures to the run's one gnuplot pass (plots), write its Markdown
 * (md) and write files of its own into the run folder (files); each member
 * may be NULL.  The section of a record block (block_t.section) is its report
 * half: `self` is that block's derived numbers (block_t.derive, NULL for the
 * others); its numbers and metric rows are the block's
 * (harness/blocks/<name>/der_<name>.c).
 * The benchmarks section repeats, per suite entry, the per-benchmark sections
 * of BENCH_SECTIONS that the entry's workload names (workload.h; all of them,
 * each showing only what it finds, for a record kind the table lacks).
 * A new section is one file defining `const section_t section_NAME` (or
 * `const bsection_t bsection_NAME`) and one entry in the list below.
 * defines: section_t, bsection_t, REPORT_SECTIONS, BENCH_SECTIONS,
 *          report_sections, bench_sections, report_plot_link, report_sim_mark,
 *          report_si */
#ifndef EXADL_HARNESS_SECTION_H
#define EXADL_HARNESS_SECTION_H

#include "harness/analysis/metrics.h"
#include "harness/plots/plots.h"

typedef struct runctx runctx_t; /* report/runctx.h */

typedef struct {
    const char *name;
    void (*plots)(const runctx_t *c, const void *self, const char *dir, plots_t *pl);
    void (*md)(sb_t *o, const runctx_t *c, const void *self);
    void (*files)(const runctx_t *c, const void *self);         /* model.yaml ... */
} section_t;

/* A section of one suite entry's part of the report. */
typedef struct {
    const char *name; /* what workload_t.sections names */
    void (*plots)(const runctx_t *c, const bres_t *b, const char *dir, plots_t *pl);
    void (*md)(sb_t *o, const runctx_t *c, const bres_t *b);
} bsection_t;

/* report.md, in this order */
#define REPORT_SECTIONS(X)                                                                      \
    X(summary) X(system) X(slurm) X(method) X(simulation) X(benchmarks) X(gradient_reduction) X(lioncub)        \
    X(ensembles) X(datadist) X(manytask) X(workflow) X(search) X(model_parallel) X(energy) X(io)                              \
    X(plots_note) X(checks) X(launches) X(files)
/* each suite entry's part, in this order */
#define BENCH_SECTIONS(X) X(training) X(spatial) X(collectives)

#define REPORT_SECTION_DECLARE(n) extern const section_t section_##n;
#define BENCH_SECTION_DECLARE(n) extern const bsection_t bsection_##n;
REPORT_SECTIONS(REPORT_SECTION_DECLARE)
BENCH_SECTIONS(BENCH_SECTION_DECLARE)
#undef REPORT_SECTION_DECLARE
#undef BENCH_SECTION_DECLARE

#define REPORT_SECTION_COUNT(n) +1
enum { REPORT_NSECTIONS = 0 REPORT_SECTIONS(REPORT_SECTION_COUNT) };
#undef REPORT_SECTION_COUNT

/* The lists as tables (sections/registry.c), NULL-terminated. */
extern const section_t *const report_sections[];
extern const bsection_t *const bench_sections[];

/* The Markdown link to plots/NAME.png (or a line saying it was not drawn);
 * nothing when no plot of that name was made. */
void report_plot_link(sb_t *o, const plots_t *pl, const char *name);
/* How a benchmark's ok launches at scale (0: any) were run, as a mark after
 * its name or scale: "" (all measured), " (simulated)", or " (measured +
 * simulated)" (sections/simulation.c; records with a simulation block). */
const char *report_sim_mark(const runctx_t *c, const char *bench, int scale);
/* v with an SI prefix ("1.23 GFLOP/s"). */
void report_si(sb_t *o, double v, const char *unit);

#endif
