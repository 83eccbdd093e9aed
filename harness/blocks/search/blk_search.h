/* blk_search: the search benchmark's numbers (docs/record.md "search",
 * docs/search.md): mode, workers, candidates per hour, worker idle
 * fraction, the master's decision cost and messages, and the best fitness
 * against candidates evaluated.
 * defines: srinfo_t, rec_search */
#ifndef EXADL_HARNESS_BLK_SEARCH_H
#define EXADL_HARNESS_BLK_SEARCH_H

#include <stddef.h>

#include "harness/blocks/block.h"

typedef struct {
    const char *mode, *strategy, *fitness;
    double workers, group_ranks, evaluated, wall_s, per_hour, per_hour_steady, idle_fraction;
    double idle_steady;         /* idle before the tail */
    double decisions, decision_median_s, decision_p99_s, master_busy_fraction;
    double msgs_sent, msgs_recv, evals_to_optimum, best_fitness;
    double *curve_n, *curve_f;  /* the best fitness after curve_n[i] candidates */
    size_t ncurve;
    int simulated;              /* the record has a simulation block (SMPI) */
} srinfo_t;

/* the record's search block; NULL: none */
static inline const srinfo_t *rec_search(const record_t *r) { return r->blk[BLOCK_search]; }

/* its derived half (der_search.h) */
block_derive_fn search_derive;
block_rows_fn search_rows;

#endif
