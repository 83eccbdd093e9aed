/* The loops over the block table that derive and add rows (derive.h). */
#define _GNU_SOURCE
#include "harness/blocks/derive.h"

#include <math.h>

void blocks_derive(blkctx_t *c)
{
    for (int i = 0; i < BLOCK_N; i++)
        c->derived[i] = blocks[i]->derive ? blocks[i]->derive(c) : NULL;
}

static void rows_at(const blkctx_t *c, block_rows_at at, size_t entry, mtable_t *t)
{
    for (int i = 0; i < BLOCK_N; i++)
        if (blocks[i]->rows && blocks[i]->rows_at == at)
            blocks[i]->rows(c, c->derived[i], entry, t);
}

void blocks_rows(const blkctx_t *c, mtable_t *t)
{
    for (size_t e = 0; e < c->an->nb; e++) {
        rows_at(c, BLOCK_ROWS_CONFIG, e, t);
        rows_at(c, BLOCK_ROWS_ENTRY, e, t);
    }
    rows_at(c, BLOCK_ROWS_RUN, c->an->nb, t);
}

void blocks_analyze(arena_t *a, const suite_t *s, const outcome_t *o, size_t n,
                    const analysis_t *an, blkctx_t *c, mtable_t *t)
{
    *c = (blkctx_t){.a = a, .s = s, .o = o, .n = n, .an = an};
    blocks_derive(c);
    blocks_rows(c, t);
}

kv_t *blocks_param(arena_t *a, const char *key, const char *value)
{
    kv_t *p = ar_alloc(a, sizeof *p);
    *p = (kv_t){key, value};
    return p;
}

void blocks_put(arena_t *a, mtable_t *t, const bres_t *b, int scale, const char *name, double v,
                double lo, double hi, double n, kv_t *params, size_t np)
{
    if (!isfinite(v)) return;
    const metric_info_t *mi = metric_info(name);
    metric_t m = {.bench = b->name, .program = b->program, .kind = b->kind, .scale = scale,
                  .metric = name, .value = v, .lo = lo, .hi = hi, .n = n,
                  .unit = mi ? mi->unit : "", .better = mi ? mi->better : 0,
                  .params = params, .nparams = np};
    mtable_add(a, t, &m);
}
