/* preflight: before a run (and in `exadl validate`), one 1-rank job under the
 * suite's launcher, shaped as a launch of scale 1 is: build/bin/mpiprobe
 * starts MPI and prints its ranks and hosts.  A launcher that cannot start an
 * MPI job fails here in seconds, with one message saying what to set (srun:
 * the --mpi plugin the MPI library needs, from `srun --mpi=list`), instead
 * of in every launch of a long job. */
#ifndef EXADL_HARNESS_PREFLIGHT_H
#define EXADL_HARNESS_PREFLIGHT_H

#include "harness/suite/suite.h"

typedef struct {
    int ok;
    const char *command;   /* what ran, one line */
    const char *hosts;     /* where the rank ran (mpiprobe's hosts:) */
    const char *message;   /* on failure: what failed, the cause and the fix, one line */
    double elapsed_s;
} preflight_t;

/* Run it.  0 when the 1-rank job started MPI, else -1 (p->message says why). */
int preflight_run(arena_t *a, const suite_t *s, double timeout_s, preflight_t *p);

#endif
