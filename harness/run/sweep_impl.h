/* sweep_impl: what sweep.c's loop asks of sweep_resume.c (private to the two
 * files).  sweep.c runs and judges launches; sweep_resume.c decides, before
 * anything runs, what becomes of each launch of the plan: skipped, kept from
 * the earlier run's journal, kept by its whole record, or run (analyze:
 * judged from what is there), and rebuilds a journal that did not read or
 * lacks finished launches.  Split so that the loop and the resume rules
 * read apart; one private header because the rules return the loop's
 * decisions (SW_*), and a header of their own would be a module circle with
 * sweep (tests/it/layout.sh).
 *
 * defines: SW_SKIP, SW_JOURNAL, SW_RECORD, SW_RUN, sweep_decide,
 *   sweep_rebuild_journal */
#ifndef EXADL_HARNESS_SWEEP_IMPL_H
#define EXADL_HARNESS_SWEEP_IMPL_H

#include <stddef.h>

#include "harness/run/sweep.h"

/* what becomes of launch i: skipped, kept from the journal, kept by its
 * record, or run (analyze: judged from what is there) */
enum { SW_SKIP, SW_JOURNAL, SW_RECORD, SW_RUN };

/* What becomes of launch i of opt->p (SW_*), with x filled as far as that
 * decides (kept: the earlier outcome; analyze: judged). */
int sweep_decide(arena_t *a, const sweep_opts_t *opt, size_t i, outcome_t *x);
/* resume: journal.yaml rewritten from the launches kept (d: each launch's
 * SW_*, ko: their outcomes) when it did not read or lacks a finished one. */
void sweep_rebuild_journal(arena_t *a, const sweep_opts_t *opt, const int *d,
                           const outcome_t *ko, size_t n);

#endif
