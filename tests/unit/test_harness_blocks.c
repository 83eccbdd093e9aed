/* The record-block tables (harness/blocks/): every block of blocks.def has
 * its name, the record keys it reads and a reader; catalog rows or a reason
 * why it has none; a report section that exists or a reason why none; every
 * metric name belongs to exactly one block and the catalog is their union in
 * table order; every record kind lists blocks that exist, each once, and
 * every workload's record kind is one of them. */
#define _GNU_SOURCE
#include <string.h>

#include "harness/analysis/metrics.h"
#include "harness/blocks/block.h"
#include "harness/report/section.h"
#include "harness/workloads/workload.h"
#include "tests/unit/tap.h"

static int section_exists(const char *name)
{
    for (const section_t *const *s = report_sections; *s; s++)
        if (!strcmp((*s)->name, name)) return 1;
    for (const bsection_t *const *s = bench_sections; *s; s++)
        if (!strcmp((*s)->name, name)) return 1;
    return 0;
}

static void test_every_block(void)
{
    /* the table is indexed by the ids blocks.def makes, each under its own name */
#define BLOCK(n)                                                                             \
    T_ASSERT(blocks[BLOCK_##n] == &block_##n && !strcmp(block_##n.name, #n),                 \
             "block %s is not at BLOCK_%s", block_##n.name, #n);
#include "harness/blocks/blocks.def"
#undef BLOCK
    for (int i = 0; i < BLOCK_N; i++) {
        const block_t *b = blocks[i];
        T_ASSERT(block_named(b->name) == b, "%s: its name finds another block", b->name);
        T_ASSERT(b->key && *b->key, "%s: no record key", b->name);
        T_ASSERT(b->read != NULL, "%s: no reader", b->name);
        T_ASSERT(!b->rows != !b->no_rows, "%s: rows and a reason for none, or neither", b->name);
        T_ASSERT(b->rows ? b->rows[0].name != NULL : *b->no_rows != 0,
                 "%s: an empty row list or an empty reason", b->name);
        T_ASSERT(!b->section != !b->no_section, "%s: a section and a reason for none, or neither",
                 b->name);
        if (b->section)
            T_ASSERT(section_exists(b->section), "%s: section '%s' is in no section list", b->name,
                     b->section);
        else
            T_ASSERT(*b->no_section, "%s: an empty reason for no section", b->name);
    }
    T_ASSERT(!block_named("no-such-block") && !block_named(NULL), "unknown names find nothing");
}

static void test_catalog_is_the_union(void)
{
    const metric_info_t *cat = metric_catalog();
    size_t n = 0;
    for (int i = 0; i < BLOCK_N; i++)
        for (const metric_info_t *m = blocks[i]->rows; m && m->name; m++, n++) {
            T_ASSERT(cat[n].name && !strcmp(cat[n].name, m->name),
                     "catalog row %zu is %s, block %s's row %s", n, cat[n].name ? cat[n].name : "-",
                     blocks[i]->name, m->name);
            T_ASSERT(metric_info(m->name) == &cat[n], "%s: metric_info finds another row", m->name);
            T_ASSERT(*m->what, "%s: no meaning", m->name);
            /* in exactly one block: no other row of any block has the name */
            int seen = 0;
            for (int j = 0; j < BLOCK_N; j++)
                for (const metric_info_t *x = blocks[j]->rows; x && x->name; x++)
                    seen += !strcmp(x->name, m->name);
            T_ASSERT(seen == 1, "%s: in %d blocks' rows", m->name, seen);
        }
    T_ASSERT(cat[n].name == NULL, "the catalog has rows no block lists (%s)",
             cat[n].name ? cat[n].name : "-");
    T_ASSERT(n >= 40, "%zu metric names", n);
    /* metric_names: the same names, for suggestions */
    const char *const *names = metric_names();
    for (size_t i = 0; i < n; i++)
        T_ASSERT(names[i] && !strcmp(names[i], cat[i].name), "metric_names()[%zu]", i);
}

static void test_every_kind(void)
{
    size_t nk = 0;
    for (const record_kind_t *k = record_kinds; k->benchmark; k++, nk++) {
        T_ASSERT(record_kind_find(k->benchmark) == k, "kind %s: found another", k->benchmark);
        size_t n = 0;
        int seen[BLOCK_N] = {0};
        for (const block_id *b = k->blocks; *b != BLOCK_N; b++, n++) {
            int id = (int)*b;
            T_ASSERT(id >= 0 && id < BLOCK_N, "kind %s: block id %d", k->benchmark, id);
            if (id < 0 || id >= BLOCK_N) break;
            T_ASSERT(!seen[*b]++, "kind %s lists %s twice", k->benchmark, blocks[*b]->name);
            /* the simulation block is read for every kind, before the kind's */
            T_ASSERT(*b != BLOCK_simulation, "kind %s lists the simulation block", k->benchmark);
        }
        T_ASSERT(n > 0, "kind %s has no blocks", k->benchmark);
    }
    T_ASSERT(nk >= 7, "%zu record kinds", nk);
    for (const workload_t *w = workloads; w->name; w++)
        T_ASSERT(record_kind_find(w->kind), "workload %s: its record kind %s is not in kinds.def",
                 w->name, w->kind);
    /* every block but the simulation one is some kind's (else nothing reads it) */
    for (int i = 0; i < BLOCK_N; i++) {
        int used = i == BLOCK_simulation;
        for (const record_kind_t *k = record_kinds; k->benchmark && !used; k++)
            for (const block_id *b = k->blocks; *b != BLOCK_N; b++) used |= (int)*b == i;
        T_ASSERT(used, "block %s is in no kind's line of kinds.def", blocks[i]->name);
    }
}

int main(void)
{
    T_RUN(test_every_block);
    T_RUN(test_catalog_is_the_union);
    T_RUN(test_every_kind);
    T_DONE();
}
