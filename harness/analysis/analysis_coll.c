/* analysis_coll: the collectives' rows pooled over launches per scale,
 * operation, type, reduction, variant and size: median time with its CI,
 * algbw, busbw (with the factor each record carries) and latency. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/analysis/analysis.h"
#include "harness/analysis/analysis_parts.h"
#include "harness/blocks/collectives/blk_collectives.h"

static int cmp_cres(const void *x, const void *y)
{
    const cres_t *p = x, *q = y;
    int c = strcmp(p->op, q->op);
    if (c) return c;
    if (p->scale != q->scale) return p->scale - q->scale;
    if (p->inplace != q->inplace) return p->inplace - q->inplace;
    return (p->bytes > q->bytes) - (p->bytes < q->bytes);
}

void analysis_coll_rows(arena_t *a, bres_t *b, const outcome_t *o, size_t n)
{
    size_t cap = 0;
    /* first pass: the distinct rows */
    for (size_t i = 0; i < n; i++) {
        if (strcmp(o[i].bench, b->name) || o[i].status != LS_OK) continue;
        const record_t *r = o[i].rec;
        for (size_t k = 0; k < rec_coll(r)->nc; k++) {
            const crow_t *x = &rec_coll(r)->c[k];
            size_t j = 0;
            for (; j < b->nc; j++) {
                cres_t *c = &b->c[j];
                if (c->scale == o[i].scale && !strcmp(c->op, x->op) &&
                    !strcmp(c->dtype, x->dtype) && !strcmp(c->redop, x->redop) &&
                    c->inplace == x->inplace && c->bytes == x->bytes)
                    break;
            }
            if (j == b->nc) {
                AR_GROW(a, b->c, b->nc, cap);
                cres_t *c = &b->c[b->nc++];
                memset(c, 0, sizeof *c);
                c->scale = o[i].scale;
                c->op = x->op, c->dtype = x->dtype, c->redop = x->redop;
                c->inplace = x->inplace, c->bytes = x->bytes, c->count = x->count;
                c->factor = x->factor; /* as the benchmark used it (recread.c) */
            }
            b->c[j].n += x->ntime ? x->ntime : (isfinite(x->median_s) ? 1 : 0);
            b->c[j].wrong += x->wrong;
        }
    }
    /* second pass: pool the samples of each row */
    for (size_t j = 0; j < b->nc; j++) {
        cres_t *c = &b->c[j];
        double *v = ar_alloc(a, (c->n + 1) * sizeof *v);
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            if (strcmp(o[i].bench, b->name) || o[i].status != LS_OK || o[i].scale != c->scale)
                continue;
            const record_t *r = o[i].rec;
            for (size_t k = 0; k < rec_coll(r)->nc; k++) {
                const crow_t *x = &rec_coll(r)->c[k];
                if (strcmp(c->op, x->op) || strcmp(c->dtype, x->dtype) ||
                    strcmp(c->redop, x->redop) || c->inplace != x->inplace || c->bytes != x->bytes)
                    continue;
                if (x->ntime) {
                    memcpy(v + m, x->time_s, x->ntime * sizeof *v);
                    m += x->ntime;
                } else if (isfinite(x->median_s)) {
                    v[m++] = x->median_s;
                }
            }
        }
        stats_summarize(v, m, &c->st);
        double t = c->st.median;
        c->algbw = t > 0 ? c->bytes / t / 1e9 : NAN;
        c->busbw = c->algbw * c->factor;
        c->busbw_lo = c->st.ci_hi > 0 ? c->bytes * c->factor / c->st.ci_hi / 1e9 : NAN;
        c->busbw_hi = c->st.ci_lo > 0 ? c->bytes * c->factor / c->st.ci_lo / 1e9 : NAN;
        c->latency_us = t * 1e6;
        c->lat_lo = c->st.ci_lo * 1e6;
        c->lat_hi = c->st.ci_hi * 1e6;
    }
    if (b->nc) qsort(b->c, b->nc, sizeof *b->c, cmp_cres);
}
