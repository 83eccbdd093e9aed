/* Block io, its derived half (der_io.h); staging (--stage) counts in
 * time_to_train_staged_s only, as MLPerf HPC counts it in time to train. */
#define _GNU_SOURCE
#include "harness/blocks/io/der_io.h"

#include <math.h>
#include <string.h>

void *io_derive(const blkctx_t *c)
{
    iorun_t *D = ar_alloc(c->a, sizeof *D);
    size_t cap = 0;
    for (size_t i = 0; i < c->an->nb; i++)
        for (size_t k = 0; k < c->an->b[i].ns; k++) {
            const sres_t *s = &c->an->b[i].s[k];
            const ioinfo_t *d = s->rec ? rec_io(s->rec) : NULL;
            if (!d) continue;
            AR_GROW(c->a, D->r, D->n, cap);
            iores_t *r = &D->r[D->n++];
            r->b = &c->an->b[i], r->scale = s->scale, r->d = d;
            r->read_GBps = d->has_io && d->read_s > 0 ? d->bytes_read / d->read_s / 1e9 : NAN;
            r->exposed_per_step_s = d->has_io && d->steps > 0 ? d->exposed_read_s / d->steps : NAN;
        }
    return D;
}

void io_rows(const blkctx_t *c, const void *self, size_t entry, mtable_t *t)
{
    (void)entry;
    const iorun_t *D = self;
    for (const iores_t *r = D->r; r && r < D->r + D->n; r++) { /* r: NULL when none */
        blocks_put(c->a, t, r->b, r->scale, "io_read_GBps", r->read_GBps, NAN, NAN, NAN, NULL, 0);
        blocks_put(c->a, t, r->b, r->scale, "io_exposed_read_s", r->exposed_per_step_s, NAN, NAN,
                   NAN, NULL, 0);
        if (r->d->has_ckpt && r->d->ckpt_writes > 0)
            blocks_put(c->a, t, r->b, r->scale, "checkpoint_write_GBps", r->d->ckpt_GBps, NAN, NAN,
                       NAN, NULL, 0);
        if (!r->d->has_ttt || !r->d->reached) continue;
        blocks_put(c->a, t, r->b, r->scale, "time_to_train_s", r->d->time_to_train_s, NAN, NAN,
                   NAN, NULL, 0);
        if (r->d->has_io && r->d->staging_s > 0)
            blocks_put(c->a, t, r->b, r->scale, "time_to_train_staged_s",
                       r->d->time_to_train_s + r->d->staging_s, NAN, NAN, NAN, NULL, 0);
        blocks_put(c->a, t, r->b, r->scale, "steps_to_target", r->d->steps_to_target, NAN, NAN,
                   NAN, NULL, 0);
        blocks_put(c->a, t, r->b, r->scale, "epochs_to_target", r->d->epochs_to_target, NAN, NAN,
                   NAN, NULL, 0);
    }
}
