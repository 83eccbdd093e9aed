/* der_search: the search block's derived numbers (docs/search.md): every
 * launch's search block (each repetition is one search) and, per entry and
 * scale, its first record's, whose rows are search_candidates_per_hour,
 * search_worker_idle_fraction, search_decision_cpu_s and (planted fitness)
 * search_evals_to_optimum (params mode, fitness).  The report section
 * search (harness/report/sections/search.c) shows them.
 * defines: srlaunch_t, srrow_t, srrun_t */
#ifndef EXADL_HARNESS_DER_SEARCH_H
#define EXADL_HARNESS_DER_SEARCH_H

#include "harness/blocks/derive.h"
#include "harness/blocks/search/blk_search.h"

/* a launch's search block */
typedef struct {
    const char *bench;         /* its suite entry */
    int ranks;
    const srinfo_t *m;
} srlaunch_t;

/* an entry's first record at a scale */
typedef struct {
    const bres_t *b;
    int scale;
    const srinfo_t *m;
} srrow_t;

typedef struct {
    srlaunch_t *l;             /* every launch with a record that has one, in launch order */
    size_t nl;
    srrow_t *r;
    size_t nr;
} srrun_t;

#endif
