/* results_pool (results_pool.h). */
#define _GNU_SOURCE
#include "harness/report/results_pool.h"

#include <math.h>
#include <string.h>

#include "benchmarks/common/stats.h"
#include "harness/blocks/energy/blk_energy.h"
#include "harness/blocks/recread.h"
#include "harness/blocks/training/blk_training.h"
#include "harness/report/results_diff.h"

const char *plevel_name(plevel_t l)
{
    return l == PL_STEPS ? "steps" : l == PL_LAUNCHES ? "launches" : "runs";
}

int results_workload_differs(arena_t *a, const results_t *x, const results_t *y, const char *bench)
{
    rdiffs_t d;
    results_diff(a, x, y, &d);
    return results_config_differs(&d, bench);
}

static const char *scalar(const ytnode *map, const char *key)
{
    const ytnode *n = map ? yt_get(map, key) : NULL;
    return n && n->kind == YT_SCALAR ? n->str : NULL;
}

/* the launches of (bench, scale) that ended ok, in results.yaml's order */
static int ok_launch(const ytnode *l, const char *bench, int scale)
{
    const char *b = scalar(l, "benchmark"), *s = scalar(l, "scale"), *st = scalar(l, "status");
    long long sc;
    if (!b || (bench && strcmp(b, bench)) || !st || strcmp(st, "ok")) return 0;
    return scale == 0 || (s && !opt_parse_int(s, &sc) && sc == scale);
}

static const ytnode *launch_list(const results_t *r)
{
    const ytnode *ls = r->root ? yt_get(r->root, "launches") : NULL;
    return ls && ls->kind == YT_SEQ ? ls : NULL;
}

void results_interference(const results_t *r, const char *bench, int scale, pinter_t *o)
{
    memset(o, 0, sizeof *o);
    const ytnode *ls = launch_list(r);
    for (size_t i = 0; ls && i < ls->n; i++) {
        const ytnode *l = ls->items[i];
        if (l->kind != YT_MAP || !ok_launch(l, bench, scale)) continue;
        const ytnode *f = yt_get(l, "interference");
        const char *v = f && f->kind == YT_MAP ? scalar(f, "verdict") : NULL;
        o->launches++;
        o->busy += v && !strcmp(v, "busy");
        o->quiet += v && !strcmp(v, "quiet");
    }
}

/* metrics whose samples are the timed steps: the step time, and the rates
 * that are samples per step over it */
static int step_metric(const char *m)
{
    return !strcmp(m, "step_time_s") || !strcmp(m, "throughput_samples_per_s") ||
           !strcmp(m, "throughput_per_device");
}

/* a side under construction: observations and group ends */
typedef struct {
    double *x;
    size_t *gend;
    size_t n, ng, capx, capg;
} sbuf_t;

static void put(arena_t *a, sbuf_t *s, double v)
{
    AR_GROW(a, s->x, s->n, s->capx);
    s->x[s->n++] = v;
}

static void close_group(arena_t *a, sbuf_t *s)
{
    if (s->ng && s->gend[s->ng - 1] == s->n) return; /* nothing since the last */
    AR_GROW(a, s->gend, s->ng, s->capg);
    s->gend[s->ng++] = s->n;
}

/* the folder's own record of launch l (a copied folder's `record:` paths
 * name the original); NULL: none */
static const char *record_path(arena_t *a, const results_t *r, const ytnode *l)
{
    const char *rec = scalar(l, "record"), *id = scalar(l, "id");
    const char *base = rec ? path_basename(rec) : id ? ar_printf(a, "%s.yaml", id) : NULL;
    if (!base || strchr(base, '/') || !strcmp(base, "..")) return NULL;
    const char *path = path_join(a, path_join(a, r->dir, "records"), base);
    return path_is_file(path) ? path : NULL;
}

/* an energy row's value in a record's energy block (docs/energy.md); 0: not
 * an energy metric */
static int energy_value(const char *metric, const eninfo_t *e, double *v)
{
    static const char *const k[] = {"energy_j_per_sample", "energy_flops_per_w",
                                    "energy_conv_flops_per_w", "energy_avg_power_w",
                                    "energy_peak_power_w", NULL};
    for (int i = 0; k[i]; i++)
        if (!strcmp(metric, k[i])) {
            if (e) {
                const double x[] = {e->j_per_sample, e->flops_per_w, e->conv_flops_per_w,
                                    e->avg_w, e->peak_w};
                *v = x[i];
            }
            return 1;
        }
    return 0;
}

/* the energy rows' values per launch, from each ok launch's record (one
 * group each; the row's own launches: measured ones only, as der_energy
 * summarised them); 1 when not an energy row or a record is missing or
 * without a value (the caller falls back), -1 on a damaged record */
static int energy_samples(arena_t *a, const results_t *r, const metric_t *m, sbuf_t *out,
                          char *err, size_t errlen)
{
    if (!energy_value(m->metric, NULL, NULL) || m->scale <= 0) return 1;
    sbuf_t s = {0};
    const ytnode *ls = launch_list(r);
    for (size_t i = 0; ls && i < ls->n; i++) {
        const ytnode *l = ls->items[i];
        if (l->kind != YT_MAP || !ok_launch(l, m->bench, m->scale)) continue;
        const char *path = record_path(a, r, l);
        if (!path) return 1;
        record_t rc;
        if (record_load(a, path, &rc, err, errlen)) return -1;
        double v;
        const eninfo_t *e = rec_energy(&rc);
        if (!e || !isfinite(e->energy_j)) continue; /* n/a: not a launch of the row */
        energy_value(m->metric, e, &v);
        if (!(v > 0) || !isfinite(v)) return 1;
        put(a, &s, v);
        close_group(a, &s);
    }
    if (!s.n) return 1;
    *out = s;
    return 0;
}

/* results.yaml's pooled step count and median of (bench, scale) */
static int step_summary(const results_t *r, const metric_t *m, double *count, double *median)
{
    const ytnode *bs = r->root ? yt_get(r->root, "benchmarks") : NULL;
    for (size_t i = 0; bs && bs->kind == YT_SEQ && i < bs->n; i++) {
        const char *name = scalar(bs->items[i], "name");
        const ytnode *sc = yt_get(bs->items[i], "scales");
        if (!name || strcmp(name, m->bench) || !sc || sc->kind != YT_SEQ) continue;
        for (size_t j = 0; j < sc->n; j++) {
            const char *s = scalar(sc->items[j], "scale"), *c = scalar(sc->items[j], "samples");
            const char *md = scalar(yt_get(sc->items[j], "step_s"), "median");
            long long v;
            if (!s || opt_parse_int(s, &v) || v != m->scale) continue;
            return c && md && !opt_parse_double(c, count) && !opt_parse_double(md, median) ? 0 : -1;
        }
    }
    return -1;
}

/* the timed steps of every ok launch of the row, one group each, as the
 * metric's values; 1 when the records are absent or disagree with
 * results.yaml (the caller falls back), -1 on a damaged record */
static int step_samples(arena_t *a, const results_t *r, const metric_t *m, sbuf_t *out, char *err,
                        size_t errlen)
{
    double count, med;
    if (!step_metric(m->metric) || m->scale <= 0 || step_summary(r, m, &count, &med) || !(med > 0))
        return 1;
    sbuf_t s = {0};
    const ytnode *ls = launch_list(r);
    for (size_t i = 0; ls && i < ls->n; i++) {
        const ytnode *l = ls->items[i];
        if (l->kind != YT_MAP || !ok_launch(l, m->bench, m->scale)) continue;
        const char *path = record_path(a, r, l);
        if (!path) return 1;
        record_t rc;
        if (record_load(a, path, &rc, err, errlen)) return -1;
        const trinfo_t *tr = rec_training(&rc);
        if (!tr || !tr->nstep) return 1;
        for (size_t k = 0; k < tr->nstep; k++) {
            double t = tr->step_s[k];
            if (!(t > 0) || !isfinite(t)) return 1;
            put(a, &s, t);
        }
        close_group(a, &s);
    }
    /* the records results.yaml summarised: the same count and median */
    if (!s.n || (double)s.n != count || fabs(stats_median(s.x, s.n) - med) > 1e-9 * med) return 1;
    if (strcmp(m->metric, "step_time_s")) /* a rate: samples per step over each step */
        for (size_t k = 0; k < s.n; k++) s.x[k] = m->value * med / s.x[k];
    *out = s;
    return 0;
}

static void launch_samples(arena_t *a, const metric_t *m, sbuf_t *s)
{
    for (size_t i = 0; i < m->nlaunch; i++) {
        put(a, s, m->launch[i]);
        close_group(a, s);
    }
}

int results_pool(arena_t *a, const results_t *const *runs, const metric_t *const *rows, size_t nb,
                 const results_t *nw, const metric_t *m, rpool_t *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->nruns = nb;
    /* each run's steps, where its records have them; the level every run reaches */
    sbuf_t *st = ar_alloc(a, (nb + 1) * sizeof *st);
    memset(st, 0, (nb + 1) * sizeof *st);
    plevel_t level = PL_STEPS;
    /* energy rows: each launch's value from its record (the steps have none) */
    int energy = energy_value(m->metric, NULL, NULL), from_records = energy;
    for (size_t i = 0; i <= nb; i++) {
        const results_t *r = i < nb ? runs[i] : nw;
        const metric_t *x = i < nb ? rows[i] : m;
        int rc = energy ? (from_records ? energy_samples(a, r, x, &st[i], err, errlen) : 1)
                        : level == PL_STEPS ? step_samples(a, r, x, &st[i], err, errlen) : 1;
        if (rc < 0) return -1;
        if (rc > 0 && level == PL_STEPS) level = PL_LAUNCHES;
        if (rc > 0) from_records = 0;
    }
    if (energy) level = from_records ? PL_LAUNCHES : PL_RUNS;
    for (size_t i = 0; i <= nb && level == PL_LAUNCHES && !from_records; i++)
        if (!(i < nb ? rows[i] : m)->nlaunch) level = PL_RUNS; /* every run has its launches' values */
    /* a run whose steps were read before the level fell: its launches' values */
    sbuf_t sb = {0}, sn = {0};
    size_t *rend = ar_alloc(a, (nb + 1) * sizeof *rend), nrun = 0;
    for (size_t i = 0; i <= nb; i++) {
        const metric_t *x = i < nb ? rows[i] : m;
        sbuf_t *s = i < nb ? &sb : &sn;
        if (level == PL_STEPS || from_records) {
            for (size_t g = 0; g < st[i].ng; g++) {
                for (size_t k = g ? st[i].gend[g - 1] : 0; k < st[i].gend[g]; k++) put(a, s, st[i].x[k]);
                close_group(a, s);
            }
        } else if (level == PL_LAUNCHES) {
            launch_samples(a, x, s);
        } else {
            put(a, s, x->value);
            close_group(a, s);
        }
        if (i < nb && sb.ng && (!nrun || rend[nrun - 1] < sb.ng)) rend[nrun++] = sb.ng;
        pinter_t p;
        results_interference(i < nb ? runs[i] : nw, x->bench, x->scale, &p);
        pinter_t *t = i < nb ? &o->ib : &o->in;
        t->launches += p.launches, t->busy += p.busy, t->quiet += p.quiet;
    }
    o->level = level;
    /* the runs of the pool: a stage of their own where a run holds launches */
    if (level == PL_RUNS) nrun = 0;
    o->base = (vside_t){sb.x, sb.gend, sb.ng, nrun > 1 ? rend : NULL, nrun > 1 ? nrun : 0};
    o->nw = (vside_t){sn.x, sn.gend, sn.ng, NULL, 0};
    o->launches_base = o->ib.launches, o->launches_new = o->in.launches;
    return 0;
}

int results_threshold(arena_t *a, const results_t *r, double *pct, char *err, size_t errlen)
{
    *pct = NAN;
    const char *path = path_join(a, r->dir, "suite.yaml");
    if (!path_is_file(path)) return 0;
    ytdoc *d = yt_load_file(path, err, errlen);
    if (!d) return -1;
    ar_defer(a, (void (*)(void *))yt_free, d);
    const ytnode *k = d->root && d->root->kind == YT_MAP ? yt_get(d->root, "regression_threshold_pct") : NULL;
    if (!k || yt_is_null(k)) return 0;
    if (yt_double(d, k, pct, err, errlen)) return -1;
    if (!(*pct >= 0 && *pct <= 1000))
        return yt_err(err, errlen, d, k, "regression_threshold_pct must be a percentage in [0, 1000]");
    return 0;
}
