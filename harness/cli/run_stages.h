/* run_stages: `exadl run` as named stages over one run context, in the order
 * of run_stages[] (ReFrame-style pipeline): options, suite, optional, dry_run,
 * preflight, rundir, sweep, probe, peak, analysis, checks, plots, verdict,
 * report, results, summary.  `exadl run --resume DIR` runs the same stages over the
 * run folder DIR (its suite.yaml, run.yaml and journal.yaml: the finished
 * launches are kept, the rest run); `exadl analyze DIR` too, running nothing
 * (run_setup.c: suite, preflight, rundir; run_probe.c: the answers of the
 * programs analysis and checks need, recorded in probe.yaml, read by analyze).  Each stage is a short function that reads and fills the run;
 * the time of the timed ones adds to a runinfo_t field (results.yaml's
 * harness_cost).  A new stage is one function and one line of the table in
 * run_stages.c.
 * defines: run_t, stage_t, run_stages, STAGE_UNTIMED */
#ifndef EXADL_HARNESS_RUN_STAGES_H
#define EXADL_HARNESS_RUN_STAGES_H

#include <stddef.h>
#include <stdint.h>

#include "harness/report/runctx.h"
#include "harness/run/probe.h"
#include "harness/run/runstate.h"

typedef struct {
    runctx_t c;                /* what the stages make and the report reads */
    int argc;                  /* the command line after `run` */
    char **argv;
    const char *suite_file, *out, *extra[64]; /* options: SUITE, --out, --reference */
    const char *machine;       /* --machine NAME */
    size_t nextra;
    int dry;                   /* --dry-run */
    int remeasure_peak;        /* --remeasure-peak: measure the CPU peak, not the cache's */
    const char **skip;         /* optional benchmarks left out (names) */
    size_t nskip;
    probe_t probe;             /* probe.yaml: the probes' answers (run_probe.c) */
    double peak_flops;         /* the device peak (peak.h), its source, per core or device */
    const char *peak_source;
    int peak_per_core;
    bf16_peak_t bf16;          /* CPU entries that ran bf16 divide by this (peak.h) */
    double started_s;          /* when `exadl run` started */
    double analysis_started_s; /* the report's part of the harness cost starts here */
    int status;                /* exit status when a stage stops the run early */
    const char *resume;        /* --resume DIR, or analyze's DIR */
    int analyze;               /* `exadl analyze`: run nothing */
    int preflight;             /* --preflight 1, --no-preflight 0; -1: where the launcher's
                                  launches are job steps */
    machine_t now;             /* this machine and allocation, as detected now */
    runstate_t st;             /* run.yaml: the run's settings */
    outcome_t *earlier;        /* journal.yaml: the outcomes of an earlier run */
    size_t nearlier;
    const char *journal_damage; /* resume: why journal.yaml did not read (NULL: it did) */
    const char *fallback_dir;  /* where files went that the run folder did not take */
    struct {                   /* analyze: what the folder's results.yaml said of the run
                                  itself (its end, its cost, the launches a resume kept),
                                  written again unchanged (run_setup.c prior_results) */
        int have;
        const char *finished_utc;
        long long kept;
        double wall_s, launches_s, probe_s, analysis_s, plots_s, report_s;
    } prior;
} run_t;

#define STAGE_UNTIMED SIZE_MAX

typedef struct {
    const char *name;
    int (*run)(run_t *r);      /* 0: go on; else stop with r->status */
    size_t time_field;         /* offsetof(runinfo_t, X_s) the stage's time adds to */
} stage_t;

/* In order; ends with a {NULL} entry. */
extern const stage_t run_stages[];

/* run_setup.c: the suite (given, the default, or the run folder's), the
 * preflight, the run folder (made, or the one resumed) */
int run_stage_suite(run_t *r);
int run_stage_preflight(run_t *r);
int run_stage_rundir(run_t *r);
/* run_probe.c: after the sweep, the questions for programs that analysis and
 * checks have (the CPU peak, describe answers) asked and recorded in the run
 * folder's probe.yaml; under analyze only read */
int run_stage_probe(run_t *r);
/* cmd_run.c: NULL, or why launches of s would all fail at once because exadl
 * runs as root and s's mpirun is Open MPI's without its root variables (the
 * message names the fix); `exadl run` refuses (exit 2), `exadl validate` too */
const char *run_root_refusal(arena_t *a, const suite_t *s);
/* Every stage in order over r (its argc, argv and modes set); the exit
 * status.  Frees r->c.a. */
int run_pipeline(run_t *r);
/* r->status = status; returns 1 (stop) */
int run_stop(run_t *r, int status);

#endif
