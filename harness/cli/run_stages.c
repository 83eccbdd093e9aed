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
#include "harness/checks/failures.h"
#include "harness/cli/cmds.h"
#include "harness/report/report.h"
#include "harness/report/results.h"
#include "harness/report/results_export.h"
#include "harness/report/summary.h"
#include "harness/proc/launch.h"
#include "harness/run/confcheck.h"
#include "harness/run/rundir.h"
#include "harness/run/sweep.h"
#include "harness/util/esc.h"

static int stage_options(run_t *r)
{
    static const cli_opt_t opts[] = {{"--out", 1},     {"--machine", 1},   {"--reference", 1},
                                     {"--dry-run", 0}, {"--resume", 1},    {"--preflight", 0},
                                     {"--no-preflight", 0}, {"--remeasure-peak", 0}, {NULL, 0}};
    for (int i = 0; i < r->argc; i++) {
        char **argv = r->argv;
        const char *v;
        int k = cli_option("run", r->argc, argv, &i, opts, &v);
        const char *o = k >= 0 ? opts[k].name : "";
        if (k == CLI_BAD) return run_stop(r, 2);
        if (!strcmp(o, "--out")) r->out = v;
        else if (!strcmp(o, "--machine")) {
            r->machine = v;
            if (!r->machine[0] || strlen(r->machine) > 100)
                return run_stop(r, usage_error("run", "--machine: give a name of 1 to 100 characters"));
            if (esc_has_control(r->machine))
                return run_stop(r, usage_error("run", "--machine: control characters (a newline, an "
                                               "escape) are not allowed in a name"));
        }
        else if (!strcmp(o, "--reference")) {
            if (r->nextra == 64)
                return run_stop(r, usage_error("run", "more than 64 --reference files"));
            r->extra[r->nextra++] = v;
        }
        else if (!strcmp(o, "--dry-run")) r->dry = 1;
        else if (!strcmp(o, "--remeasure-peak")) r->remeasure_peak = 1;
        else if (!strcmp(o, "--resume")) r->resume = v;
        else if (!strcmp(o, "--preflight")) r->preflight = 1;
        else if (!strcmp(o, "--no-preflight")) r->preflight = 0;
        else if (!r->suite_file) r->suite_file = argv[i];
        else return run_stop(r, usage_error("run", "more than one suite given ('%s')", argv[i]));
    }
    if (r->resume && (r->suite_file || r->out || r->nextra || r->dry))
        return run_stop(r, usage_error("run", "--resume DIR takes the suite, the run folder and the "
                                              "references of DIR (no SUITE, --out, --reference or "
                                              "--dry-run with it)"));
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

static int stage_optional(run_t *r)
{
    runctx_t *c = &r->c;
    r->skip = ar_alloc(c->a, (c->s.nbench + 1) * sizeof *r->skip);
    c->ri.skipped = ar_alloc(c->a, (c->s.nbench + 1) * sizeof *c->ri.skipped);
    /* analyze reads a folder that may come from anywhere: it starts none of
     * its suite's programs (an optional benchmark that did not run simply has
     * no records) */
    if (r->analyze) return 0;
    for (size_t i = 0; i < c->s.nbench; i++) {
        const bench_spec_t *b = &c->s.bench[i];
        const char *why;
        launch_set_probe_env(b->env, b->nenv);
        if (b->optional && probe(c->a, b, &why)) {
            r->skip[r->nskip++] = b->name;
            c->ri.skipped[c->ri.nskipped++] = (skipped_t){b->name, why};
        }
    }
    /* a typo in a benchmark's configuration stops the run here, in the
     * program's own words, instead of failing every launch (confcheck.h) */
    char err[1024];
    if (confcheck_suite(c->a, &c->s, r->skip, r->nskip, NULL, err, sizeof err)) {
        fprintf(stderr, "exadl run: error: %s\n", err);
        return run_stop(r, 2);
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
    return run_stop(r, 0);
}

static int stage_sweep(run_t *r)
{
    runctx_t *c = &r->c;
    runinfo_t *ri = &c->ri;
    sweep_opts_t o = {.s = &c->s, .p = &c->plan, .skip = r->skip, .nskip = r->nskip,
                      .progress = stdout, .rundir = r->analyze ? NULL : ri->dir,
                      .earlier = r->earlier, .nearlier = r->nearlier, .run_none = r->analyze,
                      .resuming = r->resume && !r->analyze, .journal_damage = r->journal_damage,
                      .slurm_job = r->now.slurm ? r->now.slurm_job : NULL,
                      .slurm_end_epoch = ri->slurm ? ri->slurm->end_epoch : NAN};
    if (r->analyze) {
        printf("exadl: analysing %s from its journal and records (nothing runs)\n", ri->dir);
    } else {
        size_t nrun, nkept; /* as the sweep decides: journal lines, else whole records */
        sweep_count(c->a, &o, &nkept, &nrun);
        if (r->resume)
            printf("exadl: resuming %s: %zu launches finished earlier, %zu to run\n", ri->dir,
                   nkept, nrun);
        else
            printf("exadl: suite %s: %zu launches -> %s\n", c->s.name, nrun, ri->dir);
        for (size_t i = 0; i < ri->nskipped; i++)
            printf("exadl: skipping %s: %s\n", ri->skipped[i].name, ri->skipped[i].reason);
    }
    fflush(stdout);
    launch_become_subreaper();
    sweep_result_t res;
    sweep_run(c->a, &o, &res);
    launch_report_mode(); /* a time limit's SIGTERM now must not lose the report */
    ri->o = res.o, ri->no = res.n, ri->launches_s = res.launches_s, ri->kept = res.kept;
    if (r->prior.have) ri->kept = (int)r->prior.kept; /* analyze: what the run kept */
    int ok, failed, intr, notrun;
    outcome_count(ri->o, ri->no, &ok, &failed, &intr, &notrun);
    ri->interrupted = res.interrupted || intr || notrun;
    ri->stopped_by = res.stopped_by;
    if (res.interrupted)
        printf("exadl: stopped early (%s): writing the results of what ran\n", res.stopped_by);
    return 0;
}

/* the device peak behind "fraction of peak", from the suite, the records or
 * the probe stage's answer */
static int stage_peak(run_t *r)
{
    runctx_t *c = &r->c;
    r->peak_flops = peak_find(c->a, c->s.device_peak_flops, c->ri.o, c->ri.no, &r->probe,
                              &r->peak_source, &r->peak_per_core);
    r->bf16.per_core = peak_find_bf16(c->a, &r->probe, r->peak_per_core, r->peak_source,
                                      &r->bf16.isa, &r->bf16.source);
    return 0;
}

/* the analysis (the launches grouped by entry and scale, docs/harness.md
 * "Metric names"), then every record block's derived numbers and its rows of
 * the metric table (harness/blocks/derive.h) */
static int stage_analysis(run_t *r)
{
    runctx_t *c = &r->c;
    r->analysis_started_s = timer_now_s();
    analysis_split_simulated(c->a, c->ri.o, c->ri.no);
    if (r->peak_per_core)
        analysis_run_core_peak(c->a, c->ri.o, c->ri.no, r->peak_flops, r->peak_source, &r->bf16,
                               &c->an);
    else analysis_run(c->a, c->ri.o, c->ri.no, r->peak_flops, r->peak_source, &c->an);
    blocks_analyze(c->a, &c->s, c->ri.o, c->ri.no, &c->an, &c->d, &c->t);
    return 0;
}

static int stage_checks(run_t *r)
{
    runctx_t *c = &r->c;
    if (c->ri.nreferences == c->nrefs) /* the run folder's copies: the same in run and analyze */
        for (size_t i = 0; i < c->nrefs; i++) c->refs[i].path = c->ri.references[i];
    references_label(c->a, c->refs, c->nrefs); /* two files of one name told apart */
    for (size_t i = 0; i < c->nrefs; i++)
        reference_evaluate(c->a, &c->refs[i], &c->t, &r->probe, &c->ck);
    for (size_t i = 0; i < c->ri.nskipped; i++) /* not built: the run's failure, not the file's */
        checks_skipped(c->a, &c->ck, c->ri.skipped[i].name, c->ri.skipped[i].reason);
    const char *note = checks_unanswered_note(c->a, &c->ck, &r->probe);
    if (note) fprintf(stderr, "exadl %s: note: %s\n", r->analyze ? "analyze" : "run", note);
    return 0;
}

static int stage_plots(run_t *r)
{
    report_plots(&r->c, path_join(r->c.a, r->c.ri.dir, "plots"));
    r->c.ri.plots_note = r->c.pl.note;
    return 0;
}

/* the exit status: 130 interrupted (a launch stopped or not run), 2 a
 * reference error, 1 a launch or a check failed, else 0 */
static int stage_verdict(run_t *r)
{
    runinfo_t *ri = &r->c.ri;
    int nfail, cp, cf, cn, ok, intr, notrun;
    outcome_count(ri->o, ri->no, &ok, &nfail, &intr, &notrun);
    checks_count(&r->c.ck, &cp, &cf, &cn);
    /* a reference error is the reference file's (bad input, 2), not the machine's */
    ri->exit_status = ri->interrupted ? 130 : checks_tally(&r->c.ck).ref_errors ? 2
                                            : (nfail || cf) ? 1 : 0;
    char fin[32];
    timer_utc_iso(fin, sizeof fin);
    ri->finished_utc = r->prior.have ? r->prior.finished_utc : ar_strdup(r->c.a, fin);
    return 0;
}

/* write one file of the run folder; where that fails (a full or read-only
 * disk) the same file into a temporary folder, so the analysis is not lost;
 * the path it went to, or NULL */
static const char *write_file(run_t *r, const char *name,
                              int (*writer)(const runctx_t *c, const char *path, char *err,
                                            size_t errlen))
{
    runctx_t *c = &r->c;
    char err[1024];
    const char *path = path_join(c->a, c->ri.dir, name);
    if (!writer(c, path, err, sizeof err)) return path;
    fprintf(stderr, "exadl %s: error: %s\n", r->analyze ? "analyze" : "run", err);
    if (!c->ri.exit_status) c->ri.exit_status = 1;
    if (!r->fallback_dir) { /* one folder for every file that did not fit */
        const char *tmp = getenv("TMPDIR");
        char *fb = ar_printf(c->a, "%s/exadl-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", c->ri.name);
        if (!mkdtemp(fb)) return NULL;
        r->fallback_dir = fb;
    }
    path = path_join(c->a, r->fallback_dir, name);
    if (writer(c, path, err, sizeof err)) {
        fprintf(stderr, "exadl %s: error: %s\n", r->analyze ? "analyze" : "run", err);
        return NULL;
    }
    fprintf(stderr, "exadl %s: %s written to %s instead\n", r->analyze ? "analyze" : "run", name,
            path);
    return path;
}

static int stage_report(run_t *r)
{
    report_files(&r->c);
    r->c.ri.report_path = write_file(r, "report.md", report_write);
    return 0;
}

static int stage_results(run_t *r)
{
    runinfo_t *ri = &r->c.ri;
    ri->wall_s = timer_now_s() - r->started_s;
    if (r->prior.have) { /* analyze: the run's cost, not the analysis's */
        ri->wall_s = r->prior.wall_s, ri->launches_s = r->prior.launches_s;
        ri->probe_s = r->prior.probe_s, ri->analysis_s = r->prior.analysis_s;
        ri->plots_s = r->prior.plots_s, ri->report_s = r->prior.report_s;
    }
    ri->results_path = write_file(r, "results.yaml", results_write);
    write_file(r, "results.csv", results_write_csv);   /* for spreadsheets and scripts */
    write_file(r, "results.json", results_write_json);
    return 0;
}

/* the summary table, where the report is, and what the harness cost */
static int stage_summary(run_t *r)
{
    const runinfo_t *ri = &r->c.ri;
    int ok, nfail, intr, notrun;
    outcome_count(ri->o, ri->no, &ok, &nfail, &intr, &notrun);
    printf("\n");
    summary_print(stdout, &r->c.t, &r->c.ck, 0);
    checks_print_failures(stdout, &r->c.ck);
    if (nfail || intr || notrun) {
        printf("launches: %d ok", ok);
        if (nfail) printf(", %d failed", nfail);
        if (intr) printf(", %d interrupted", intr);
        if (notrun) printf(", %d not run", notrun);
        printf(" of %zu%s\n", ri->no, nfail ? " (see the report's \"Failed launches\")" : "");
    }
    int busy = 0;
    for (size_t i = 0; i < ri->no; i++) busy += ri->o[i].intf.verdict == INTF_BUSY;
    if (busy) /* their numbers may be the machine's, not the code's */
        printf("interference: %d of %zu launches measured while the machine was busy (report.md, "
               "\"Launches\")\n", busy, ri->no);
    if (ri->stopped_by) printf("stopped: %s\n", ri->stopped_by);
    if ((intr || notrun) && ri->results_path)
        printf("resume: exadl run --resume %s\n", shell_quote(r->c.a, ri->dir));
    if (r->c.pl.note) printf("plots: %s\n", r->c.pl.note);
    if (ri->report_path) printf("report: %s\n", ri->report_path);
    else printf("report: not written (see the errors above)\n");
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
    {"suite", run_stage_suite, STAGE_UNTIMED},
    {"optional", stage_optional, STAGE_UNTIMED},
    {"dry_run", stage_dry_run, STAGE_UNTIMED},
    {"preflight", run_stage_preflight, STAGE_UNTIMED},
    {"rundir", run_stage_rundir, STAGE_UNTIMED},
    {"sweep", stage_sweep, STAGE_UNTIMED},
    {"probe", run_stage_probe, TIMED(probe_s)}, /* a probe measures: not the harness's cost */
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

int run_pipeline(run_t *r)
{
    r->c.a = ar_new();
    /* from the start: a reader gone away (| head) or a signal during the
     * preflight must not end exadl without a word */
    launch_install_signals();
    const stage_t *st = run_stages;
    for (; st->name; st++) {
        double t = timer_now_s();
        int stopped = st->run(r);
        if (st->time_field != STAGE_UNTIMED)
            *(double *)((char *)&r->c.ri + st->time_field) += timer_now_s() - t;
        if (stopped) break;
    }
    int status = st->name ? r->status : r->c.ri.exit_status;
    launch_set_probe_env(NULL, 0);
    launch_set_probe_wrap(NULL, NULL);
    /* the handlers stay to the end: stdout is flushed at exit, and a reader
     * gone away must not turn the exit status into SIGPIPE's */
    ar_free(r->c.a);
    return status;
}
