/* Block collectives, its derived half (blk_collectives.h): each entry's rows
 * per collective (busbw, algbw, latency, wrong) and the best busbw of each
 * operation and scale.  Its numbers (cres_t: the rows pooled over launches)
 * are the analysis' (harness/analysis/analysis_coll.c), made with the
 * grouping by entry and scale (docs/architecture.md "A record block"). */
#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include "harness/blocks/collectives/blk_collectives.h"
#include "harness/blocks/derive.h"

/* keys a collective row sets itself (a config key of the same name is not the row's) */
static int row_key(const char *k)
{
    return !strcmp(k, "op") || !strcmp(k, "bytes") || !strcmp(k, "dtype") || !strcmp(k, "inplace") ||
           !strcmp(k, "redop");
}

static kv_t *coll_params(arena_t *a, const bres_t *b, const cres_t *c, size_t *np)
{
    kv_t *p = ar_alloc(a, (b->nparams + 6) * sizeof *p);
    size_t k = 0;
    p[k++] = (kv_t){"op", c->op};
    p[k++] = (kv_t){"bytes", ar_printf(a, "%.0f", c->bytes)};
    p[k++] = (kv_t){"dtype", c->dtype};
    if (c->redop && *c->redop) p[k++] = (kv_t){"redop", c->redop}; /* sum, min, max rows apart */
    p[k++] = (kv_t){"inplace", c->inplace ? "true" : "false"};
    for (size_t i = 0; i < b->nparams; i++)
        if (!row_key(b->params[i].key)) p[k++] = b->params[i];
    *np = k;
    return p;
}

/* the best busbw of each operation and scale (out-of-place rows) */
static void best_rows(arena_t *a, const bres_t *b, mtable_t *t)
{
    for (size_t i = 0; i < b->nc; i++) {
        const cres_t *c = &b->c[i];
        int first = 1;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(b->c[j].op, c->op) && b->c[j].scale == c->scale) first = 0;
        if (!first) continue;
        const cres_t *best = NULL;
        for (size_t j = i; j < b->nc; j++)
            if (!strcmp(b->c[j].op, c->op) && b->c[j].scale == c->scale &&
                isfinite(b->c[j].busbw) && (!best || b->c[j].busbw > best->busbw))
                best = &b->c[j];
        if (!best) continue;
        kv_t *cp = ar_alloc(a, (b->nparams + 1) * sizeof *cp);
        size_t k = 0;
        cp[k++] = (kv_t){"op", c->op};
        for (size_t j = 0; j < b->nparams; j++)
            if (!row_key(b->params[j].key)) cp[k++] = b->params[j];
        blocks_put(a, t, b, c->scale, "busbw_max_GBps", best->busbw, best->busbw_lo,
                   best->busbw_hi, (double)best->st.n, cp, k);
    }
}

void collectives_rows(const blkctx_t *x, const void *self, size_t entry, mtable_t *t)
{
    (void)self;
    const bres_t *b = &x->an->b[entry];
    arena_t *a = x->a;
    double nan = NAN;
    for (size_t i = 0; i < b->nc; i++) {
        const cres_t *c = &b->c[i];
        size_t cnp;
        kv_t *cp = coll_params(a, b, c, &cnp);
        double n = (double)c->st.n;
        blocks_put(a, t, b, c->scale, "busbw_GBps", c->busbw, c->busbw_lo, c->busbw_hi, n, cp,
                   cnp);
        double f = c->st.median > 0 ? c->bytes / 1e9 : nan;
        blocks_put(a, t, b, c->scale, "algbw_GBps", c->algbw, f / c->st.ci_hi, f / c->st.ci_lo, n,
                   cp, cnp);
        blocks_put(a, t, b, c->scale, "latency_us", c->latency_us, c->lat_lo, c->lat_hi, n, cp,
                   cnp);
        blocks_put(a, t, b, c->scale, "wrong", (double)c->wrong, nan, nan, n, cp, cnp);
    }
    best_rows(a, b, t);
}
