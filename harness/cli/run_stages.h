/* run_stages: `exadl run` as named stages over one run context, in the order
 * of run_stages[] (ReFrame-style pipeline): options, suite, probe, dry_run,
 * rundir, sweep, peak, analysis, checks, plots, verdict, report, results,
 * summary.  Each stage is a short function that reads and fills the run;
 * the time of the timed ones adds to a runinfo_t field (results.yaml's
 * harness_cost).  A new stage is one function and one line of the table in
 * run_stages.c.
 * defines: run_t, stage_t, run_stages, STAGE_UNTIMED */
#ifndef EXADL_HARNESS_RUN_STAGES_H
#define EXADL_HARNESS_RUN_STAGES_H

#include <stddef.h>
#include <stdint.h>

#include "harness/report/runctx.h"

typedef struct {
    runctx_t c;                /* what the stages make and the report reads */
    int argc;                  /* the command line after `run` */
    char **argv;
    const char *suite_file, *out, *extra[64]; /* options: SUITE, --out, --reference */
    size_t nextra;
    int dry;                   /* --dry-run */
    const char **skip;         /* optional benchmarks left out (names) */
    size_t nskip;
    double peak_flops;         /* the device peak (peak.h), its source, per core or device */
    const char *peak_source;
    int peak_per_core;
    double started_s;          /* when `exadl run` started */
    double analysis_started_s; /* the report's part of the harness cost starts here */
    int status;                /* exit status when a stage stops the run early */
} run_t;

#define STAGE_UNTIMED SIZE_MAX

typedef struct {
    const char *name;
    int (*run)(run_t *r);      /* 0: go on; else stop with r->status */
    size_t time_field;         /* offsetof(runinfo_t, X_s) the stage's time adds to */
} stage_t;

/* In order; ends with a {NULL} entry. */
extern const stage_t run_stages[];

#endif
