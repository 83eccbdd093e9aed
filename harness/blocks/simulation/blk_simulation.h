/* blk_simulation: the simulation block of a record of any kind
 * (docs/record.md "simulation"); record_simulated (recread.h) reads it.
 * defines: siminfo_t, rec_sim */
#ifndef EXADL_HARNESS_BLK_SIMULATION_H
#define EXADL_HARNESS_BLK_SIMULATION_H

#include "harness/blocks/block.h"

/* the simulation block harness/launchers/smpi.sh appends (docs/simulate.md):
 * the record's times are SimGrid's simulated seconds */
typedef struct {
    int simulated;
    const char *simulator, *platform, *hostfile, *collectives; /* NULL: not said */
    long long ranks;          /* -1: not said */
    double wall_s;            /* this machine's time for the simulation (NaN: not said) */
    double peak_memory_bytes; /* its peak resident memory (NaN: not said) */
} siminfo_t;

/* the record's simulation block; NULL: none, the record was measured */
static inline const siminfo_t *rec_sim(const record_t *r) { return r->blk[BLOCK_simulation]; }

#endif
