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

/* no datadist block: no rows */
extern const ddinfo_t datadist_none;

/* the record's strategies (datadist_none when it has none) */
static inline const ddinfo_t *rec_datadist(const record_t *r)
{
    return r->blk[BLOCK_datadist] ? r->blk[BLOCK_datadist] : &datadist_none;
}

#endif
