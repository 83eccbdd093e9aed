/* blk_collectives: the collectives benchmark's results (docs/collectives.md
 * "The record"): one row per operation, data type, size and placement.
 * defines: crow_t, collinfo_t, collectives_none, rec_coll */
#ifndef EXADL_HARNESS_BLK_COLLECTIVES_H
#define EXADL_HARNESS_BLK_COLLECTIVES_H

#include "harness/blocks/block.h"

typedef struct {
    const char *op, *dtype, *redop;
    long long root;
    int inplace;
    double bytes, count;
    double *time_s;   /* raw per-iteration samples (may be empty) */
    size_t ntime;
    double median_s, ci_lo_s, ci_hi_s, min_s, max_s;
    double algbw, busbw, latency_us;
    double factor;    /* busbw_factor: busbw / algbw as the benchmark used it (required) */
    long long wrong;
} crow_t;

typedef struct {
    crow_t *c;
    size_t nc;
} collinfo_t;

/* the record's collective rows (collectives_none when it has none: no rows) */
BLOCK_ACCESSOR(collinfo_t, collectives, rec_coll)

/* its derived half (der_collectives.c): the rows per collective */
block_rows_fn collectives_rows;

#endif
