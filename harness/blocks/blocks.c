/* The block table (block.h) and the loops over it: a record's blocks read in
 * its kind's order, and the metric catalog as the union of the blocks' rows. */
#define _GNU_SOURCE
#include "harness/blocks/block.h"

#include <string.h>

const block_t *const blocks[BLOCK_N] = {
#define BLOCK(n) [BLOCK_##n] = &block_##n,
#include "harness/blocks/blocks.def"
#undef BLOCK
};

const block_t *block_named(const char *name)
{
    for (int i = 0; name && i < BLOCK_N; i++)
        if (!strcmp(blocks[i]->name, name)) return blocks[i];
    return NULL;
}

#define B(n) BLOCK_##n,
#define RECORD_KIND(name, list) {name, (const block_id[]){list BLOCK_N}},
const record_kind_t record_kinds[] = {
#include "harness/blocks/kinds.def"
    {NULL, NULL},
};
#undef RECORD_KIND
#undef B

const record_kind_t *record_kind_find(const char *benchmark)
{
    for (const record_kind_t *k = record_kinds; benchmark && k->benchmark; k++)
        if (!strcmp(k->benchmark, benchmark)) return k;
    return NULL;
}

/* A record of a kind kinds.def does not list (another program's, or one that
 * names none) is read as every record was before the table: with the blocks
 * stemdl's and collectives' readers know, so a program that writes them is
 * analysed like those benchmarks. */
static const block_id unlisted[] = {BLOCK_training, BLOCK_network, BLOCK_gradient_reduction,
                                    BLOCK_update_exchange, BLOCK_ensemble, BLOCK_collectives,
                                    BLOCK_N};

int blocks_read(const rd_t *c, const ytnode *root, record_t *r)
{
    if (blocks[BLOCK_simulation]->read(c, root, r)) return -1;
    const record_kind_t *k = record_kind_find(r->benchmark);
    for (const block_id *b = k ? k->blocks : unlisted; *b != BLOCK_N; b++)
        if (blocks[*b]->read(c, root, r)) return -1;
    return 0;
}

/* more than every block's rows together */
#define CATALOG_MAX 128

const metric_info_t *blocks_catalog(void)
{
    static metric_info_t cat[CATALOG_MAX + 1];
    if (!cat[0].name) {
        size_t n = 0;
        for (int i = 0; i < BLOCK_N; i++)
            for (const metric_info_t *m = blocks[i]->catalog; m && m->name && n < CATALOG_MAX; m++)
                cat[n++] = *m;
    }
    return cat;
}
