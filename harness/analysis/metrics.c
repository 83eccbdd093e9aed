#define _GNU_SOURCE
#include "harness/analysis/metrics.h"

#include <math.h>
#include <string.h>

const metric_info_t metric_catalog[] = {
    /* STEMDL, per scale */
    {"step_time_s", "s", -1, 1, "median time of a timed training step (max over ranks), "
                                "timed steps of all repetitions pooled"},
    {"throughput_samples_per_s", "samples/s", 1, 1, "samples per step / median step time"},
    {"throughput_per_device", "samples/s", 1, 1, "throughput / devices (GPUs, or ranks on CPU)"},
    {"efficiency", "", 1, 1, "weak: X(N) N0 / (N X(N0)); strong: T(N0) N0 / (N T(N)); "
                             "N0 the smallest scale run"},
    {"sustained_flops", "FLOP/s", 1, 1, "executed FLOPs of all timed steps / their total time"},
    {"peak_flops", "FLOP/s", 1, 1, "executed FLOPs of one step / the fastest step"},
    {"sustained_flops_per_device", "FLOP/s", 1, 1, "sustained_flops / devices"},
    {"peak_flops_per_device", "FLOP/s", 1, 1, "peak_flops / devices"},
    {"convention_sustained_flops", "FLOP/s", 1, 1, "as sustained_flops, counting 3 x the "
                                                   "forward conv FLOPs (published convention)"},
    {"convention_peak_flops", "FLOP/s", 1, 1, "as peak_flops, 3 x forward conv convention"},
    {"convention_sustained_flops_per_device", "FLOP/s", 1, 1, "per device"},
    {"convention_peak_flops_per_device", "FLOP/s", 1, 1, "per device"},
    {"fraction_of_peak", "", 1, 1, "sustained_flops_per_device / the device's measured or "
                                   "given peak"},
    {"launches_ok", "", 1, 1, "launches at this scale that ended ok"},
    {"exposed_comm_s", "s", -1, 1, "gradient reduction not hidden behind backward: median per "
                                   "timed step (max over ranks)"},
    {"negotiation_s", "s", -1, 1, "engine time in orchestration cycles: median per timed step"},
    {"model_efficiency", "", 1, 1, "the scaling model's efficiency for a mode (param mode) and "
                                   "scale: suites with model:, exadl model (docs/model.md)"},
    {"model_speedup", "", 1, 1, "the model's coordinator step time / bit-vector step time at one "
                                "scale and grouping (param grouping): exadl model"},
    /* STEMDL with Lion's update exchange, per scale (params exchange, rate; docs/lioncub.md) */
    {"exchange_s", "s", -1, 1, "the gradient engine's time in the update exchange (or the "
                               "gradient allreduce): median per timed step (max over ranks)"},
    {"wire_bytes_per_step", "B", -1, 1, "bytes each rank sends per step in the exchange "
                                        "(bandwidth-optimal count): median"},
    {"speedup_over_grad", "", 1, 1, "median step time of exchange grad at the same rate and "
                                    "scale / this entry's"},
    {"final_loss", "", -1, 1, "loss after the last timed step (first record at the scale)"},
    /* training as K trainers, per scale (param trainers; docs/ensembles.md) */
    {"ensemble_aggregate_samples_per_s", "samples/s", 1, 1,
     "the sum of the trainers' rates (samples per step / median step time)"},
    {"ensemble_efficiency", "", 1, 1, "aggregate rate / (K x one trainer's rate alone at P ranks)"},
    {"ensemble_vs_one_trainer", "", 1, 1, "aggregate rate / one trainer's rate at K x P ranks"},
    {"tournament_exchange_s", "s", -1, 1, "LTFB round: leaders' swap + broadcast, median"},
    /* data distribution, per scale (param strategy; docs/ensembles.md) */
    {"datadist_file_GBps", "GB/s", 1, 1, "dataset file bytes / median time to deliver it"},
    {"datadist_first_batch_s", "s", -1, 1, "time until the slowest rank holds its first chunk"},
    /* many-task throughput (param launcher; docs/ensembles.md) */
    {"tasks_per_s", "tasks/s", 1, 1, "tasks done / wall time, C at a time through the launcher"},
    {"task_latency_p50_s", "s", -1, 1, "launch to exit of a successful attempt, median"},
    {"task_latency_p99_s", "s", -1, 1, "launch to exit of a successful attempt, 99th percentile"},
    /* STEMDL, per configuration */
    {"executed_flops_per_sample", "FLOP", 0, 0, "every kernel of one step / samples per step"},
    {"convention_flops_per_sample", "FLOP", 0, 0, "3 x forward conv FLOPs per sample"},
    {"forward_conv_flops_per_sample", "FLOP", 0, 0, "forward conv FLOPs per sample"},
    {"conv_weights", "weights", 0, 0, "conv weights (no biases)"},
    {"parameters", "parameters", 0, 0, "all trained parameters"},
    /* CosmoFlow, per configuration (its describe answer) */
    {"forward_dense_flops_per_sample", "FLOP", 0, 0, "forward FLOPs of the dense layers per sample"},
    {"dense_weights", "weights", 0, 0, "dense-layer weights (no biases)"},
    /* collectives, per scale and message size (params op, bytes, dtype, inplace) */
    {"busbw_GBps", "GB/s", 1, 1, "bus bandwidth, nccl-tests factors (1e9 bytes per GB)"},
    {"algbw_GBps", "GB/s", 1, 1, "bytes / median time"},
    {"latency_us", "us", -1, 1, "median time per call"},
    {"wrong", "", -1, 1, "wrong elements found by validation (must be 0)"},
    {"busbw_max_GBps", "GB/s", 1, 1, "the largest busbw of an operation over all sizes"},
    {NULL, NULL, 0, 0, NULL}};

const metric_info_t *metric_info(const char *name)
{
    for (const metric_info_t *m = metric_catalog; m->name; m++)
        if (!strcmp(m->name, name)) return m;
    return NULL;
}

const char *const *metric_names(void)
{
    static const char *names[64];
    if (!names[0]) {
        size_t i = 0;
        for (const metric_info_t *m = metric_catalog; m->name && i < 63; m++) names[i++] = m->name;
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
