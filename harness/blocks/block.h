/* block: the data half of a record block behind one table.  Each line of
 * blocks.def is a folder harness/blocks/<name>/ defining `const block_t
 * block_<name>`: the record's key it reads, its reader, its rows of the
 * metric catalog and the report section that shows it.  blocks.c holds the
 * loops over the table: reading a record's blocks (in its kind's order,
 * kinds.def) and the catalog (the blocks' rows, in table order).
 * defines: metric_info_t, block_reader_fn, block_t, blocks, block_named,
 *          record_kind_t, record_kinds, record_kind_find, blocks_read,
 *          blocks_catalog */
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

typedef struct {
    const char *name;             /* = its folder and its line in blocks.def */
    const char *key;              /* the record's key(s) it reads (docs/record.md) */
    block_reader_fn *read;
    const metric_info_t *rows;    /* its catalog rows, NULL-terminated; NULL: none */
    const char *no_rows;          /* why it has none (rows NULL) */
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
