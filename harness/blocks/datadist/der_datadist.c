/* Block datadist, its derived half (der_datadist.h): per entry, scale and
 * strategy the file's GB/s with its bounds and the time to the first batch. */
#define _GNU_SOURCE
#include "harness/blocks/datadist/der_datadist.h"

#include <math.h>
#include <string.h>

static void first_batch(arena_t *a, const ddrow_t *d, double *med, double *max)
{
    *med = *max = NAN;
    if (!d->nranks) return;
    double *x = ar_alloc(a, d->nranks * sizeof *x); /* stats_median sorts */
    memcpy(x, d->first_batch_s, d->nranks * sizeof *x);
    *med = stats_median(x, d->nranks);
    *max = x[0];
    for (size_t i = 1; i < d->nranks; i++)
        if (d->first_batch_s[i] > *max) *max = d->first_batch_s[i];
}

void *datadist_derive(const blkctx_t *c)
{
    ddrun_t *D = ar_alloc(c->a, sizeof *D);
    size_t cap = 0;
    for (size_t i = 0; i < c->an->nb; i++)
        for (size_t k = 0; k < c->an->b[i].ns; k++) {
            const sres_t *s = &c->an->b[i].s[k];
            for (size_t j = 0; s->rec && j < rec_datadist(s->rec)->ndd; j++) {
                const ddinfo_t *info = rec_datadist(s->rec);
                AR_GROW(c->a, D->r, D->n, cap);
                ddres_t *r = &D->r[D->n++];
                r->b = &c->an->b[i], r->scale = s->scale, r->d = &info->dd[j];
                r->file_lo_GBps = info->bytes / r->d->ci_hi_s / 1e9;
                r->file_hi_GBps = info->bytes / r->d->ci_lo_s / 1e9;
                first_batch(c->a, r->d, &r->first_med_s, &r->first_max_s);
            }
        }
    return D;
}

void datadist_rows(const blkctx_t *c, const void *self, size_t entry, mtable_t *t)
{
    (void)entry;
    const ddrun_t *D = self;
    for (const ddres_t *r = D->r; r && r < D->r + D->n; r++) { /* r: NULL when none */
        kv_t *p = blocks_param(c->a, "strategy", r->d->strategy);
        blocks_put(c->a, t, r->b, r->scale, "datadist_file_GBps", r->d->file_GBps,
                   r->file_lo_GBps, r->file_hi_GBps, NAN, p, 1);
        blocks_put(c->a, t, r->b, r->scale, "datadist_first_batch_s", r->first_max_s, NAN, NAN,
                   NAN, p, 1);
    }
}
