/* sweep: run a plan's launches one after the other through the launcher,
 * judge each (exit status, signal, timeout, record, what the launcher's own
 * lines in the log say), append it to the run's journal, print one progress
 * line per launch, and go on after failures.  It stops early only when
 * exadl gets a stop signal (the launch is stopped), a drain signal (the
 * launch finishes), or the Slurm allocation ends (asked of Slurm when a
 * launch fails or the job's end time has passed, not per launch): a launch
 * the ending allocation stopped is interrupted, one whose step could not be
 * created is not run, and so are the rest.  A resumed run keeps the finished
 * launches of the earlier one; `exadl analyze` runs nothing and rebuilds the
 * outcomes from the journal and the records. */
#ifndef EXADL_HARNESS_SWEEP_H
#define EXADL_HARNESS_SWEEP_H

#include <stdio.h>

#include "harness/proc/launch.h"
#include "harness/run/launchplan.h"
#include "harness/run/outcome.h"

typedef struct {
    const suite_t *s;
    const launchplan_t *p;
    const char *const *skip;    /* benchmarks left out (names) */
    size_t nskip;
    FILE *progress;             /* one line per launch (NULL: quiet) */
    const char *rundir;         /* its journal.yaml gets each outcome (NULL: none) */
    const outcome_t *earlier;   /* outcomes of an earlier run of this plan (resume,
                                   analyze), matched by id; the final ones are kept */
    size_t nearlier;
    int run_none;               /* analyze: run nothing; a launch without an outcome is
                                   judged by its record, else interrupted (its log.part
                                   is there) or not run */
    int resuming;               /* run --resume: a launch whose record is whole and ok is
                                   kept whatever the journal says; any other record of a
                                   launch run again is moved aside to NAME.partial-N */
    const char *journal_damage; /* resume: why journal.yaml did not read (NULL: it did);
                                   it is then rebuilt from the launches kept */
    const char *slurm_job;      /* the allocation the launches are steps of, or NULL */
    double slurm_end_epoch;     /* its end time (NAN: unknown) */
} sweep_opts_t;

typedef struct {
    outcome_t *o;               /* one per launch of the plan not skipped */
    size_t n;
    double launches_s;          /* time in the launches run now */
    int ran, kept;              /* launches run now; kept from the earlier run */
    int interrupted;            /* stopped early */
    const char *stopped_by;     /* why: "SIGTERM", "Slurm job 7 has ended: state TIMEOUT" */
} sweep_result_t;

/* Judge one finished launch: fills status, error, rec and log_tail of o from
 * the spawn result and the record file at l->record. */
void sweep_judge(arena_t *a, const launch_t *l, const spawn_result_t *r, outcome_t *o);

void sweep_run(arena_t *a, const sweep_opts_t *opt, sweep_result_t *res);

/* What sweep_run will do: launches kept from the earlier run (journal or
 * record) and launches to run (analyze: to judge). */
void sweep_count(arena_t *a, const sweep_opts_t *opt, size_t *kept, size_t *to_run);

#endif
