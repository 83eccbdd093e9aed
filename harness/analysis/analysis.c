/* analysis: launch outcomes grouped by benchmark and scale, handed to the
 * training part (analysis_train.c) and the collective part (analysis_coll.c). */
#define _GNU_SOURCE
#include "harness/analysis/analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/analysis/analysis_parts.h"
#include "harness/blocks/network/blk_network.h"

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

static void run(arena_t *a, const outcome_t *o, size_t n, double device_peak,
                const char *peak_source, int per_core, const bf16_peak_t *bf16, analysis_t *an)
{
    memset(an, 0, sizeof *an);
    an->bf16 = bf16 ? *bf16
                    : (bf16_peak_t){NAN, NULL, "not used: the device peak applies to every entry"};
    if (!(an->bf16.per_core > 0) || !per_core) an->bf16.per_core = NAN;
    an->peak_per_core = per_core;
    an->device_peak = device_peak > 0 ? device_peak : NAN;
    an->peak_source = peak_source ? peak_source : "unknown";
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) {
        bres_t *b = bench_of(a, an, &cap, &o[i]);
        b->nlaunch++;
        if (o[i].status != LS_OK) { /* a launch stopped or never run did not fail */
            b->nfailed += o[i].status != LS_INTERRUPTED && o[i].status != LS_NOTRUN;
            continue;
        }
        const record_t *r = o[i].rec;
        /* the machine as the largest launch saw it (every host of a multi-node run) */
        if (!an->first_ok || r->ranks > an->first_ok->ranks) an->first_ok = r;
        if (!b->nparams) {
            b->kind = r->benchmark;
            add_params(a, b, r);
            b->fwd_conv_per_sample = rec_network(r)->fwd_conv_per_sample;
            b->conv_per_sample = rec_network(r)->conv_per_sample;
            b->exec_per_sample = rec_network(r)->exec_per_sample;
            b->conv_weights = rec_network(r)->conv_weights;
            b->parameters = rec_network(r)->parameters;
            b->precision = r->precision;
            b->cpu_bf16 = r->gpus == 0 && r->precision && !strcmp(r->precision, "bf16");
            an->any_cpu_bf16 |= b->cpu_bf16;
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
            analysis_train_scale(a, &b->s[j], o, n, b->name, an->device_peak,
                                 an->bf16.per_core, an->peak_per_core);
        }
        analysis_train_efficiency(b);
        analysis_coll_rows(a, b, o, n);
    }
}

static int sim_ok(const outcome_t *x, int sim)
{
    return x->status == LS_OK && x->rec && record_simulated(x->rec) == sim;
}

size_t analysis_split_simulated(arena_t *a, outcome_t *o, size_t n)
{
    size_t moved = 0;
    for (size_t i = 0; i < n; i++) {
        if (!sim_ok(&o[i], 1)) continue;
        int measured = 0;
        for (size_t j = 0; j < n && !measured; j++)
            measured = sim_ok(&o[j], 0) && !strcmp(o[j].bench, o[i].bench);
        if (!measured) continue;
        const char *name = ar_printf(a, "%s (simulated)", o[i].bench), *was = o[i].bench;
        for (size_t j = i; j < n; j++) /* every simulated launch of it, once */
            if (sim_ok(&o[j], 1) && !strcmp(o[j].bench, was)) o[j].bench = name, moved++;
    }
    return moved;
}

void analysis_run(arena_t *a, const outcome_t *o, size_t n, double device_peak,
                  const char *peak_source, analysis_t *an)
{
    run(a, o, n, device_peak, peak_source, 0, NULL, an);
}

void analysis_run_core_peak(arena_t *a, const outcome_t *o, size_t n, double core_peak,
                            const char *peak_source, const bf16_peak_t *bf16, analysis_t *an)
{
    run(a, o, n, core_peak, peak_source, 1, bf16, an);
}
