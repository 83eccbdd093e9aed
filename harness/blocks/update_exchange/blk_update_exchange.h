/* blk_update_exchange: a training record's update_exchange block
 * (docs/record.md, docs/lioncub.md): the optimizer, how the ranks agree on its
 * update, and per timed step what that cost.
 * defines: uxinfo_t, rec_ux */
#ifndef EXADL_HARNESS_BLK_UPDATE_EXCHANGE_H
#define EXADL_HARNESS_BLK_UPDATE_EXCHANGE_H

#include "harness/blocks/block.h"

/* per timed step what the exchange cost (lists of nsteps; disagreement may be
 * NaN) */
typedef struct {
    const char *optimizer, *exchange, *momentum_sync;
    long long bits, sync_every;
    double sync_threshold;
    double *exchange_s, *exposed_s, *kernel_s, *collective_s;
    double *wire_bytes, *sync_bytes, *synced, *disagreement;
    size_t nsteps;
} uxinfo_t;

/* the record's update_exchange block; NULL: none */
static inline const uxinfo_t *rec_ux(const record_t *r) { return r->blk[BLOCK_update_exchange]; }

/* its derived half (der_update_exchange.h) */
block_derive_fn update_exchange_derive;
block_rows_fn update_exchange_rows;

#endif
