/* Block spatial, its derived half (der_spatial.h): per entry the spatial
 * model's inputs and, per measured scale, its prediction beside the
 * measured halo and gather times. */
#define _GNU_SOURCE
#include "harness/blocks/spatial/der_spatial.h"

#include <stdlib.h>
#include <string.h>

static double kind_time(const sres_t *s, const char *kind)
{
    for (size_t j = 0; j < s->nkinds; j++)
        if (!strcmp(s->kinds[j].kind, kind)) return s->kinds[j].time_s;
    return 0;
}

static int batch_of(const record_t *r)
{
    const char *b = record_config(r, "batch");
    return b && atoi(b) > 0 ? atoi(b) : 1;
}

/* The prediction for the configuration the record at scale s ran. */
static int predict(const mspin_t *in, const sres_t *s, msp_t *p)
{
    const spinfo_t *sp = s->rec ? rec_spatial(s->rec) : NULL;
    if (!sp) return -1;
    int split[3] = {(int)sp->split[0], (int)sp->split[1], (int)sp->split[2]};
    return msp_predict(&in->w, split, (int)sp->groups, batch_of(s->rec), &in->net, p);
}

static double pred_eff(const bres_t *b, const msp_t *p0, const sres_t *s0, const msp_t *p,
                       const sres_t *s)
{
    double k = (double)s0->scale / s->scale;
    if (b->scaling == SCALING_WEAK) return p->samples_per_s * k / p0->samples_per_s;
    return p0->step_s * k / p->step_s;
}

static void entry(const blkctx_t *c, const bres_t *b, spentry_t *e)
{
    for (size_t i = 0; i < b->ns; i++) e->active |= b->s[i].rec && rec_spatial(b->s[i].rec);
    if (!e->active) return;
    char err[512];
    if (msp_inputs_from_run(c->a, c->o, c->n, b->name, NULL, &e->in, err, sizeof err)) {
        e->why = ar_strdup(c->a, err);
        return;
    }
    e->sc = ar_alloc(c->a, (b->ns + 1) * sizeof *e->sc);
    for (size_t i = 0; i < b->ns; i++) {
        const sres_t *s = &b->s[i];
        spscale_t *x = &e->sc[e->nsc];
        if (!s->n || predict(&e->in, s, &x->p)) continue;
        const spscale_t *x0 = e->nsc ? &e->sc[0] : x;
        x->s = s, x->sp = rec_spatial(s->rec), x->batch = batch_of(s->rec);
        x->pred_eff = pred_eff(b, &x0->p, x0 == x ? s : x0->s, &x->p, s);
        /* the U-Net has no feature gather: its `gather` rows are copies */
        x->halo_s = kind_time(s, "halo"), x->gather_s = e->in.w.dplanes ? 0 : kind_time(s, "gather");
        x->have_best = msp_best(&e->in.w, s->scale, (int)x->sp->groups * x->batch, &e->in.net,
                                &x->best) == 0;
        e->nsc++;
    }
}

void *spatial_derive(const blkctx_t *c)
{
    sprun_t *S = ar_alloc(c->a, sizeof *S);
    S->n = c->an->nb;
    S->e = ar_alloc(c->a, (S->n + 1) * sizeof *S->e);
    for (size_t i = 0; i < S->n; i++) entry(c, &c->an->b[i], &S->e[i]);
    return S;
}
