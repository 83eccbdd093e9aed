/* Block workflow, its derived half (der_workflow.h). */
#define _GNU_SOURCE
#include "harness/blocks/workflow/der_workflow.h"

#include <math.h>
#include <string.h>

void *workflow_derive(const blkctx_t *c)
{
    wfrun_t *W = ar_alloc(c->a, sizeof *W);
    size_t cap = 0;
    for (size_t i = 0; i < c->n; i++)
        if (c->o[i].rec && rec_workflow(c->o[i].rec)) {
            AR_GROW(c->a, W->l, W->nl, cap);
            W->l[W->nl++] = (wflaunch_t){c->o[i].bench, rec_workflow(c->o[i].rec)};
        }
    cap = 0;
    for (size_t i = 0; i < c->an->nb; i++)
        for (size_t k = 0; k < c->an->b[i].ns; k++) {
            const sres_t *s = &c->an->b[i].s[k];
            const wfinfo_t *m = s->rec ? rec_workflow(s->rec) : NULL;
            if (!m) continue;
            AR_GROW(c->a, W->r, W->nr, cap);
            W->r[W->nr++] = (wfrow_t){&c->an->b[i], s->scale, m};
        }
    return W;
}

void workflow_rows(const blkctx_t *c, const void *self, size_t entry, mtable_t *t)
{
    (void)entry;
    const wfrun_t *W = self;
    for (size_t i = 0; i < W->nr; i++) {
        const wfrow_t *r = &W->r[i];
        const wfinfo_t *m = r->m;
        kv_t *p = blocks_param(c->a, "mode", m->mode ? m->mode : "?");
        blocks_put(c->a, t, r->b, r->scale, "workflow_consumed_per_s", m->consumed_per_s, NAN, NAN,
                   m->consumed, p, 1);
        blocks_put(c->a, t, r->b, r->scale, "workflow_produced_per_s", m->produced_per_s, NAN, NAN,
                   m->produced, p, 1);
        blocks_put(c->a, t, r->b, r->scale, "workflow_stall_fraction", m->stall_fraction, NAN, NAN,
                   NAN, p, 1);
        blocks_put(c->a, t, r->b, r->scale, "workflow_latency_s", m->lat_median_s, m->lat_lo_s,
                   m->lat_hi_s, m->consumed, p, 1);
        blocks_put(c->a, t, r->b, r->scale, "workflow_lost_to_failure", m->lost_to_failure, NAN,
                   NAN, NAN, p, 1);
    }
}
