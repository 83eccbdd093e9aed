/* derive: the derived half of the record blocks (block.h): what a block's
 * derive and rows read (blkctx_t: the run's outcomes, its suite, the
 * analysis' grouping by entry and scale, and the numbers of the blocks
 * derived before it), and the two loops over the table, the only ones: every
 * block's derived numbers in table order, then its metric rows where
 * block_t.rows_at puts them.  Level: above the analysis and the model (a
 * block's numbers may be the model's), below the report, whose sections read
 * them (runctx_t.d).
 * defines: blkctx_t, blocks_derive, blocks_rows, blocks_analyze, blocks_param,
 *          blocks_put */
#ifndef EXADL_HARNESS_DERIVE_H
#define EXADL_HARNESS_DERIVE_H

#include "harness/analysis/analysis.h"
#include "harness/analysis/metrics.h"
#include "harness/blocks/block.h"
#include "harness/suite/suite.h"

typedef struct blkctx {
    arena_t *a;
    const suite_t *s;               /* NULL: none (a block then reads no entry's settings) */
    const outcome_t *o;             /* every launch, with its record when ok */
    size_t n;
    const analysis_t *an;           /* the grouping by entry and scale */
    const void *derived[BLOCK_N];   /* each block's derive (NULL: none, or not yet) */
} blkctx_t;

/* Every block's derive, in table order, into c->derived (a block may read
 * the derived numbers of the blocks before it). */
void blocks_derive(blkctx_t *c);
/* Every block's rows into t: per entry the BLOCK_ROWS_CONFIG rows then the
 * BLOCK_ROWS_ENTRY rows, then the BLOCK_ROWS_RUN rows; each in table order. */
void blocks_rows(const blkctx_t *c, mtable_t *t);
/* The two for one analysed run: c set from the arguments (s may be NULL),
 * derived, its rows added to t. */
void blocks_analyze(arena_t *a, const suite_t *s, const outcome_t *o, size_t n,
                    const analysis_t *an, blkctx_t *c, mtable_t *t);

/* A row's one parameter key: value (in a), for blocks_put. */
kv_t *blocks_param(arena_t *a, const char *key, const char *value);
/* Add the row `name` of entry b at scale (0: not per scale) to t when v is
 * finite: value v, 95% CI lo..hi (NaN: none), n samples (NaN: n/a), the
 * params; unit and direction from the catalog. */
void blocks_put(arena_t *a, mtable_t *t, const bres_t *b, int scale, const char *name, double v,
                double lo, double hi, double n, kv_t *params, size_t np);

#endif
