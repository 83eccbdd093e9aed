/* The stages of `exadl run` (run_stages.h). */
#define _GNU_SOURCE
#include "harness/cli/run_stages.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/timer.h"
#include "harness/analysis/peak.h"
#include "harness/cli/cmds.h"
#include "harness/report/report.h"
#include "harness/report/results.h"
#include "harness/report/summary.h"
#include "harness/run/launch.h"
#include "harness/run/rundir.h"
#include "harness/run/sweep.h"

static int stop(run_t *r, int status)
{
    r->status = status;
    return 1;
}

static int stage_options(run_t *r)
{
    for (int i = 0; i < r->argc; i++) {
        char **argv = r->argv;
        if (!strcmp(argv[i], "--out") && i + 1 < r->argc) r->out = argv[++i];
        else if (!strcmp(argv[i], "--reference") && i + 1 < r->argc && r->nextra < 64)
            r->extra[r->nextra++] = argv[++i];
        else if (!strcmp(argv[i], "--dry-run")) r->dry = 1;
        else if (argv[i][0] == '-')
            return stop(r, usage_error("run", "unknown option '%s' (see exadl run --help)", argv[i]));
        else if (!r->suite_file) r->suite_file = argv[i];
        else return stop(r, usage_error("run", "more than one suite given ('%s')", argv[i]));
    }
    return 0;
}

/* the suite (given, or the embedded default fitted to this machine) and
 * every reference file it and --reference name, loaded */
static int stage_suite(run_t *r)
{
    runctx_t *c = &r->c;
    machine_t m;
    machine_detect(&m);
    char err[1024];
    char started[32];
    timer_utc_iso(started, sizeof started);
    c->ri.started_utc = ar_strdup(c->a, started);
    int rc;
    if (r->suite_file) rc = suite_load_file(c->a, r->suite_file, &m, &c->s, err, sizeof err);
    else {
        const char *text = suite_default_text(c->a, &m, geteuid() == 0);
        rc = suite_load_text(c->a, text, strlen(text), "<default suite>", exadl_root(), &m, &c->s,
                             err, sizeof err);
    }
    for (size_t i = 0; i < r->nextra; i++)
        if (!path_is_file(r->extra[i])) {
            fprintf(stderr, "exadl run: error: reference file %s not found\n", r->extra[i]);
            rc = -1, err[0] = 0;
        }
    if (rc) {
        if (err[0]) fprintf(stderr, "exadl run: error: %s\n", err);
        return stop(r, 2);
    }
    const suite_t *s = &c->s;
    c->refs = ar_alloc(c->a, (s->nreferences + r->nextra + 1) * sizeof *c->refs);
    for (size_t i = 0; i < s->nreferences + r->nextra; i++) {
        const char *p = i < s->nreferences ? s->references[i] : r->extra[i - s->nreferences];
        if (reference_load(c->a, p, &c->refs[c->nrefs], err, sizeof err)) {
            fprintf(stderr, "exadl run: error: %s\n", err);
            return stop(r, 2);
        }
        c->nrefs++;
    }
    return 0;
}

/* optional benchmarks whose program cannot even print --help are skipped */
static int probe(arena_t *a, const bench_spec_t *b, const char **why)
{
    if (!b->program_path) {
        *why = ar_printf(a, "program '%s' not found", b->program);
        return -1;
    }
    char *argv[] = {(char *)b->program_path, "--help", NULL};
    char msg[256];
    char *out = spawn_capture(argv, 20, msg, sizeof msg);
    if (!out) {
        *why = ar_printf(a, "'%s --help' failed (%s): not built yet?", b->program, msg);
        return -1;
    }
    free(out);
    return 0;
}

static int stage_probe(run_t *r)
{
    runctx_t *c = &r->c;
    r->skip = ar_alloc(c->a, (c->s.nbench + 1) * sizeof *r->skip);
    c->ri.skipped = ar_alloc(c->a, (c->s.nbench + 1) * sizeof *c->ri.skipped);
    for (size_t i = 0; i < c->s.nbench; i++) {
        const bench_spec_t *b = &c->s.bench[i];
        const char *why;
        launch_set_probe_env(b->env, b->nenv);
        if (b->optional && probe(c->a, b, &why)) {
            r->skip[r->nskip++] = b->name;
            c->ri.skipped[c->ri.nskipped++] = (skipped_t){b->name, why};
        }
    }
    return 0;
}

static int stage_dry_run(run_t *r)
{
    if (!r->dry) return 0;
    runctx_t *c = &r->c;
    launchplan_build(c->a, &c->s, NULL, &c->plan);
    printf("suite %s (%s): %zu launches\n", c->s.name, c->s.path, c->plan.n);
    for (size_t i = 0; i < c->ri.nskipped; i++)
        printf("skip %s: %s\n", c->ri.skipped[i].name, c->ri.skipped[i].reason);
    for (size_t i = 0; i < c->plan.n; i++)
        printf("%s: %s\n", c->plan.l[i].id, argv_join(c->a, c->plan.l[i].argv));
    return stop(r, 0);
}

/* the run folder with the suite as run and copies of the reference files */
static int stage_rundir(run_t *r)
{
    runctx_t *c = &r->c;
    arena_t *a = c->a;
    char err[1024];
    const char *parent = r->out ? r->out : path_join(a, exadl_root(), "results");
    char *dir = rundir_create(a, parent, c->s.name, err, sizeof err);
    if (!dir) {
        fprintf(stderr, "exadl run: error: %s\n", err);
        return stop(r, 2);
    }
    runinfo_t *ri = &c->ri;
    ri->dir = dir, ri->name = path_basename(dir), ri->suite = c->s.name;
    ri->suite_file = "suite.yaml", ri->host = short_host();
    sb_t cmd = {0};
    sb_puts(&cmd, "exadl run");
    for (int i = 0; i < r->argc; i++) sb_printf(&cmd, " %s", shell_quote(a, r->argv[i]));
    ri->command = ar_strdup(a, sb_str(&cmd));
    sb_free(&cmd);
    if (fileio_write_atomic(path_join(a, dir, "suite.yaml"), c->s.text, c->s.textlen, err,
                            sizeof err))
        fprintf(stderr, "exadl run: warning: %s\n", err);
    ri->references = ar_alloc(a, (c->nrefs + 1) * sizeof *ri->references);
    for (size_t i = 0; i < c->nrefs; i++) {
        char *cp = rundir_copy(a, c->refs[i].path, path_join(a, dir, "references"), err, sizeof err);
        if (cp) ri->references[ri->nreferences++] = ar_printf(a, "references/%s", cp);
        else fprintf(stderr, "exadl run: warning: %s\n", err);
    }
    launch_set_probe_env(c->s.env, c->s.nenv); /* describe and peak probes run like the benchmarks */
    launchplan_build(a, &c->s, dir, &c->plan);
    return 0;
}

static int stage_sweep(run_t *r)
{
    runctx_t *c = &r->c;
    runinfo_t *ri = &c->ri;
    size_t nrun = 0;
    for (size_t i = 0; i < c->plan.n; i++) {
        int sk = 0;
        for (size_t k = 0; k < r->nskip; k++) sk |= !strcmp(r->skip[k], c->plan.l[i].b->name);
        nrun += !sk;
    }
    printf("exadl: suite %s: %zu launches -> %s\n", c->s.name, nrun, ri->dir);
    for (size_t i = 0; i < ri->nskipped; i++)
        printf("exadl: skipping %s: %s\n", ri->skipped[i].name, ri->skipped[i].reason);
    fflush(stdout);
    launch_install_signals();
    launch_become_subreaper();
    ri->o = sweep_run(c->a, &c->s, &c->plan, r->skip, r->nskip, stdout, &ri->no, &ri->launches_s,
                      &ri->interrupted);
    launch_reset_signals();
    if (ri->interrupted) printf("exadl: interrupted: writing the results of what ran\n");
    return 0;
}

/* the device peak behind "fraction of peak"; a probe measures, so its time is
 * not counted as the harness's cost */
static int stage_peak(run_t *r)
{
    runctx_t *c = &r->c;
    r->peak_flops = peak_find(c->a, c->s.device_peak_flops, c->ri.o, c->ri.no, &r->peak_source,
                              &r->peak_per_core);
    return 0;
}

/* the numbers of DESIGN.md "Metrics", and the metric table: the analysis's
 * rows, then each report section's */
static int stage_analysis(run_t *r)
{
    runctx_t *c = &r->c;
    r->analysis_started_s = timer_now_s();
    if (r->peak_per_core)
        analysis_run_core_peak(c->a, c->ri.o, c->ri.no, r->peak_flops, r->peak_source, &c->an);
    else analysis_run(c->a, c->ri.o, c->ri.no, r->peak_flops, r->peak_source, &c->an);
    mtable_from_analysis(c->a, &c->an, &c->t);
    report_build(c);
    return 0;
}

static int stage_checks(run_t *r)
{
    runctx_t *c = &r->c;
    for (size_t i = 0; i < c->nrefs; i++)
        reference_evaluate(c->a, &c->refs[i], &c->t, exadl_bindir(), &c->ck);
    return 0;
}

static int stage_plots(run_t *r)
{
    report_plots(&r->c, path_join(r->c.a, r->c.ri.dir, "plots"));
    r->c.ri.plots_note = r->c.pl.note;
    return 0;
}

/* the exit status: 130 interrupted, 1 a launch or a check failed, else 0 */
static int stage_verdict(run_t *r)
{
    runinfo_t *ri = &r->c.ri;
    int nfail = 0, cp, cf, cn;
    for (size_t i = 0; i < ri->no; i++) nfail += ri->o[i].status != LS_OK;
    checks_count(&r->c.ck, &cp, &cf, &cn);
    ri->exit_status = ri->interrupted ? 130 : (nfail || cf) ? 1 : 0;
    char fin[32];
    timer_utc_iso(fin, sizeof fin);
    ri->finished_utc = ar_strdup(r->c.a, fin);
    return 0;
}

static int stage_report(run_t *r)
{
    char err[1024];
    report_files(&r->c);
    if (report_write(&r->c, path_join(r->c.a, r->c.ri.dir, "report.md"), err, sizeof err)) {
        fprintf(stderr, "exadl run: error: %s\n", err);
        r->c.ri.exit_status = 1;
    }
    return 0;
}

static int stage_results(run_t *r)
{
    runinfo_t *ri = &r->c.ri;
    char err[1024];
    ri->wall_s = timer_now_s() - r->started_s;
    if (results_write(&r->c, path_join(r->c.a, ri->dir, "results.yaml"), err, sizeof err)) {
        fprintf(stderr, "exadl run: error: results.yaml: %s\n", err);
        ri->exit_status = 1;
    }
    return 0;
}

/* the summary table, where the report is, and what the harness cost */
static int stage_summary(run_t *r)
{
    const runinfo_t *ri = &r->c.ri;
    int nfail = 0;
    for (size_t i = 0; i < ri->no; i++) nfail += ri->o[i].status != LS_OK;
    printf("\n");
    summary_print(stdout, &r->c.t, &r->c.ck, 0);
    if (nfail) printf("launches: %d of %zu failed (see the report's \"Failed launches\")\n", nfail, ri->no);
    if (r->c.pl.note) printf("plots: %s\n", r->c.pl.note);
    printf("report: %s\n", path_join(r->c.a, ri->dir, "report.md"));
    double post_s = timer_now_s() - r->analysis_started_s;
    printf("harness cost: %.3f s per launch beyond the benchmarks, %.2f s for analysis, plots "
           "and report\n",
           ri->no ? fmax(0, ri->wall_s - ri->launches_s - ri->probe_s - post_s) / (double)ri->no
                  : 0.0,
           post_s);
    return 0;
}

#define TIMED(field) offsetof(runinfo_t, field)
const stage_t run_stages[] = {
    {"options", stage_options, STAGE_UNTIMED},
    {"suite", stage_suite, STAGE_UNTIMED},
    {"probe", stage_probe, STAGE_UNTIMED},
    {"dry_run", stage_dry_run, STAGE_UNTIMED},
    {"rundir", stage_rundir, STAGE_UNTIMED},
    {"sweep", stage_sweep, STAGE_UNTIMED},
    {"peak", stage_peak, TIMED(probe_s)},
    {"analysis", stage_analysis, TIMED(analysis_s)},
    {"checks", stage_checks, TIMED(analysis_s)},
    {"plots", stage_plots, TIMED(plots_s)},
    {"verdict", stage_verdict, TIMED(report_s)},
    {"report", stage_report, TIMED(report_s)},
    {"results", stage_results, STAGE_UNTIMED},
    {"summary", stage_summary, STAGE_UNTIMED},
    {NULL, NULL, 0},
};
