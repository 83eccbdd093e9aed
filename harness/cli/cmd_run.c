/* exadl run [SUITE.yaml] [--out DIR] [--reference FILE]... [--dry-run] */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/timer.h"
#include "harness/analysis/peak.h"
#include "harness/cli/cmds.h"
#include "harness/report/plots.h"
#include "harness/report/report.h"
#include "harness/report/summary.h"
#include "harness/run/launch.h"
#include "harness/run/rundir.h"
#include "harness/run/sweep.h"

static const char help_run[] =
    "usage: exadl run [SUITE.yaml] [--out DIR] [--reference FILE]... [--dry-run]\n"
    "\n"
    "Run a suite: every benchmark at every scale and repetition, through the suite's\n"
    "launcher, one launch at a time, then analyse, plot, check and report.  Without\n"
    "SUITE the embedded default suite runs (`exadl suite` prints it).\n"
    "\n"
    "  --out DIR         create the run folder in DIR (default: results/ of the project)\n"
    "  --reference FILE  also check against FILE (besides the suite's references)\n"
    "  --dry-run         print the plan (every command) and stop\n"
    "\n"
    "Writes DIR/<UTC time>-<host>-<suite>/ with suite.yaml, records/, logs/,\n"
    "results.yaml, report.md, plots/ and references/; never overwrites a run.\n"
    "Exit status: 0 all launches ok and all checks passed; 1 a launch failed or a\n"
    "check failed (everything else is still written); 2 bad usage or a bad suite;\n"
    "130 interrupted (what ran is written).\n";

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

static int load_refs(arena_t *a, const suite_t *s, const char **extra, size_t nextra,
                     reference_t **out, size_t *n)
{
    *out = ar_alloc(a, (s->nreferences + nextra + 1) * sizeof **out);
    *n = 0;
    char err[1024];
    for (size_t i = 0; i < s->nreferences + nextra; i++) {
        const char *p = i < s->nreferences ? s->references[i] : extra[i - s->nreferences];
        if (reference_load(a, p, &(*out)[*n], err, sizeof err)) {
            fprintf(stderr, "exadl run: error: %s\n", err);
            return -1;
        }
        (*n)++;
    }
    return 0;
}

static int cmd_run(int argc, char **argv)
{
    if (wants_help(argc, argv)) return fputs(help_run, stdout), 0;
    double t0 = timer_now_s();
    const char *suite_file = NULL, *out = NULL;
    const char *extra[64];
    size_t nextra = 0;
    int dry = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--reference") && i + 1 < argc && nextra < 64)
            extra[nextra++] = argv[++i];
        else if (!strcmp(argv[i], "--dry-run")) dry = 1;
        else if (argv[i][0] == '-') return usage_error("run", "unknown option '%s' (see exadl run --help)", argv[i]);
        else if (!suite_file) suite_file = argv[i];
        else return usage_error("run", "more than one suite given ('%s')", argv[i]);
    }
    arena_t *a = ar_new();
    machine_t m;
    machine_detect(&m);
    suite_t s;
    char err[1024];
    char started[32];
    timer_utc_iso(started, sizeof started);
    int rc;
    if (suite_file) rc = suite_load_file(a, suite_file, &m, &s, err, sizeof err);
    else {
        const char *text = suite_default_text(a, &m, geteuid() == 0);
        rc = suite_load_text(a, text, strlen(text), "<default suite>", exadl_root(), &m, &s, err,
                             sizeof err);
    }
    reference_t *refs = NULL;
    size_t nrefs = 0;
    for (size_t i = 0; i < nextra; i++)
        if (!path_is_file(extra[i])) {
            fprintf(stderr, "exadl run: error: reference file %s not found\n", extra[i]);
            rc = -1, err[0] = 0;
        }
    if (rc) {
        if (err[0]) fprintf(stderr, "exadl run: error: %s\n", err);
        ar_free(a);
        return 2;
    }
    if (load_refs(a, &s, extra, nextra, &refs, &nrefs)) return ar_free(a), 2;
    const char *parent = out ? out : path_join(a, exadl_root(), "results");
    const char **skip = ar_alloc(a, (s.nbench + 1) * sizeof *skip);
    skipped_t *skipped = ar_alloc(a, (s.nbench + 1) * sizeof *skipped);
    size_t nskip = 0;
    for (size_t i = 0; i < s.nbench; i++) {
        const char *why;
        launch_set_probe_env(s.bench[i].env, s.bench[i].nenv);
        if (s.bench[i].optional && probe(a, &s.bench[i], &why)) {
            skip[nskip] = s.bench[i].name;
            skipped[nskip++] = (skipped_t){s.bench[i].name, why};
        }
    }
    if (dry) {
        launchplan_t p;
        launchplan_build(a, &s, NULL, &p);
        printf("suite %s (%s): %zu launches\n", s.name, s.path, p.n);
        for (size_t i = 0; i < nskip; i++) printf("skip %s: %s\n", skipped[i].name, skipped[i].reason);
        for (size_t i = 0; i < p.n; i++) printf("%s: %s\n", p.l[i].id, argv_join(a, p.l[i].argv));
        launch_set_probe_env(NULL, 0);
        ar_free(a);
        return 0;
    }
    char *dir = rundir_create(a, parent, s.name, err, sizeof err);
    if (!dir) {
        fprintf(stderr, "exadl run: error: %s\n", err);
        launch_set_probe_env(NULL, 0);
        ar_free(a);
        return 2;
    }
    runinfo_t ri = {.dir = dir, .name = path_basename(dir), .suite = s.name,
                    .suite_file = "suite.yaml", .started_utc = ar_strdup(a, started),
                    .host = short_host(), .skipped = skipped, .nskipped = nskip};
    sb_t cmd = {0};
    sb_puts(&cmd, "exadl run");
    for (int i = 0; i < argc; i++) sb_printf(&cmd, " %s", shell_quote(a, argv[i]));
    ri.command = ar_strdup(a, sb_str(&cmd));
    sb_free(&cmd);
    if (fileio_write_atomic(path_join(a, dir, "suite.yaml"), s.text, s.textlen, err, sizeof err))
        fprintf(stderr, "exadl run: warning: %s\n", err);
    ri.references = ar_alloc(a, (nrefs + 1) * sizeof *ri.references);
    for (size_t i = 0; i < nrefs; i++) {
        char *c = rundir_copy(a, refs[i].path, path_join(a, dir, "references"), err, sizeof err);
        if (c) ri.references[ri.nreferences++] = ar_printf(a, "references/%s", c);
        else fprintf(stderr, "exadl run: warning: %s\n", err);
    }
    launch_set_probe_env(s.env, s.nenv); /* describe and peak probes run like the benchmarks */
    launchplan_t p;
    launchplan_build(a, &s, dir, &p);
    size_t nrun = 0;
    for (size_t i = 0; i < p.n; i++) {
        int sk = 0;
        for (size_t k = 0; k < nskip; k++) sk |= !strcmp(skip[k], p.l[i].b->name);
        nrun += !sk;
    }
    printf("exadl: suite %s: %zu launches -> %s\n", s.name, nrun, dir);
    for (size_t i = 0; i < nskip; i++) printf("exadl: skipping %s: %s\n", skipped[i].name, skipped[i].reason);
    fflush(stdout);
    launch_install_signals();
    launch_become_subreaper();
    ri.o = sweep_run(a, &s, &p, skip, nskip, stdout, &ri.no, &ri.launches_s, &ri.interrupted);
    launch_reset_signals();
    if (ri.interrupted) printf("exadl: interrupted: writing the results of what ran\n");
    /* analysis, checks, plots, report, results.yaml */
    const char *psrc; /* the peak probe measures: not counted as the harness's cost */
    double tp = timer_now_s();
    int per_core;
    double peak = peak_find(a, s.device_peak_flops, ri.o, ri.no, &psrc, &per_core);
    ri.probe_s = timer_now_s() - tp;
    double t1 = timer_now_s();
    analysis_t an;
    if (per_core) analysis_run_core_peak(a, ri.o, ri.no, peak, psrc, &an);
    else analysis_run(a, ri.o, ri.no, peak, psrc, &an);
    mtable_t t = {0};
    mtable_from_analysis(a, &an, &t);
    ablation_t ab; /* the gradient-reduction modes side by side, with the model */
    ablation_build(a, &s, ri.o, ri.no, &an, &ab);
    ablation_metrics(a, &ab, &t);
    checks_t ck = {0};
    for (size_t i = 0; i < nrefs; i++) reference_evaluate(a, &refs[i], &t, exadl_bindir(), &ck);
    double t2 = timer_now_s();
    plots_t pl;
    const char *pdir = path_join(a, dir, "plots");
    if (plots_prepare(a, pdir, &an, &pl) == 0) {
        ablation_plots(a, pdir, &ab, &pl);
        plots_draw(a, pdir, &pl);
    }
    ri.plots_note = pl.note;
    double t3 = timer_now_s();
    int nfail = 0, cp, cf, cn;
    for (size_t i = 0; i < ri.no; i++) nfail += ri.o[i].status != LS_OK;
    checks_count(&ck, &cp, &cf, &cn);
    ri.exit_status = ri.interrupted ? 130 : (nfail || cf) ? 1 : 0;
    char fin[32];
    timer_utc_iso(fin, sizeof fin);
    ri.finished_utc = fin;
    char *report = path_join(a, dir, "report.md");
    ri.analysis_s = t2 - t1, ri.plots_s = t3 - t2;
    ablation_write_model(a, dir, &ab, ri.command);
    if (report_write(a, report, &ri, &an, &t, &ck, &pl, &ab, err, sizeof err)) {
        fprintf(stderr, "exadl run: error: %s\n", err);
        ri.exit_status = 1;
    }
    ri.report_s = timer_now_s() - t3;
    ri.wall_s = timer_now_s() - t0;
    if (results_write(path_join(a, dir, "results.yaml"), &ri, &an, &t, &ck, err, sizeof err)) {
        fprintf(stderr, "exadl run: error: results.yaml: %s\n", err);
        ri.exit_status = 1;
    }
    printf("\n");
    summary_print(stdout, &t, &ck, 0);
    if (nfail) printf("launches: %d of %zu failed (see the report's \"Failed launches\")\n", nfail, ri.no);
    if (pl.note) printf("plots: %s\n", pl.note);
    printf("report: %s\n", report);
    printf("harness cost: %.3f s per launch beyond the benchmarks, %.2f s for analysis, plots "
           "and report\n",
           ri.no ? fmax(0, ri.wall_s - ri.launches_s - ri.probe_s - (timer_now_s() - t1)) /
                       (double)ri.no
                 : 0.0,
           timer_now_s() - t1);
    int status = ri.exit_status;
    launch_set_probe_env(NULL, 0);
    ar_free(a);
    return status;
}

const command_t command_run = {
    .name = "run",
    .run = cmd_run,
    .help = help_run,
    .synopsis = "run [SUITE.yaml]",
    .summary = "run a suite (default: the embedded one) and write\n"
               "results/<time>-<host>-<suite>/ with report.md",
};
