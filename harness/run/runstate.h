/* runstate: what a run folder keeps so that the run can be resumed or
 * analysed again (`exadl run --resume DIR`, `exadl analyze DIR`).
 *   run.yaml      the run's settings, written when the folder is made (and
 *                 again on each resume): where the suite's relative paths
 *                 resolve, the machine (allocation) its plan was made for, the
 *                 reference copies, the command, the start, the Slurm jobs
 *                 it ran in;
 *   journal.yaml  one line per finished launch (status, how it ended, time,
 *                 step, hosts), appended and synced as each ends, so a run
 *                 stopped hard (SIGKILL, a node lost) keeps every outcome but
 *                 the running launch's.  A torn last line is skipped.
 * Both are read as untrusted input (docs/harness.md "Resume and analyze").
 * defines: runstate_t, runstate_write, runstate_read, journal_append,
 *          journal_read, journal_rebuild */
#ifndef EXADL_HARNESS_RUNSTATE_H
#define EXADL_HARNESS_RUNSTATE_H

#include "harness/run/outcome.h"
#include "harness/suite/suite.h"

#define RUNSTATE_FORMAT_VERSION 1

typedef struct {
    const char *suite_dir;     /* the folder the suite's relative paths resolve against */
    const char *suite_source;  /* the suite file as given, or "<default suite>" */
    const char *started_utc, *command, *host, *exadl_host;
    const char *machine_name;  /* --machine or the suite's machine: (analyze keeps it) */
    machine_t machine;         /* what `scales: auto` and the plan were made for */
    const char *launcher_mpi, *launcher_mpi_source;
    const char **references;   /* the copies, relative to the run folder */
    size_t nreferences;
    const char **history;      /* "UTC: command" of the start and of each resume */
    size_t nhistory;
    const char **slurm_jobs;   /* the Slurm jobs it ran in, in order */
    size_t nslurm_jobs;
} runstate_t;

/* DIR/run.yaml, atomically.  0, or -1 with err. */
int runstate_write(const char *dir, const runstate_t *st, char *err, size_t errlen);
/* DIR/run.yaml read back.  0, or -1 with "FILE:LINE:COL: problem". */
int runstate_read(arena_t *a, const char *dir, runstate_t *st, char *err, size_t errlen);

/* One finished launch appended to DIR/journal.yaml and synced, never
 * through a symbolic link at that name.  0, or -1. */
int journal_append(const char *dir, const outcome_t *o, char *err, size_t errlen);
/* A journal that did not read (resume): whatever is at DIR/journal.yaml is
 * moved aside to journal.yaml.damaged-N (its name in aside, "" when there
 * was nothing) and a new one is written with the final outcomes of o.  0, or
 * -1 with err. */
int journal_rebuild(const char *dir, const outcome_t *o, size_t n, char *aside, size_t asidelen,
                    char *err, size_t errlen);
/* DIR/journal.yaml: the outcomes it holds (bench, scale, rep and the paths
 * are not in it: the caller fills them from the plan by id); the last entry
 * of an id wins.  A missing file is an empty journal; notes counts the lines
 * skipped as unreadable.  0, or -1 with err. */
int journal_read(arena_t *a, const char *dir, outcome_t **o, size_t *n, int *skipped, char *err,
                 size_t errlen);

#endif
