/* outcome: how one launch ended, judged by the sweep (harness/run/sweep.h)
 * from its exit status, signal, time limit and record; what analysis,
 * checks and the report read.  `exadl model` makes them from a finished
 * run's records too.
 * defines: lstatus_t, lstatus_name, outcome_t */
#ifndef EXADL_HARNESS_OUTCOME_H
#define EXADL_HARNESS_OUTCOME_H

#include "harness/records/recread.h"
#include "harness/suite/suite.h"

typedef enum {
    LS_OK = 0,      /* exit 0 and a record with status ok */
    LS_FAILED,      /* non-zero exit, a signal, no record, or status failed */
    LS_INVALID,     /* the record says a validation failed */
    LS_TIMEOUT,     /* killed after the per-launch time limit */
    LS_INTERRUPTED, /* exadl was interrupted during it */
    LS_NOTRUN       /* never started (run interrupted before it) */
} lstatus_t;
/* "ok", "failed", "invalid", "timeout", "interrupted", "not_run" (results.yaml) */
const char *lstatus_name(lstatus_t s);

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
    record_t *rec;          /* NULL when no readable record */
} outcome_t;

#endif
