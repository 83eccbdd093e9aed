#define _GNU_SOURCE
#include "harness/analysis/metrics.h"

#include <math.h>
#include <string.h>

const metric_info_t *metric_catalog(void) { return blocks_catalog(); }

const metric_info_t *metric_info(const char *name)
{
    for (const metric_info_t *m = metric_catalog(); m->name; m++)
        if (!strcmp(m->name, name)) return m;
    return NULL;
}

const char *const *metric_names(void)
{
    static const char *names[64];
    if (!names[0]) {
        size_t i = 0;
        for (const metric_info_t *m = metric_catalog(); m->name && i < 63; m++)
            names[i++] = m->name;
    }
    return names;
}

void mtable_add(arena_t *a, mtable_t *t, const metric_t *m)
{
    AR_GROW(a, t->m, t->n, t->cap);
    t->m[t->n++] = *m;
}

const char *metric_param(const metric_t *m, const char *key)
{
    for (size_t i = 0; i < m->nparams; i++)
        if (!strcmp(m->params[i].key, key)) return m->params[i].value;
    return NULL;
}

char *metric_label(arena_t *a, const metric_t *m)
{
    char *s = m->scale ? ar_printf(a, "%s n=%d", m->bench, m->scale) : ar_strdup(a, m->bench);
    const char *op = metric_param(m, "op"), *bytes = metric_param(m, "bytes");
    const char *ip = metric_param(m, "inplace");
    if (op) s = ar_printf(a, "%s %s", s, op);
    if (bytes) s = ar_printf(a, "%s %s B", s, bytes);
    if (ip && !strcmp(ip, "true")) s = ar_printf(a, "%s in-place", s);
    return s;
}

static void put(arena_t *a, mtable_t *t, const bres_t *b, int scale, const char *name,
                double v, double lo, double hi, double n, kv_t *params, size_t np)
{
    if (!isfinite(v)) return;
    const metric_info_t *mi = metric_info(name);
    metric_t m = {.bench = b->name, .program = b->program, .kind = b->kind, .scale = scale,
                  .metric = name, .value = v, .lo = lo, .hi = hi, .n = n,
                  .unit = mi ? mi->unit : "", .better = mi ? mi->better : 0,
                  .params = params, .nparams = np};
    mtable_add(a, t, &m);
}

/* keys a collective row sets itself (a config key of the same name is not the row's) */
static int row_key(const char *k)
{
    return !strcmp(k, "op") || !strcmp(k, "bytes") || !strcmp(k, "dtype") || !strcmp(k, "inplace");
}

static kv_t *coll_params(arena_t *a, const bres_t *b, const cres_t *c, size_t *np)
{
    kv_t *p = ar_alloc(a, (b->nparams + 5) * sizeof *p);
    size_t k = 0;
    p[k++] = (kv_t){"op", c->op};
    p[k++] = (kv_t){"bytes", ar_printf(a, "%.0f", c->bytes)};
    p[k++] = (kv_t){"dtype", c->dtype};
    p[k++] = (kv_t){"inplace", c->inplace ? "true" : "false"};
    for (size_t i = 0; i < b->nparams; i++)
        if (!row_key(b->params[i].key)) p[k++] = b->params[i];
    *np = k;
    return p;
}

void mtable_from_analysis(arena_t *a, const analysis_t *an, mtable_t *t)
{
    double nan = NAN;
    for (size_t bi = 0; bi < an->nb; bi++) {
        const bres_t *b = &an->b[bi];
        kv_t *p = b->params;
        size_t np = b->nparams;
        put(a, t, b, 0, "executed_flops_per_sample", b->exec_per_sample, nan, nan, nan, p, np);
        put(a, t, b, 0, "convention_flops_per_sample", b->conv_per_sample, nan, nan, nan, p, np);
        put(a, t, b, 0, "forward_conv_flops_per_sample", b->fwd_conv_per_sample, nan, nan, nan,
            p, np);
        put(a, t, b, 0, "conv_weights", b->conv_weights, nan, nan, nan, p, np);
        put(a, t, b, 0, "parameters", b->parameters, nan, nan, nan, p, np);
        for (size_t i = 0; i < b->ns; i++) {
            const sres_t *s = &b->s[i];
            int sc = s->scale;
            double n = (double)s->n, d = s->devices > 0 ? s->devices : sc;
            put(a, t, b, sc, "launches_ok", s->nok, nan, nan, s->nlaunch, p, np);
            if (!s->n) continue;
            put(a, t, b, sc, "step_time_s", s->st.median, s->st.ci_lo, s->st.ci_hi, n, p, np);
            put(a, t, b, sc, "throughput_samples_per_s", s->thr, s->thr_lo, s->thr_hi, n, p, np);
            put(a, t, b, sc, "throughput_per_device", s->thr / d, s->thr_lo / d, s->thr_hi / d,
                n, p, np);
            put(a, t, b, sc, "efficiency", s->eff, s->eff_lo, s->eff_hi, n, p, np);
            /* FLOP rates: the CI follows the step-time CI (sustained uses the mean) */
            double flo = s->st.median / s->st.ci_hi, fhi = s->st.median / s->st.ci_lo;
            put(a, t, b, sc, "sustained_flops", s->sustained, s->sustained * flo,
                s->sustained * fhi, n, p, np);
            put(a, t, b, sc, "peak_flops", s->peak, nan, nan, n, p, np);
            put(a, t, b, sc, "sustained_flops_per_device", s->sustained / d, s->sustained * flo / d,
                s->sustained * fhi / d, n, p, np);
            put(a, t, b, sc, "peak_flops_per_device", s->peak / d, nan, nan, n, p, np);
            put(a, t, b, sc, "convention_sustained_flops", s->conv_sustained,
                s->conv_sustained * flo, s->conv_sustained * fhi, n, p, np);
            put(a, t, b, sc, "convention_peak_flops", s->conv_peak, nan, nan, n, p, np);
            put(a, t, b, sc, "convention_sustained_flops_per_device", s->conv_sustained / d,
                s->conv_sustained * flo / d, s->conv_sustained * fhi / d, n, p, np);
            put(a, t, b, sc, "convention_peak_flops_per_device", s->conv_peak / d, nan, nan, n, p,
                np);
            put(a, t, b, sc, "fraction_of_peak", s->frac_peak, nan, nan, n, p, np);
        }
        for (size_t i = 0; i < b->nc; i++) {
            const cres_t *c = &b->c[i];
            size_t cnp;
            kv_t *cp = coll_params(a, b, c, &cnp);
            double n = (double)c->st.n;
            put(a, t, b, c->scale, "busbw_GBps", c->busbw, c->busbw_lo, c->busbw_hi, n, cp, cnp);
            double f = c->st.median > 0 ? c->bytes / 1e9 : nan;
            put(a, t, b, c->scale, "algbw_GBps", c->algbw, f / c->st.ci_hi, f / c->st.ci_lo, n,
                cp, cnp);
            put(a, t, b, c->scale, "latency_us", c->latency_us, c->lat_lo, c->lat_hi, n, cp, cnp);
            put(a, t, b, c->scale, "wrong", (double)c->wrong, nan, nan, n, cp, cnp);
        }
        /* the best busbw of each operation and scale (out-of-place rows) */
        for (size_t i = 0; i < b->nc; i++) {
            const cres_t *c = &b->c[i];
            int first = 1;
            for (size_t j = 0; j < i; j++)
                if (!strcmp(b->c[j].op, c->op) && b->c[j].scale == c->scale) first = 0;
            if (!first) continue;
            const cres_t *best = NULL;
            for (size_t j = i; j < b->nc; j++)
                if (!strcmp(b->c[j].op, c->op) && b->c[j].scale == c->scale &&
                    isfinite(b->c[j].busbw) && (!best || b->c[j].busbw > best->busbw))
                    best = &b->c[j];
            if (!best) continue;
            kv_t *cp = ar_alloc(a, (b->nparams + 1) * sizeof *cp);
            size_t k = 0;
            cp[k++] = (kv_t){"op", c->op};
            for (size_t j = 0; j < b->nparams; j++)
                if (!row_key(b->params[j].key)) cp[k++] = b->params[j];
            put(a, t, b, c->scale, "busbw_max_GBps", best->busbw, best->busbw_lo, best->busbw_hi,
                (double)best->st.n, cp, k);
        }
    }
}
