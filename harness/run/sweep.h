/* sweep: run a plan's launches one after the other through the launcher,
 * judge each (exit status, signal, timeout, record), print one progress line
 * per launch, and go on after failures.  Stops early only when exadl itself
 * is interrupted (the rest are marked not_run). */
#ifndef EXADL_HARNESS_SWEEP_H
#define EXADL_HARNESS_SWEEP_H

#include <stdio.h>

#include "harness/run/launch.h"
#include "harness/run/launchplan.h"
#include "harness/run/outcome.h"

/* Judge one finished launch: fills status, error, rec and log_tail of o from
 * the spawn result and the record file at l->record. */
void sweep_judge(arena_t *a, const launch_t *l, const spawn_result_t *r, outcome_t *o);

/* Run every launch of p (those of benchmarks in skip[] are left out);
 * progress goes to f.  Returns the outcomes (n of them). */
outcome_t *sweep_run(arena_t *a, const suite_t *s, const launchplan_t *p, const char *const *skip,
                     size_t nskip, FILE *f, size_t *n, double *launches_s, int *interrupted);

#endif
