/* block: a record block behind one table.  Each line of blocks.def is a
 * folder harness/blocks/<name>/ defining `const block_t block_<name>`: the
 * record's key it reads, its reader, its rows of the metric catalog, its
 * derived numbers and the metric rows it adds from them, and the report
 * section that shows it.  The data half (blk_<name>.[ch]: struct, reader,
 * catalog) sits here, below run/; the derived half (der_<name>.[ch]: derive
 * and rows) sits above the analysis and the model (harness/blocks/derive.h
 * has what it reads), so this header names the hooks' types by their struct
 * tags only.  blocks.c holds the loops over the table that read (a record's
 * blocks in its kind's order, kinds.def) and the catalog (the blocks' rows,
 * in table order); derive.c the loops that derive and add rows.
 * defines: metric_info_t, block_reader_fn, block_derive_fn, block_rows_fn,
 *          block_rows_at, block_t, blocks, block_named, record_kind_t,
 *          record_kinds, record_kind_find, blocks_read, blocks_catalog,
 *          BLOCK_ACCESSOR */
#ifndef EXADL_HARNESS_BLOCK_H
#define EXADL_HARNESS_BLOCK_H

#include "benchmarks/common/record/read.h"
#include "harness/blocks/block_ids.h"
#include "harness/blocks/recread.h"

/* a row of the metric catalog (harness/analysis/metrics.h) */
typedef struct {
    const char *name, *unit;
    int better;            /* +1 higher is better, -1 lower, 0 neither */
    int per_scale;         /* depends on the scale (else a property of the config) */
    const char *what;
} metric_info_t;

/* Read the block's keys of the record at root into r->blk[its id] (or leave
 * it NULL when the record has none).  The header is read already.  0, or -1
 * with a positioned message in c->err. */
typedef int block_reader_fn(const rd_t *c, const ytnode *root, record_t *r);

struct blkctx; /* harness/blocks/derive.h: the run, its analysis, the blocks derived so far */
struct mtable; /* harness/analysis/metrics.h: the metric table */

/* The block's derived numbers for the run (what its section and its rows
 * read), or NULL when the run has none of it; in the arena c->a. */
typedef void *block_derive_fn(const struct blkctx *c);
/* Add the block's rows to t from its derived numbers self (NULL when it has
 * no derive): for suite entry c->an->b[entry], or for the run (BLOCK_ROWS_RUN;
 * entry is then c->an->nb). */
typedef void block_rows_fn(const struct blkctx *c, const void *self, size_t entry,
                           struct mtable *t);

/* Where a block's rows go in the metric table, so that results.yaml keeps its
 * row order: per suite entry the configuration's rows (BLOCK_ROWS_CONFIG),
 * then that entry's per-scale rows (BLOCK_ROWS_ENTRY); after every entry the
 * run's rows (BLOCK_ROWS_RUN); within each, in table order. */
typedef enum { BLOCK_ROWS_RUN, BLOCK_ROWS_CONFIG, BLOCK_ROWS_ENTRY } block_rows_at;

typedef struct {
    const char *name;             /* = its folder and its line in blocks.def */
    const char *key;              /* the record's key(s) it reads (docs/record.md) */
    block_reader_fn *read;
    const metric_info_t *catalog; /* its catalog rows, NULL-terminated; NULL: none */
    const char *no_catalog;       /* why it has none (catalog NULL) */
    block_derive_fn *derive;      /* its derived numbers (der_<name>.c); NULL: none */
    const char *no_derive;        /* why it has none (derive NULL) */
    block_rows_fn *rows;          /* adds its metric rows (der_<name>.c); NULL: none */
    const char *no_rows;          /* why it has none (rows NULL, catalog not) */
    block_rows_at rows_at;        /* where they go */
    const char *section;          /* its report section (report/section.h); NULL: none */
    const char *no_section;       /* why it has none (section NULL) */
} block_t;

#define BLOCK(n) extern const block_t block_##n;
#include "harness/blocks/blocks.def"
#undef BLOCK

/* every block, indexed by block_id */
extern const block_t *const blocks[BLOCK_N];
/* The block named name, or NULL. */
const block_t *block_named(const char *name);

/* A block's accessor that never gives NULL: `const T *acc(const record_t *)`,
 * the record's block n, or n##_none (no rows, NaN numbers; the block's .c
 * defines it) when the record has none, so that callers need no NULL check. */
#define BLOCK_ACCESSOR(T, n, acc)                                                              \
    extern const T n##_none;                                                                   \
    static inline const T *acc(const record_t *r)                                              \
    {                                                                                          \
        return r->blk[BLOCK_##n] ? (const T *)r->blk[BLOCK_##n] : &n##_none;                   \
    }

typedef struct {
    const char *benchmark;
    const block_id *blocks; /* in reading order, ends with BLOCK_N */
} record_kind_t;

/* every line of kinds.def, then {NULL, NULL} */
extern const record_kind_t record_kinds[];
/* The kind named benchmark, or NULL. */
const record_kind_t *record_kind_find(const char *benchmark);

/* The record's blocks: the simulation block (any kind), then its kind's
 * blocks in order; a kind kinds.def does not list is read with stemdl's
 * blocks and the collectives block.  0, or -1 with c->err. */
int blocks_read(const rd_t *c, const ytnode *root, record_t *r);

/* The metric catalog: every block's rows in table order, NULL-terminated. */
const metric_info_t *blocks_catalog(void);

#endif
