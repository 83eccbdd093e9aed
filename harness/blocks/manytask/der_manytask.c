/* Block manytask, its derived half (der_manytask.h): the launches' tasks
 * blocks and each entry's first one per scale, whose numbers are its rows. */
#define _GNU_SOURCE
#include "harness/blocks/manytask/der_manytask.h"

#include <math.h>
#include <string.h>

void *manytask_derive(const blkctx_t *c)
{
    mtrun_t *M = ar_alloc(c->a, sizeof *M);
    size_t cap = 0;
    for (size_t i = 0; i < c->n; i++)
        if (c->o[i].rec && rec_manytask(c->o[i].rec)) {
            AR_GROW(c->a, M->l, M->nl, cap);
            M->l[M->nl++] = (mtlaunch_t){c->o[i].bench, rec_manytask(c->o[i].rec)};
        }
    cap = 0;
    for (size_t i = 0; i < c->an->nb; i++)
        for (size_t k = 0; k < c->an->b[i].ns; k++) {
            const sres_t *s = &c->an->b[i].s[k];
            const mtinfo_t *m = s->rec ? rec_manytask(s->rec) : NULL;
            if (!m) continue;
            AR_GROW(c->a, M->r, M->nr, cap);
            M->r[M->nr++] = (mtrow_t){&c->an->b[i], s->scale, m};
        }
    return M;
}

void manytask_rows(const blkctx_t *c, const void *self, size_t entry, mtable_t *t)
{
    (void)entry;
    const mtrun_t *M = self;
    for (size_t i = 0; i < M->nr; i++) {
        const mtrow_t *r = &M->r[i];
        kv_t *p = blocks_param(c->a, "launcher", r->m->launcher ? r->m->launcher : "?");
        const char *names[] = {"tasks_per_s", "task_latency_p50_s", "task_latency_p99_s"};
        double v[] = {r->m->tasks_per_s, r->m->p50_s, r->m->p99_s};
        for (int j = 0; j < 3; j++)
            blocks_put(c->a, t, r->b, r->scale, names[j], v[j], NAN, NAN, r->m->done, p, 1);
    }
}
