/* outcome: how one launch ended, judged by the sweep (harness/run/sweep.h)
 * from its exit status, signal, time limit and record; what analysis,
 * checks and the report read.  `exadl model` makes them from a finished
 * run's records too.
 * defines: lstatus_t, lstatus_name, outcome_t */
#ifndef EXADL_HARNESS_OUTCOME_H
#define EXADL_HARNESS_OUTCOME_H

#include "harness/blocks/recread.h"
#include "harness/run/interference.h"
#include "harness/suite/suite.h"

typedef enum {
    LS_OK = 0,      /* exit 0 and a record with status ok */
    LS_FAILED,      /* non-zero exit, a signal, no record, or status failed */
    LS_INVALID,     /* the record says a validation failed */
    LS_TIMEOUT,     /* killed after the per-launch time limit */
    LS_INTERRUPTED, /* stopped by a signal to exadl, or the allocation ended during it */
    LS_NOTRUN       /* never started (the run stopped before it, or the allocation had
                       ended: no job step could be created) */
} lstatus_t;
/* "ok", "failed", "invalid", "timeout", "interrupted", "not_run" (results.yaml) */
const char *lstatus_name(lstatus_t s);
/* A launch that ran to its end (ok, failed, invalid, timeout): a resumed run
 * keeps it; the others run again. */
int lstatus_final(lstatus_t s);

typedef struct {
    const char *bench, *program; /* suite entry name; program as written */
    scaling_kind scaling;
    int scale, rep, nodes;
    const char *id, *record_path, *log_path, *command;
    lstatus_t status;
    const char *why;        /* how the process ended ("exit status 0", "killed by SIGSEGV") */
    const char *error;      /* the record's error, or what the harness found wrong */
    const char *log_tail;   /* for failed launches */
    int exit_code, sig;     /* -1 when not applicable */
    double elapsed_s;
    const char *step;       /* the batch system's step ID ("7.3"); NULL when none */
    const char *hosts;      /* the hosts it ran on, comma-separated; NULL when not known */
    const char *affinity;   /* the cores each rank was bound to, as the launcher reported
                               them ("rank 0: [B/.]; rank 1: [./B]"); NULL: not reported */
    record_t *rec;          /* NULL when no readable record */
    intf_t intf;            /* how busy the machine was during it (interference.h) */
} outcome_t;

/* Of n outcomes: failed (failed, invalid, timeout), interrupted and not run. */
void outcome_count(const outcome_t *o, size_t n, int *ok, int *failed, int *interrupted,
                   int *not_run);

/* Every host any launch ran on (the launcher's word, else the record's
 * system.hosts), each once, in the order first seen; *nh of them. */
const char **outcome_hosts(arena_t *a, const outcome_t *o, size_t n, size_t *nh);

#endif
