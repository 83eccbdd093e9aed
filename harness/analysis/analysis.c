#define _GNU_SOURCE
#include "harness/analysis/analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double busbw_factor(const char *op, int n)
{
    double p = n > 0 ? n : 1;
    if (!strcmp(op, "allreduce")) return 2 * (p - 1) / p;
    if (!strcmp(op, "allgather") || !strcmp(op, "reduce_scatter") || !strcmp(op, "alltoall"))
        return (p - 1) / p;
    return 1; /* broadcast, reduce, pingpong */
}

static bres_t *bench_of(arena_t *a, analysis_t *an, size_t *cap, const outcome_t *o)
{
    for (size_t i = 0; i < an->nb; i++)
        if (!strcmp(an->b[i].name, o->bench)) return &an->b[i];
    AR_GROW(a, an->b, an->nb, *cap);
    bres_t *b = &an->b[an->nb++];
    memset(b, 0, sizeof *b);
    b->name = o->bench;
    b->program = o->program;
    b->scaling = o->scaling;
    b->kind = "unknown";
    double nan = NAN;
    b->fwd_conv_per_sample = b->conv_per_sample = b->exec_per_sample = nan;
    b->conv_weights = b->parameters = nan;
    return b;
}

static void add_params(arena_t *a, bres_t *b, const record_t *r)
{
    size_t cap = 0;
    const ytnode *c = r->config;
    size_t n = c && c->kind == YT_MAP ? c->n : 0;
    b->params = ar_alloc(a, (n + 3) * sizeof *b->params);
    cap = n + 3;
    (void)cap;
    if (r->backend) b->params[b->nparams++] = (kv_t){"backend", r->backend};
    if (r->precision) b->params[b->nparams++] = (kv_t){"precision", r->precision};
    for (size_t i = 0; i < n; i++) {
        const ytnode *k = yt_key(c, i), *v = yt_val(c, i);
        if (k->kind != YT_SCALAR || v->kind != YT_SCALAR) continue;
        int dup = 0;
        for (size_t j = 0; j < b->nparams; j++) dup |= !strcmp(b->params[j].key, k->str);
        if (!dup) b->params[b->nparams++] = (kv_t){k->str, v->str};
    }
}

static int cmp_kind(const void *x, const void *y)
{
    const kkind_t *p = x, *q = y;
    return (p->time_s < q->time_s) - (p->time_s > q->time_s);
}

/* stemdl-like records at one scale */
static void stemdl_scale(arena_t *a, sres_t *s, const outcome_t *o, size_t n, const char *name,
                         double peak, int per_core)
{
    size_t tot = 0;
    for (size_t i = 0; i < n; i++)
        if (o[i].status == LS_OK && !strcmp(o[i].bench, name) && o[i].scale == s->scale)
            tot += o[i].rec->nstep;
    s->samples = ar_alloc(a, (tot + 1) * sizeof *s->samples);
    s->launch_median = ar_alloc(a, (n + 1) * sizeof *s->launch_median);
    size_t kcap = 0;
    double ksteps = 0;
    for (size_t i = 0; i < n; i++) {
        const outcome_t *x = &o[i];
        if (strcmp(x->bench, name) || x->scale != s->scale) continue;
        s->nlaunch++;
        if (x->status != LS_OK) continue;
        const record_t *r = x->rec;
        s->nok++;
        if (!s->rec) {
            s->rec = r;
            s->samples_per_step = r->samples_per_step;
            s->exec_per_step = r->exec_per_step;
            s->conv_per_step = r->conv_per_step;
            s->gpus = (int)r->gpus;
            s->devices = r->gpus > 0 ? (int)r->gpus : (int)(r->ranks > 0 ? r->ranks : s->scale);
        }
        if (r->nstep) {
            memcpy(s->samples + s->n, r->step_s, r->nstep * sizeof *r->step_s);
            s->n += r->nstep;
            s->launch_median[s->nlm++] = stats_median(r->step_s, r->nstep);
        }
        double steps = r->kernels_steps > 0 ? r->kernels_steps : (double)r->nstep;
        if (r->nk && steps > 0) ksteps += steps;
        for (size_t k = 0; k < r->nk && steps > 0; k++) {
            const krow_t *kr = &r->k[k];
            size_t j = 0;
            while (j < s->nkinds && strcmp(s->kinds[j].kind, kr->kernel)) j++;
            if (j == s->nkinds) {
                AR_GROW(a, s->kinds, s->nkinds, kcap);
                s->kinds[s->nkinds++] = (kkind_t){kr->kernel, 0, 0, 0};
            }
            if (isfinite(kr->calls)) s->kinds[j].calls += kr->calls;
            if (isfinite(kr->flops)) s->kinds[j].flops += kr->flops;
            if (isfinite(kr->time_s)) s->kinds[j].time_s += kr->time_s;
        }
    }
    for (size_t j = 0; j < s->nkinds && ksteps > 0; j++) {
        s->kinds[j].calls /= ksteps;
        s->kinds[j].flops /= ksteps;
        s->kinds[j].time_s /= ksteps;
    }
    if (s->nkinds) qsort(s->kinds, s->nkinds, sizeof *s->kinds, cmp_kind);
    stats_summarize(s->samples, s->n, &s->st);
    double nan = NAN, sum = 0;
    for (size_t i = 0; i < s->n; i++) sum += s->samples[i];
    s->thr = s->thr_lo = s->thr_hi = s->eff = s->eff_lo = s->eff_hi = nan;
    s->sustained = s->peak = s->conv_sustained = s->conv_peak = s->frac_peak = nan;
    if (!s->n || !(s->st.median > 0)) return;
    if (s->samples_per_step > 0) {
        s->thr = s->samples_per_step / s->st.median;
        s->thr_lo = s->samples_per_step / s->st.ci_hi;
        s->thr_hi = s->samples_per_step / s->st.ci_lo;
    }
    if (s->exec_per_step > 0 && sum > 0) {
        s->sustained = s->exec_per_step * (double)s->n / sum;
        s->peak = s->exec_per_step / s->st.min;
    }
    if (s->conv_per_step > 0 && sum > 0) {
        s->conv_sustained = s->conv_per_step * (double)s->n / sum;
        s->conv_peak = s->conv_per_step / s->st.min;
    }
    if (per_core && s->gpus == 0 && s->rec && s->rec->threads_per_rank >= 1)
        peak *= s->rec->threads_per_rank; /* a CPU rank is as many cores as its threads */
    if (peak > 0 && s->devices > 0 && isfinite(s->sustained))
        s->frac_peak = s->sustained / s->devices / peak;
}

static void efficiency(bres_t *b)
{
    sres_t *base = NULL;
    for (size_t i = 0; i < b->ns; i++)
        if (isfinite(b->s[i].st.median) && (b->scaling == SCALING_STRONG || isfinite(b->s[i].thr))) {
            base = &b->s[i];
            break;
        }
    if (!base) return;
    for (size_t i = 0; i < b->ns; i++) {
        sres_t *s = &b->s[i];
        if (!isfinite(s->st.median)) continue;
        double k = (double)base->scale / s->scale;
        if (s == base) {
            s->eff = s->eff_lo = s->eff_hi = 1;
        } else if (b->scaling == SCALING_WEAK) {
            s->eff = s->thr * k / base->thr;
            s->eff_lo = s->thr_lo * k / base->thr_hi;
            s->eff_hi = s->thr_hi * k / base->thr_lo;
        } else {
            s->eff = base->st.median * k / s->st.median;
            s->eff_lo = base->st.ci_lo * k / s->st.ci_hi;
            s->eff_hi = base->st.ci_hi * k / s->st.ci_lo;
        }
    }
}

static int cmp_cres(const void *x, const void *y)
{
    const cres_t *p = x, *q = y;
    int c = strcmp(p->op, q->op);
    if (c) return c;
    if (p->scale != q->scale) return p->scale - q->scale;
    if (p->inplace != q->inplace) return p->inplace - q->inplace;
    return (p->bytes > q->bytes) - (p->bytes < q->bytes);
}

static void coll_rows(arena_t *a, bres_t *b, const outcome_t *o, size_t n)
{
    size_t cap = 0;
    /* first pass: the distinct rows */
    for (size_t i = 0; i < n; i++) {
        if (strcmp(o[i].bench, b->name) || o[i].status != LS_OK) continue;
        const record_t *r = o[i].rec;
        for (size_t k = 0; k < r->nc; k++) {
            const crow_t *x = &r->c[k];
            size_t j = 0;
            for (; j < b->nc; j++) {
                cres_t *c = &b->c[j];
                if (c->scale == o[i].scale && !strcmp(c->op, x->op) &&
                    !strcmp(c->dtype, x->dtype) && !strcmp(c->redop, x->redop) &&
                    c->inplace == x->inplace && c->bytes == x->bytes)
                    break;
            }
            if (j == b->nc) {
                AR_GROW(a, b->c, b->nc, cap);
                cres_t *c = &b->c[b->nc++];
                memset(c, 0, sizeof *c);
                c->scale = o[i].scale;
                c->op = x->op, c->dtype = x->dtype, c->redop = x->redop;
                c->inplace = x->inplace, c->bytes = x->bytes, c->count = x->count;
                c->factor = (x->algbw > 0 && isfinite(x->busbw)) ? x->busbw / x->algbw
                                                                 : busbw_factor(x->op, c->scale);
            }
            b->c[j].n += x->ntime ? x->ntime : (isfinite(x->median_s) ? 1 : 0);
            b->c[j].wrong += x->wrong;
        }
    }
    /* second pass: pool the samples of each row */
    for (size_t j = 0; j < b->nc; j++) {
        cres_t *c = &b->c[j];
        double *v = ar_alloc(a, (c->n + 1) * sizeof *v);
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            if (strcmp(o[i].bench, b->name) || o[i].status != LS_OK || o[i].scale != c->scale)
                continue;
            const record_t *r = o[i].rec;
            for (size_t k = 0; k < r->nc; k++) {
                const crow_t *x = &r->c[k];
                if (strcmp(c->op, x->op) || strcmp(c->dtype, x->dtype) ||
                    strcmp(c->redop, x->redop) || c->inplace != x->inplace || c->bytes != x->bytes)
                    continue;
                if (x->ntime) {
                    memcpy(v + m, x->time_s, x->ntime * sizeof *v);
                    m += x->ntime;
                } else if (isfinite(x->median_s)) {
                    v[m++] = x->median_s;
                }
            }
        }
        stats_summarize(v, m, &c->st);
        double t = c->st.median;
        c->algbw = t > 0 ? c->bytes / t / 1e9 : NAN;
        c->busbw = c->algbw * c->factor;
        c->busbw_lo = c->st.ci_hi > 0 ? c->bytes * c->factor / c->st.ci_hi / 1e9 : NAN;
        c->busbw_hi = c->st.ci_lo > 0 ? c->bytes * c->factor / c->st.ci_lo / 1e9 : NAN;
        c->latency_us = t * 1e6;
        c->lat_lo = c->st.ci_lo * 1e6;
        c->lat_hi = c->st.ci_hi * 1e6;
    }
    if (b->nc) qsort(b->c, b->nc, sizeof *b->c, cmp_cres);
}

static void run(arena_t *a, const outcome_t *o, size_t n, double device_peak,
                const char *peak_source, int per_core, analysis_t *an)
{
    memset(an, 0, sizeof *an);
    an->peak_per_core = per_core;
    an->device_peak = device_peak > 0 ? device_peak : NAN;
    an->peak_source = peak_source ? peak_source : "unknown";
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) {
        bres_t *b = bench_of(a, an, &cap, &o[i]);
        b->nlaunch++;
        if (o[i].status != LS_OK) {
            b->nfailed++;
            continue;
        }
        const record_t *r = o[i].rec;
        if (!an->first_ok) an->first_ok = r;
        if (!b->nparams) {
            b->kind = r->benchmark;
            add_params(a, b, r);
            b->fwd_conv_per_sample = r->fwd_conv_per_sample;
            b->conv_per_sample = r->conv_per_sample;
            b->exec_per_sample = r->exec_per_sample;
            b->conv_weights = r->conv_weights;
            b->parameters = r->parameters;
        }
    }
    for (size_t bi = 0; bi < an->nb; bi++) {
        bres_t *b = &an->b[bi];
        int sc[256];
        size_t nsc = 0;
        for (size_t i = 0; i < n; i++) {
            if (strcmp(o[i].bench, b->name)) continue;
            size_t j = 0;
            while (j < nsc && sc[j] != o[i].scale) j++;
            if (j == nsc && nsc < 256) sc[nsc++] = o[i].scale;
        }
        for (size_t x = 1; x < nsc; x++) /* ascending */
            for (size_t y = x; y > 0 && sc[y - 1] > sc[y]; y--) {
                int t = sc[y];
                sc[y] = sc[y - 1];
                sc[y - 1] = t;
            }
        b->s = ar_alloc(a, (nsc + 1) * sizeof *b->s);
        b->ns = nsc;
        for (size_t j = 0; j < nsc; j++) {
            b->s[j].scale = sc[j];
            b->s[j].devices = sc[j];
            stemdl_scale(a, &b->s[j], o, n, b->name, an->device_peak, an->peak_per_core);
        }
        efficiency(b);
        coll_rows(a, b, o, n);
    }
}

void analysis_run(arena_t *a, const outcome_t *o, size_t n, double device_peak,
                  const char *peak_source, analysis_t *an)
{
    run(a, o, n, device_peak, peak_source, 0, an);
}

void analysis_run_core_peak(arena_t *a, const outcome_t *o, size_t n, double core_peak,
                            const char *peak_source, analysis_t *an)
{
    run(a, o, n, core_peak, peak_source, 1, an);
}
