/* der_update_exchange: the update_exchange block's derived numbers
 * (docs/lioncub.md): one row per entry and scale whose first record carries
 * an update_exchange block of the Lion optimizer, with the entry's emulated
 * network rate, the exchange's costs per step and the speedup over the entry
 * with exchange grad at the same rate, scale and work.  Its rows:
 * exchange_s, wire_bytes_per_step, speedup_over_grad, final_loss.  The report
 * section lioncub (harness/report/sections/lioncub.c) shows them.
 * defines: lcrow_t, lioncub_t */
#ifndef EXADL_HARNESS_DER_UPDATE_EXCHANGE_H
#define EXADL_HARNESS_DER_UPDATE_EXCHANGE_H

#include "harness/blocks/derive.h"
#include "harness/blocks/update_exchange/blk_update_exchange.h"

typedef struct {
    const uxinfo_t *ux;        /* the first record's block at entry b, scale s */
    const bres_t *b;
    const sres_t *s;
    const char *rate;          /* EXADL_NET_RATE of the entry, or NULL */
    stats_summary_t exch;      /* exchange time per step */
    double exposed, collective, wire, sync, disagree, loss;
    double speedup, sp_lo, sp_hi; /* over exchange grad at the same rate and scale */
} lcrow_t;

typedef struct {
    lcrow_t *r;
    size_t n;
} lioncub_t;

#endif
