/* blk_datadist: the data distribution benchmark's record (docs/record.md
 * "datadist", docs/ensembles.md): the file's size and one row per strategy.
 * defines: ddrow_t, ddinfo_t, datadist_none, rec_datadist */
#ifndef EXADL_HARNESS_BLK_DATADIST_H
#define EXADL_HARNESS_BLK_DATADIST_H

#include "harness/blocks/block.h"

/* a strategy of the data distribution benchmark */
typedef struct {
    const char *strategy;
    double held_bytes, delivered_bytes, median_s, ci_lo_s, ci_hi_s, file_GBps, delivered_GBps;
    double wrong;
    double *first_batch_s; /* per rank */
    size_t nranks;
} ddrow_t;

typedef struct {
    double bytes;          /* the dataset file's (config.bytes; 0: not said) */
    ddrow_t *dd;
    size_t ndd;
} ddinfo_t;

/* the record's strategies (datadist_none when it has none: no rows) */
BLOCK_ACCESSOR(ddinfo_t, datadist, rec_datadist)

/* its derived half (der_datadist.h) */
block_derive_fn datadist_derive;
block_rows_fn datadist_rows;

#endif
