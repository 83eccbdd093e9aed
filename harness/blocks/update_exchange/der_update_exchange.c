/* Block update_exchange, its derived half (der_update_exchange.h): per Lion
 * entry and scale the exchange's costs (medians of the first record at the
 * scale), the loss after the last timed step, and the speedup over exchange
 * grad at the same rate, scale and training work. */
#define _GNU_SOURCE
#include "harness/blocks/update_exchange/der_update_exchange.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/blocks/training/blk_training.h"

static const char *rate_of(const suite_t *s, const char *bench)
{
    for (size_t i = 0; s && i < s->nbench; i++) {
        if (strcmp(s->bench[i].name, bench)) continue;
        for (size_t k = s->bench[i].nenv; k-- > 0;) /* the benchmark's own env comes last */
            if (!strcmp(s->bench[i].env[k].key, "EXADL_NET_RATE")) return s->bench[i].env[k].value;
    }
    return NULL;
}

static double med(const double *x, size_t n)
{
    size_t k = 0;
    double *y = malloc((n ? n : 1) * sizeof *y);
    if (!y) return NAN;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i])) y[k++] = x[i];
    double m = k ? stats_median(y, k) : NAN;
    free(y);
    return m;
}

static double mean(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += x[i];
    return n ? s / (double)n : NAN;
}

static int same(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

/* the same training work: network, image, batch and steps (the exchange may differ) */
static int same_work(const record_t *a, const record_t *b)
{
    static const char *const also[] = {"steps", NULL};
    return training_same_work(a, b, also);
}

void *update_exchange_derive(const blkctx_t *c)
{
    lioncub_t *L = ar_alloc(c->a, sizeof *L);
    size_t cap = 0;
    for (size_t i = 0; i < c->an->nb; i++) cap += c->an->b[i].ns;
    L->r = ar_alloc(c->a, (cap + 1) * sizeof *L->r);
    for (size_t i = 0; i < c->an->nb; i++) {
        const bres_t *b = &c->an->b[i];
        for (size_t k = 0; k < b->ns; k++) {
            const sres_t *s = &b->s[k];
            const uxinfo_t *u = s->rec ? rec_ux(s->rec) : NULL;
            if (!u || strcmp(u->optimizer, "lion")) continue;
            lcrow_t *r = &L->r[L->n++];
            r->b = b, r->s = s, r->ux = u;
            r->rate = rate_of(c->s, b->name);
            stats_summarize(u->exchange_s, u->nsteps, &r->exch);
            r->exposed = med(u->exposed_s, u->nsteps);
            r->collective = med(u->collective_s, u->nsteps);
            r->wire = med(u->wire_bytes, u->nsteps);
            r->sync = mean(u->sync_bytes, u->nsteps);
            r->disagree = med(u->disagreement, u->nsteps);
            r->loss = training_final_loss(s->rec);
            r->speedup = r->sp_lo = r->sp_hi = NAN;
        }
    }
    /* the speedup over exchange grad at the same rate and scale: the ratio of
     * the median step times, bounded by the two 95% CIs (joint coverage of
     * both intervals at least 90%) */
    for (size_t i = 0; i < L->n; i++) {
        lcrow_t *r = &L->r[i];
        for (size_t j = 0; j < L->n; j++) {
            const lcrow_t *g = &L->r[j];
            if (strcmp(g->ux->exchange, "grad") || g->s->scale != r->s->scale ||
                !same(g->rate, r->rate) || !same_work(g->s->rec, r->s->rec))
                continue;
            r->speedup = g->s->st.median / r->s->st.median;
            r->sp_lo = g->s->st.ci_lo / r->s->st.ci_hi;
            r->sp_hi = g->s->st.ci_hi / r->s->st.ci_lo;
            break;
        }
    }
    return L;
}

static void add(arena_t *a, mtable_t *t, const lcrow_t *r, const char *name, double v, double lo,
                double hi, double n)
{
    kv_t *p = ar_alloc(a, 3 * sizeof *p);
    p[0] = (kv_t){"exchange", r->ux->exchange};
    p[1] = (kv_t){"rate", r->rate ? r->rate : "none"};
    blocks_put(a, t, r->b, r->s->scale, name, v, lo, hi, n, p, 2);
}

void update_exchange_rows(const blkctx_t *c, const void *self, size_t entry, mtable_t *t)
{
    (void)entry;
    const lioncub_t *L = self;
    for (size_t i = 0; i < L->n; i++) {
        const lcrow_t *r = &L->r[i];
        add(c->a, t, r, "exchange_s", r->exch.median, r->exch.ci_lo, r->exch.ci_hi,
            (double)r->exch.n);
        add(c->a, t, r, "wire_bytes_per_step", r->wire, NAN, NAN, (double)r->ux->nsteps);
        if (strcmp(r->ux->exchange, "grad"))
            add(c->a, t, r, "speedup_over_grad", r->speedup, r->sp_lo, r->sp_hi, NAN);
        add(c->a, t, r, "final_loss", r->loss, NAN, NAN, NAN);
    }
}
