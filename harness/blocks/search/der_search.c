/* Block search, its derived half (der_search.h): the launches' search blocks
 * and each entry's first one per scale, whose numbers are its rows. */
#define _GNU_SOURCE
#include "harness/blocks/search/der_search.h"

#include <math.h>
#include <string.h>

void *search_derive(const blkctx_t *c)
{
    srrun_t *S = ar_alloc(c->a, sizeof *S);
    size_t cap = 0;
    for (size_t i = 0; i < c->n; i++)
        if (c->o[i].rec && rec_search(c->o[i].rec)) {
            AR_GROW(c->a, S->l, S->nl, cap);
            S->l[S->nl++] = (srlaunch_t){c->o[i].bench, (int)c->o[i].rec->ranks, rec_search(c->o[i].rec)};
        }
    cap = 0;
    for (size_t i = 0; i < c->an->nb; i++)
        for (size_t k = 0; k < c->an->b[i].ns; k++) {
            const sres_t *s = &c->an->b[i].s[k];
            const srinfo_t *m = s->rec ? rec_search(s->rec) : NULL;
            if (!m) continue;
            AR_GROW(c->a, S->r, S->nr, cap);
            S->r[S->nr++] = (srrow_t){&c->an->b[i], s->scale, m};
        }
    return S;
}

void search_rows(const blkctx_t *c, const void *self, size_t entry, mtable_t *t)
{
    (void)entry;
    const srrun_t *S = self;
    for (size_t i = 0; i < S->nr; i++) {
        const srrow_t *r = &S->r[i];
        kv_t *p = ar_alloc(c->a, 2 * sizeof *p);
        p[0] = *blocks_param(c->a, "mode", r->m->mode ? r->m->mode : "?");
        p[1] = *blocks_param(c->a, "fitness", r->m->fitness ? r->m->fitness : "?");
        const char *names[] = {"search_candidates_per_hour", "search_worker_idle_fraction",
                               "search_decision_cpu_s", "search_evals_to_optimum"};
        double v[] = {r->m->per_hour, r->m->idle_fraction, r->m->decision_median_s,
                      r->m->evals_to_optimum >= 0 ? r->m->evals_to_optimum : NAN};
        for (int j = 0; j < 4; j++)
            blocks_put(c->a, t, r->b, r->scale, names[j], v[j], NAN, NAN, r->m->evaluated, p, 2);
    }
}
