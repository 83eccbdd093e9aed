/* The record-block tables (harness/blocks/): every block of blocks.def has
 * its name, the record keys it reads and a reader; catalog rows or a reason
 * why it has none; a derive or a reason why none; rows (where it has catalog
 * rows) or a reason why none; a report section that exists or a reason why
 * none; every metric name belongs to exactly one block and the catalog is
 * their union in table order; every row a block adds for a run of the
 * fixtures is one of its own catalog's; every record kind lists blocks that
 * exist, each once, and every workload's record kind is one of them. */
#define _GNU_SOURCE
#include <string.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness/analysis/metrics.h"
#include "harness/blocks/block.h"
#include "harness/blocks/derive.h"
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
        T_ASSERT(!b->catalog != !b->no_catalog,
                 "%s: catalog rows and a reason for none, or neither", b->name);
        T_ASSERT(b->catalog ? b->catalog[0].name != NULL : *b->no_catalog != 0,
                 "%s: an empty row list or an empty reason", b->name);
        /* the derived half: its numbers and the rows it adds, or why not */
        T_ASSERT(!b->derive != !b->no_derive, "%s: a derive and a reason for none, or neither",
                 b->name);
        T_ASSERT(b->derive || *b->no_derive, "%s: an empty reason for no derive", b->name);
        if (b->catalog)
            T_ASSERT(!b->rows != !b->no_rows && (b->rows || *b->no_rows),
                     "%s: catalog rows but no rows fn and no reason, or both", b->name);
        else
            T_ASSERT(!b->rows && !b->no_rows, "%s: rows but no catalog rows to name them", b->name);
        T_ASSERT(b->rows_at == BLOCK_ROWS_RUN || b->rows_at == BLOCK_ROWS_CONFIG ||
                     b->rows_at == BLOCK_ROWS_ENTRY, "%s: rows_at %d", b->name, (int)b->rows_at);
        /* numbers nobody reads: a derive feeds its rows or its section */
        if (b->derive)
            T_ASSERT(b->rows || b->section, "%s: a derive with neither rows nor section", b->name);
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
        for (const metric_info_t *m = blocks[i]->catalog; m && m->name; m++, n++) {
            T_ASSERT(cat[n].name && !strcmp(cat[n].name, m->name),
                     "catalog row %zu is %s, block %s's row %s", n, cat[n].name ? cat[n].name : "-",
                     blocks[i]->name, m->name);
            T_ASSERT(metric_info(m->name) == &cat[n], "%s: metric_info finds another row", m->name);
            T_ASSERT(*m->what, "%s: no meaning", m->name);
            /* in exactly one block: no other row of any block has the name */
            int seen = 0;
            for (int j = 0; j < BLOCK_N; j++)
                for (const metric_info_t *x = blocks[j]->catalog; x && x->name; x++)
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

static const char *root(void)
{
    const char *r = getenv("EXADL_ROOT");
    return r ? r : ".";
}

static int in_catalog(const block_t *b, const char *metric)
{
    for (const metric_info_t *m = b->catalog; m && m->name; m++)
        if (!strcmp(m->name, metric)) return 1;
    return 0;
}

/* A run of every fixture kind (training at two scales, an ensemble and its
 * lone trainer, collectives, datadist, manytask, workflow) derived: every block with
 * rows adds only rows of its own catalog, each block the fixtures carry adds
 * some, and the one loop adds them all. */
static void test_rows_are_the_blocks(void)
{
    static const struct {
        const char *bench, *file;
        int scale;
    } fx[] = {{"stemdl", "stemdl-n1-r1.yaml", 1}, {"stemdl", "stemdl-n2-r1.yaml", 2},
              {"ens", "stemdl-ens-n2.yaml", 2},   {"one", "stemdl-ens-alone-n1.yaml", 1},
              {"coll", "coll-n2.yaml", 2},        {"dd", "datadist-n2.yaml", 2},
              {"mt", "manytask-n1.yaml", 1},      {"wf", "workflow-n4.yaml", 4}};
    enum { NF = sizeof fx / sizeof *fx };
    arena_t *a = ar_new();
    outcome_t o[NF];
    memset(o, 0, sizeof o);
    char err[1024];
    for (size_t i = 0; i < NF; i++) {
        o[i].bench = fx[i].bench, o[i].program = "stemdl", o[i].scale = fx[i].scale;
        o[i].status = LS_OK;
        o[i].rec = ar_alloc(a, sizeof *o[i].rec);
        char p[1024];
        snprintf(p, sizeof p, "%s/tests/fixtures/harness/%s", root(), fx[i].file);
        if (record_load(a, p, o[i].rec, err, sizeof err)) T_SKIP("fixture: %s", err);
    }
    analysis_t an;
    analysis_run(a, o, NF, NAN, NULL, &an);
    blkctx_t c = {.a = a, .o = o, .n = NF, .an = &an};
    blocks_derive(&c);
    size_t total = 0;
    for (int i = 0; i < BLOCK_N; i++) {
        const block_t *b = blocks[i];
        if (!b->rows) continue;
        mtable_t t = {0};
        if (b->rows_at == BLOCK_ROWS_RUN) b->rows(&c, c.derived[i], an.nb, &t);
        else
            for (size_t e = 0; e < an.nb; e++) b->rows(&c, c.derived[i], e, &t);
        for (size_t k = 0; k < t.n; k++)
            T_ASSERT(in_catalog(b, t.m[k].metric), "block %s added row %s, not in its catalog",
                     b->name, t.m[k].metric);
        /* the blocks the fixtures carry (gradient_reduction's rows need a suite
         * with `model:` or two modes, update_exchange's the Lion optimizer) */
        if (i == BLOCK_training || i == BLOCK_network || i == BLOCK_collectives ||
            i == BLOCK_ensemble || i == BLOCK_datadist || i == BLOCK_manytask ||
            i == BLOCK_workflow || i == BLOCK_energy)
            T_ASSERT(t.n > 0, "block %s added no rows for the fixtures", b->name);
        total += t.n;
    }
    /* the one loop adds the same rows */
    mtable_t all = {0};
    blocks_rows(&c, &all);
    T_ASSERT(all.n == total, "blocks_rows added %zu rows, the blocks one by one %zu", all.n, total);
    /* the energy block's row: the fixture's 1000 J over its 20 samples */
    const metric_t *e = NULL;
    for (size_t k = 0; k < all.n && !e; k++)
        if (!strcmp(all.m[k].metric, "energy_j_per_sample") && !strcmp(all.m[k].bench, "stemdl") &&
            all.m[k].scale == 2)
            e = &all.m[k];
    T_ASSERT(e && e->value == 50 && !strcmp(metric_param(e, "energy_basis"), "components"),
             "energy_j_per_sample of stemdl at 2 ranks: %g", e ? e->value : NAN);
    ar_free(a);
}

int main(void)
{
    T_RUN(test_every_block);
    T_RUN(test_catalog_is_the_union);
    T_RUN(test_every_kind);
    T_RUN(test_rows_are_the_blocks);
    T_DONE();
}
