/* recread: a benchmark's result record (docs/record.md) read into numbers the
 * analysis needs.  record_load reads the common header, then the record's
 * blocks, each with its block's reader (harness/blocks/: blocks_read, in the
 * order of the kind's line of harness/blocks/kinds.def).  Read defensively: a missing block
 * leaves NaN or nothing; a value of the wrong type is an error naming
 * FILE:LINE:COL; numbers follow the one rule of benchmarks/common/record/read.h.
 *
 * defines: record_t, record_load, record_config, record_simulated (defined by
 *          harness/blocks/simulation/). */
#ifndef EXADL_HARNESS_RECREAD_H
#define EXADL_HARNESS_RECREAD_H

#include <stddef.h>

#include "benchmarks/common/ytree.h"
#include "harness/blocks/block_ids.h"
#include "harness/util/util.h"

typedef struct {
    const char *path;
    ytdoc *doc;
    long long version;
    const char *benchmark, *status, *error, *started_utc, *backend, *precision;
    long long ranks, gpus;
    /* each block's data, indexed by block_id (harness/blocks/blocks.def): read
     * by the block's reader, NULL when the record has no such block; each
     * block's header has the typed accessor (rec_training, rec_coll, ...) */
    void *blk[BLOCK_N];
    /* blocks kept as they are */
    const ytnode *system, *config, *validation;
} record_t;

/* 0, or -1 with "FILE:LINE:COL: problem" (or "FILE: problem") in err.  The
 * document stays alive as long as the arena. */
int record_load(arena_t *a, const char *path, record_t *r, char *err, size_t errlen);

/* 1 when the record says its times were simulated (simulation.simulated). */
int record_simulated(const record_t *r);

/* A scalar of the config block as text (NULL when absent). */
const char *record_config(const record_t *r, const char *key);

#endif
