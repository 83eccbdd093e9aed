/* Block model_parallel, its derived half (der_model_parallel.h): each
 * entry's first record per scale, whose numbers are its rows. */
#define _GNU_SOURCE
#include "harness/blocks/model_parallel/der_model_parallel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void *model_parallel_derive(const blkctx_t *c)
{
    mprun_t *M = ar_alloc(c->a, sizeof *M);
    size_t cap = 0;
    for (size_t i = 0; i < c->an->nb; i++)
        for (size_t k = 0; k < c->an->b[i].ns; k++) {
            const sres_t *s = &c->an->b[i].s[k];
            const mpinfo_t *m = s->rec ? rec_model_parallel(s->rec) : NULL;
            if (!m) continue;
            AR_GROW(c->a, M->r, M->n, cap);
            M->r[M->n++] = (mprow_t){&c->an->b[i], s->scale, m, s->n ? s->st.median : NAN};
        }
    return M;
}

void model_parallel_rows(const blkctx_t *c, const void *self, size_t entry, mtable_t *t)
{
    (void)entry;
    const mprun_t *M = self;
    for (size_t i = 0; i < M->n; i++) {
        const mprow_t *r = &M->r[i];
        char mr[24];
        snprintf(mr, sizeof mr, "%lld", r->m->model_ranks);
        kv_t *p = blocks_param(c->a, "model_ranks", ar_strdup(c->a, mr));
        const char *names[] = {"mp_parameters_per_rank", "mp_halo_bytes_per_step",
                               "mp_halo_s_per_step",     "mp_tp_bytes_per_step",
                               "mp_tp_s_per_step",       "mp_allreduce_bytes_per_step",
                               "mp_memory_hwm_bytes",    "mp_memory_formula_bytes"};
        /* the pair's rows only where there is one */
        int pair = r->m->dense > 0;
        double v[] = {r->m->parameters_per_rank, r->m->halo_bytes, r->m->halo_s,
                      pair ? r->m->tp_bytes_rank : NAN, pair ? r->m->tp_s : NAN,
                      r->m->allreduce_bytes_rank, r->m->memory_hwm_bytes,
                      r->m->memory_formula_bytes};
        for (int j = 0; j < 8; j++)
            blocks_put(c->a, t, r->b, r->scale, names[j], v[j], NAN, NAN, NAN, p, 1);
    }
}
