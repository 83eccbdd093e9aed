/* blk_manytask: the many-task benchmark's numbers (docs/record.md "manytask",
 * docs/ensembles.md): the launcher, the rate, latency percentiles, failures.
 * defines: mtinfo_t, rec_manytask */
#ifndef EXADL_HARNESS_BLK_MANYTASK_H
#define EXADL_HARNESS_BLK_MANYTASK_H

#include "harness/blocks/block.h"

typedef struct {
    const char *launcher;
    double tasks, concurrency, retries, done, failed, attempts, failed_attempts;
    double wall_s, tasks_per_s, p50_s, p90_s, p99_s, max_s;
} mtinfo_t;

/* the record's tasks block; NULL: none */
static inline const mtinfo_t *rec_manytask(const record_t *r) { return r->blk[BLOCK_manytask]; }

/* its derived half (der_manytask.h) */
block_derive_fn manytask_derive;
block_rows_fn manytask_rows;

#endif
