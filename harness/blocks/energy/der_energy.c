/* Block energy, its derived half (der_energy.h): per entry and scale, the
 * launches' energy numbers summarised as the step times are (median, 95%
 * CI), and their rows. */
#define _GNU_SOURCE
#include "harness/blocks/energy/der_energy.h"

#include <math.h>
#include <string.h>

/* the launches of entry b at scale with a block: their numbers, summarised */
static void summarise(const blkctx_t *c, const bres_t *b, int scale, enrow_t *r)
{
    double *v[5];
    for (int k = 0; k < 5; k++) v[k] = ar_alloc(c->a, (c->n + 1) * sizeof(double));
    size_t m = 0;
    for (size_t i = 0; i < c->n; i++) {
        const outcome_t *o = &c->o[i];
        const eninfo_t *e = o->rec ? rec_energy(o->rec) : NULL;
        if (!e || o->scale != scale || strcmp(o->bench, b->name)) continue;
        r->nlaunch++;
        if (!isfinite(e->energy_j)) continue;
        v[0][m] = e->j_per_sample;
        v[1][m] = e->flops_per_w;
        v[2][m] = e->conv_flops_per_w;
        v[3][m] = e->avg_w;
        v[4][m] = e->peak_w;
        m++;
    }
    r->nmeasured = (int)m;
    stats_summarize(v[0], m, &r->j_per_sample);
    stats_summarize(v[1], m, &r->flops_per_w);
    stats_summarize(v[2], m, &r->conv_flops_per_w);
    stats_summarize(v[3], m, &r->avg_w);
    stats_summarize(v[4], m, &r->peak_w);
}

void *energy_derive(const blkctx_t *c)
{
    enrun_t *E = ar_alloc(c->a, sizeof *E);
    size_t cap = 0;
    for (size_t i = 0; i < c->an->nb; i++)
        for (size_t k = 0; k < c->an->b[i].ns; k++) {
            const sres_t *s = &c->an->b[i].s[k];
            const eninfo_t *e = s->rec ? rec_energy(s->rec) : NULL;
            if (!e) continue;
            AR_GROW(c->a, E->r, E->n, cap);
            enrow_t *r = &E->r[E->n++];
            memset(r, 0, sizeof *r);
            r->b = &c->an->b[i];
            r->scale = s->scale;
            r->first = e;
            summarise(c, r->b, s->scale, r);
        }
    return E;
}

void energy_rows(const blkctx_t *c, const void *self, size_t entry, mtable_t *t)
{
    (void)entry;
    const enrun_t *E = self;
    for (size_t i = 0; i < E->n; i++) {
        const enrow_t *r = &E->r[i];
        /* the basis tells a node meter from component counters apart */
        kv_t *p = blocks_param(c->a, "energy_basis", r->first->basis);
        const char *names[] = {"energy_j_per_sample", "energy_flops_per_w",
                               "energy_conv_flops_per_w", "energy_avg_power_w",
                               "energy_peak_power_w"};
        const stats_summary_t *st[] = {&r->j_per_sample, &r->flops_per_w, &r->conv_flops_per_w,
                                       &r->avg_w, &r->peak_w};
        for (int j = 0; j < 5; j++)
            blocks_put(c->a, t, r->b, r->scale, names[j], st[j]->median, st[j]->ci_lo,
                       st[j]->ci_hi, r->nmeasured, p, 1);
    }
}
