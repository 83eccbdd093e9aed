/* Block gradient_reduction (blk_gradient_reduction.h): a training record's
 * gradient_reduction block (docs/record.md): the engine's settings, its
 * tensors and groups, the per-step costs and rank 0's timeline; the rows of
 * its costs and of the scaling model built on them (harness/model/). */
#define _GNU_SOURCE
#include "harness/blocks/gradient_reduction/blk_gradient_reduction.h"

#include <string.h>

/* groups size arrays (labels, the timeline): a record claiming more is refused */
#define GR_MAX_GROUPS (1 << 20)

static int steps_block(const rd_t *c, const ytnode *st, grinfo_t *g)
{
    /* per-step samples the model takes medians of: finite */
    size_t n[5];
    if (rd_nums(c, st, "exposed_s", RD_FINITE, &g->exposed_s, &n[0]) ||
        rd_nums(c, st, "negotiation_s", RD_FINITE, &g->negotiation_s, &n[1]) ||
        rd_nums(c, st, "reduce_s", RD_FINITE, &g->reduce_s, &n[2]) ||
        rd_nums(c, st, "backward_end_s", RD_FINITE, &g->backward_end_s, &n[3]) ||
        rd_nums(c, st, "cycles", RD_FINITE, &g->cycles, &n[4]))
        return -1;
    g->nsteps = n[0];
    for (int i = 1; i < 5; i++)
        if (n[i] != g->nsteps && n[i] != 0)
            return rd_err(c, st, "gradient_reduction.steps: the lists differ in length (%zu and %zu)",
                          g->nsteps, n[i]);
    return 0;
}

static int timeline(const rd_t *c, const ytnode *b, grinfo_t *g)
{
    const ytnode *tl;
    if (rd_list(c, b, "timeline", &tl)) return -1;
    if (!tl) return 0;
    size_t G = (size_t)(g->groups > 0 ? g->groups : 0);
    /* every entry is a node of the file: more than the loader takes is a lie */
    if (G && tl->n > YT_MAX_NODES / G)
        return rd_err(c, tl, "timeline: %zu steps of %zu groups is more than a file can hold",
                      tl->n, G);
    g->timeline = rd_alloc(c, (tl->n * G * 3 + 1) * sizeof *g->timeline);
    for (size_t s = 0; s < tl->n; s++) {
        const ytnode *step = tl->items[s];
        if (step->kind != YT_SEQ || step->n != G)
            return rd_err(c, step, "timeline: each step must list %zu groups", G);
        for (size_t k = 0; k < G; k++) {
            const ytnode *e = step->items[k];
            if (e->kind != YT_SEQ || e->n != 3)
                return rd_err(c, e, "timeline: each group is [ready, start, end]");
            for (size_t j = 0; j < 3; j++)
                if (rd_num_node(c, e->items[j], RD_FINITE, &g->timeline[(s * G + k) * 3 + j]))
                    return -1;
        }
    }
    g->ntl = tl->n;
    return 0;
}

static int tensors(const rd_t *c, const ytnode *b, grinfo_t *g)
{
    const ytnode *ts;
    if (rd_list(c, b, "tensors", &ts)) return -1;
    if (!ts) return 0;
    g->t = rd_alloc(c, (ts->n + 1) * sizeof *g->t);
    for (size_t i = 0; i < ts->n; i++) {
        const ytnode *x = ts->items[i];
        grtensor_t *t = &g->t[g->nt++];
        if (x->kind != YT_MAP) return rd_err(c, x, "tensors: each must be a mapping");
        if (rd_str(c, x, "name", NULL, &t->name) || rd_num(c, x, "bytes", RD_COUNT, &t->bytes) ||
            rd_int(c, x, "group", -1, &t->group))
            return -1;
        if (!t->name || !(t->bytes >= 0) || t->group < 0 || (g->groups > 0 && t->group >= g->groups))
            return rd_err(c, x, "tensors: each needs name, bytes >= 0 and a group below groups (%lld)",
                          g->groups);
    }
    return 0;
}

static int group_labels(const rd_t *c, const ytnode *b, grinfo_t *g)
{
    g->labels = rd_alloc(c, ((size_t)(g->groups > 0 ? g->groups : 0) + 1) * sizeof *g->labels);
    const ytnode *gl;
    if (rd_list(c, b, "group_list", &gl)) return -1;
    for (size_t i = 0; gl && i < gl->n; i++) {
        long long k;
        const char *label;
        if (rd_int(c, gl->items[i], "group", -1, &k) ||
            rd_str(c, gl->items[i], "label", NULL, &label))
            return -1;
        if (k >= 0 && k < g->groups) g->labels[k] = label;
    }
    return 0;
}

static int read_gr(const rd_t *c, const ytnode *root, record_t *r)
{
    const ytnode *b, *st;
    if (rd_map(c, root, "gradient_reduction", &b)) return -1;
    if (!b) return 0;
    grinfo_t *g = rd_alloc(c, sizeof *g);
    if (rd_str(c, b, "transport", NULL, &g->transport) ||
        rd_str(c, b, "orchestration", NULL, &g->orchestration) ||
        rd_str(c, b, "grouping", NULL, &g->grouping) || rd_int_in(c, b, "groups", -1, 1, GR_MAX_GROUPS, &g->groups) ||
        rd_int_in(c, b, "cache_capacity", -1, 0, GR_MAX_GROUPS, &g->cache_capacity) ||
        rd_num(c, b, "fusion_bytes", RD_ANY, &g->fusion_bytes) ||
        rd_num(c, b, "cycle_ms", RD_ANY, &g->cycle_ms) ||
        rd_str(c, b, "engine", NULL, &g->engine) ||
        rd_str(c, b, "engine_reason", NULL, &g->engine_reason))
        return -1;
    if (g->engine && strcmp(g->engine, "none") && strcmp(g->engine, "thread") &&
        strcmp(g->engine, "inline"))
        /* the value is the record's text: named by its place, not echoed */
        return rd_err(c, b, "gradient_reduction.engine: must be none, thread or inline");
    if (tensors(c, b, g) || group_labels(c, b, g) || rd_map(c, b, "steps", &st) ||
        (st && steps_block(c, st, g)) || timeline(c, b, g))
        return -1;
    r->blk[BLOCK_gradient_reduction] = g;
    return 0;
}

static const metric_info_t catalog[] = {
    {"exposed_comm_s", "s", -1, 1, "gradient reduction not hidden behind backward: median per "
                                   "timed step (max over ranks)"},
    {"negotiation_s", "s", -1, 1, "engine time in orchestration cycles: median per timed step"},
    {"model_efficiency", "", 1, 1, "the scaling model's efficiency for a mode (param mode) and "
                                   "scale: suites with model:, exadl model (docs/model.md)"},
    {"model_speedup", "", 1, 1, "the model's coordinator step time / bit-vector step time at one "
                                "scale and grouping (param grouping): exadl model"},
    {NULL, NULL, 0, 0, NULL}};

const block_t block_gradient_reduction = {
    .name = "gradient_reduction", .key = "gradient_reduction", .read = read_gr, .catalog = catalog,
    .section = "gradient_reduction", .derive = gradient_reduction_derive,
    .rows = gradient_reduction_rows, .rows_at = BLOCK_ROWS_RUN};
