/* runctx: one `exadl run` as its stages fill it (harness/cli/cmd_run.c) and
 * the report, results.yaml and the sections read it: the suite and its
 * reference files, the plan, the run folder with its times and outcomes
 * (runinfo_t: results.yaml's run and harness_cost blocks), the analysis, the
 * record blocks' derived numbers, the metric table, the checks, the plots.
 * defines: skipped_t, runinfo_t, runctx_t */
#ifndef EXADL_HARNESS_RUNCTX_H
#define EXADL_HARNESS_RUNCTX_H

#include "harness/blocks/derive.h"
#include "harness/checks/refcheck.h"
#include "harness/report/section.h"
#include "harness/run/launchplan.h"
#include "harness/run/slurm.h"

typedef struct {
    const char *name;        /* benchmark skipped */
    const char *reason;
} skipped_t;

typedef struct {
    const char *dir, *name;  /* run folder and its base name */
    const char *suite, *suite_file, *started_utc, *finished_utc, *host, *command;
    int interrupted, exit_status;
    outcome_t *o;
    size_t no;
    skipped_t *skipped;
    size_t nskipped;
    const char **references; /* paths relative to the run folder */
    size_t nreferences;
    double wall_s, launches_s, probe_s, analysis_s, plots_s, report_s;
    const char *plots_note;  /* why plots are missing, or NULL */
    const char *exadl_host;  /* where exadl itself ran (the login node under salloc) */
    const slurm_job_t *slurm; /* the allocation it ran in (NULL outside Slurm) */
    const char *slurm_ranks; /* how the allocation's ranks and nodes were read */
    const char *const *slurm_jobs; /* every job the run ran in (resumes add theirs) */
    size_t nslurm_jobs;
    const char *launcher_mpi, *launcher_mpi_source; /* srun --mpi, and who chose it */
    const char *preflight;   /* what the 1-rank job before the run saw (NULL: none ran) */
    const char *stopped_by;  /* why the run stopped early (a signal, the allocation's end) */
    int kept;                /* launches kept from the run it resumed */
    const char *const *history; /* "UTC: command" of the start and each resume */
    size_t nhistory;
    const char *report_path, *results_path; /* where they were written; NULL: nowhere */
    const char *machine;     /* --machine or the suite's machine: (NULL: the host names it) */
} runinfo_t;

struct runctx {
    arena_t *a;                /* everything below lives in it */
    suite_t s;
    reference_t *refs;         /* the suite's and --reference's, loaded */
    size_t nrefs;
    launchplan_t plan;
    runinfo_t ri;
    analysis_t an;
    blkctx_t d;                /* the record blocks' derived numbers (sections read them) */
    mtable_t t;                /* the blocks' rows */
    checks_t ck;
    plots_t pl;
};

#endif
