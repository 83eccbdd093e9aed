/* results.yaml read back: the metric table, the checks, the references. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/record/read.h"
#include "harness/report/results.h"

/* scales and launch counts are ints: larger values are refused */
#define RESULTS_MAX_COUNT 100000000

typedef struct {
    arena_t *a;
    const ytdoc *d;
    char *err;
    size_t errlen;
    rd_t rd;
} lctx_t;

/* keys a collective row sets itself */
static int row_key(const char *k)
{
    return !strcmp(k, "op") || !strcmp(k, "bytes") || !strcmp(k, "dtype") || !strcmp(k, "inplace") ||
           !strcmp(k, "redop");
}

/* scalar config of every benchmark, by name; -1 when a name is not text */
static int bench_config(lctx_t *c, const ytnode *root, const char *name, const ytnode **bench,
                        const ytnode **cfg)
{
    const ytnode *bs = yt_get(root, "benchmarks");
    *bench = *cfg = NULL;
    for (size_t i = 0; bs && bs->kind == YT_SEQ && i < bs->n; i++) {
        const char *n;
        if (rd_str(&c->rd, bs->items[i], "name", NULL, &n)) return -1;
        if (n && !strcmp(n, name)) {
            *bench = bs->items[i];
            *cfg = yt_get(bs->items[i], "config");
            return 0;
        }
    }
    return 0;
}

static void *ar_rd_alloc(void *ctx, size_t bytes)
{
    return ar_alloc(ctx, bytes);
}

/* metrics that are samples per step / the median step time: their per-launch
 * values follow the launch medians.  Not the sustained FLOP/s (total FLOPs /
 * total time: a mean, which one slow step moves and no launch median shows)
 * nor fraction_of_peak (the peak is measured once per run): their variation
 * is the runs' */
static int per_step_rate(const char *m)
{
    static const char *const k[] = {"throughput_samples_per_s", "throughput_per_device", NULL};
    for (size_t i = 0; k[i]; i++)
        if (!strcmp(k[i], m)) return 1;
    return 0;
}

/* the value per launch of a training metric, from the scale's launch medians
 * of the step time (results.yaml keeps them): the variation across launches
 * that regression and procurement verdicts rest on */
static int launch_values(lctx_t *c, const ytnode *bench, metric_t *m)
{
    int time = !strcmp(m->metric, "step_time_s");
    if (!bench || (!time && !per_step_rate(m->metric))) return 0;
    const ytnode *sc = yt_get(bench, "scales");
    for (size_t i = 0; sc && sc->kind == YT_SEQ && i < sc->n; i++) {
        long long s;
        if (rd_int_in(&c->rd, sc->items[i], "scale", 0, 0, RESULTS_MAX_COUNT, &s)) return -1;
        if (s != m->scale) continue;
        double *lm, med;
        size_t n;
        if (rd_nums(&c->rd, sc->items[i], "launch_medians_s", RD_ANY, &lm, &n) ||
            rd_num(&c->rd, yt_get(sc->items[i], "step_s"), "median", RD_ANY, &med))
            return -1;
        size_t k = 0;
        for (size_t j = 0; j < n; j++)
            if (isfinite(lm[j]) && lm[j] > 0) lm[k++] = time ? lm[j] : m->value * med / lm[j];
        if (k && (time || (isfinite(med) && med > 0))) m->launch = lm, m->nlaunch = k;
        return 0;
    }
    return 0;
}

static int load_metrics(lctx_t *c, const ytnode *root, results_t *r)
{
    const ytnode *ms = yt_get(root, "metrics");
    if (!ms || yt_is_null(ms)) return 0;
    if (yt_expect(c->d, ms, YT_SEQ, "metrics", c->err, c->errlen)) return -1;
    for (size_t i = 0; i < ms->n; i++) {
        const ytnode *x = ms->items[i];
        if (yt_expect(c->d, x, YT_MAP, "a metric row", c->err, c->errlen)) return -1;
        metric_t m = {0};
        if (rd_str(&c->rd, x, "benchmark", NULL, &m.bench) ||
            rd_str(&c->rd, x, "metric", NULL, &m.metric))
            return -1;
        if (!m.bench || !m.metric)
            return yt_err(c->err, c->errlen, c->d, x, "a metric row needs benchmark and metric");
        long long sc;
        if (rd_int_in(&c->rd, x, "scale", 0, 0, RESULTS_MAX_COUNT, &sc) ||
            rd_num(&c->rd, x, "value", RD_ANY, &m.value) ||
            rd_num(&c->rd, x, "ci_lo", RD_ANY, &m.lo) || rd_num(&c->rd, x, "ci_hi", RD_ANY, &m.hi) ||
            rd_num(&c->rd, x, "n", RD_ANY, &m.n) || rd_str(&c->rd, x, "unit", "", &m.unit))
            return -1;
        m.scale = (int)sc;
        const metric_info_t *mi = metric_info(m.metric);
        m.better = mi ? mi->better : 0;
        const ytnode *b, *cfg;
        if (bench_config(c, root, m.bench, &b, &cfg) ||
            rd_str(&c->rd, b, "program", NULL, &m.program) ||
            rd_str(&c->rd, b, "kind", NULL, &m.kind))
            return -1;
        const ytnode *row = yt_get(x, "row");
        size_t np = (cfg && cfg->kind == YT_MAP ? cfg->n : 0) +
                    (row && row->kind == YT_MAP ? row->n : 0);
        m.params = ar_alloc(c->a, (np + 1) * sizeof *m.params);
        for (size_t k = 0; row && row->kind == YT_MAP && k < row->n; k++)
            if (yt_key(row, k)->kind == YT_SCALAR && yt_val(row, k)->kind == YT_SCALAR)
                m.params[m.nparams++] = (kv_t){yt_key(row, k)->str, yt_val(row, k)->str};
        for (size_t k = 0; cfg && cfg->kind == YT_MAP && k < cfg->n; k++)
            if (yt_key(cfg, k)->kind == YT_SCALAR && yt_val(cfg, k)->kind == YT_SCALAR &&
                !metric_param(&m, yt_key(cfg, k)->str) && !row_key(yt_key(cfg, k)->str))
                m.params[m.nparams++] = (kv_t){yt_key(cfg, k)->str, yt_val(cfg, k)->str};
        if (launch_values(c, b, &m)) return -1;
        if (isfinite(m.value)) mtable_add(c->a, &r->t, &m);
    }
    return 0;
}

static int load_checks(lctx_t *c, const ytnode *root, results_t *r)
{
    const ytnode *cs = yt_get(root, "checks");
    if (!cs || yt_is_null(cs)) return 0;
    if (yt_expect(c->d, cs, YT_SEQ, "checks", c->err, c->errlen)) return -1;
    for (size_t i = 0; i < cs->n; i++) {
        const ytnode *x = cs->items[i];
        if (yt_expect(c->d, x, YT_MAP, "a check", c->err, c->errlen)) return -1;
        check_t k = {0};
        long long sc;
        const char *o;
        const rd_t *rd = &c->rd;
        if (rd_str(rd, x, "reference", NULL, &k.reference) || rd_str(rd, x, "kind", "?", &k.kind) ||
            rd_str(rd, x, "metric", NULL, &k.metric) || rd_str(rd, x, "where", "", &k.where) ||
            rd_str(rd, x, "benchmark", NULL, &k.bench) || rd_str(rd, x, "unit", NULL, &k.unit) ||
            rd_str(rd, x, "source", NULL, &k.source) || rd_str(rd, x, "detail", NULL, &k.detail) ||
            rd_str(rd, x, "outcome", NULL, &o))
            return -1;
        if (rd_int_in(rd, x, "scale", 0, 0, RESULTS_MAX_COUNT, &sc) ||
            rd_num(rd, x, "measured", RD_ANY, &k.measured) ||
            rd_num(rd, x, "expected", RD_ANY, &k.expected) ||
            rd_num(rd, x, "lower_bound", RD_ANY, &k.lo) ||
            rd_num(rd, x, "upper_bound", RD_ANY, &k.hi))
            return -1;
        k.scale = (int)sc;
        k.outcome = o && !strcmp(o, "PASS")    ? CK_PASS
                    : o && !strcmp(o, "FAIL")  ? CK_FAIL
                    : o && !strcmp(o, "ERROR") ? CK_ERROR : CK_NA;
        if (rd_str(rd, x, "reference_file", NULL, &k.reference_file) ||
            rd_str(rd, x, "row_keys", NULL, &k.row))
            return -1;
        if (!k.reference || !k.metric)
            return yt_err(c->err, c->errlen, c->d, x, "a check needs reference and metric");
        AR_GROW(c->a, r->checks.c, r->checks.n, r->checks.cap);
        r->checks.c[r->checks.n++] = k;
    }
    return 0;
}

int results_load(arena_t *a, const char *run, results_t *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    const char *path = path_is_dir(run) ? path_join(a, run, "results.yaml") : run;
    if (path_is_dir(run) && !path_is_file(path)) {
        if (path_is_file(path_join(a, run, "suite.yaml")))
            snprintf(err, errlen, "%s: no results.yaml in this folder: the run did not finish "
                                  "(`exadl analyze %s` writes it from the records; `exadl run "
                                  "--resume %s` also runs what is missing)", run, run, run);
        else
            snprintf(err, errlen, "%s: no results.yaml in this folder (not a run folder)", run);
        return -1;
    }
    /* the other files of a run folder (report.md, results.csv ...): say what to give */
    const char *dot = strrchr(path_basename(path), '.');
    static const char *const other[] = {".md", ".csv", ".json", ".png", ".svg", ".log", NULL};
    int wrong = 0;
    for (size_t i = 0; dot && other[i]; i++) wrong |= !strcmp(dot, other[i]);
    if (wrong) {
        snprintf(err, errlen, "%s: not a run: give the run folder or its results.yaml", run);
        return -1;
    }
    ytdoc *d = yt_load_file(path, err, errlen);
    if (!d) return -1;
    ar_defer(a, (void (*)(void *))yt_free, d);
    lctx_t c = {a, d, err, errlen, {d, err, errlen, ar_rd_alloc, a}};
    const ytnode *root = d->root;
    if (!root || root->kind != YT_MAP || !yt_get(root, "exadl_results"))
        return yt_err(err, errlen, d, root, "not an ExaDL results file (no exadl_results: 1)");
    long long ver;
    if (yt_int(d, yt_get(root, "exadl_results"), &ver, err, errlen)) return -1;
    if (ver != RESULTS_FORMAT_VERSION)
        return yt_err(err, errlen, d, yt_get(root, "exadl_results"),
                      "results format %lld; this exadl reads %d", ver, RESULTS_FORMAT_VERSION);
    r->path = ar_strdup(a, path);
    r->dir = path_dirname(a, path_abs(a, path));
    const ytnode *ri = yt_get(root, "run");
    long long v;
    if (rd_str(&c.rd, ri, "name", path_basename(r->dir), &r->name) ||
        rd_str(&c.rd, ri, "suite", NULL, &r->suite) ||
        rd_str(&c.rd, ri, "started_utc", NULL, &r->started_utc) ||
        rd_str(&c.rd, ri, "host", NULL, &r->host) || rd_str(&c.rd, ri, "status", NULL, &r->status) ||
        rd_str(&c.rd, ri, "machine", NULL, &r->machine) ||
        rd_str(&c.rd, ri, "exadl_version", NULL, &r->version) ||
        rd_str(&c.rd, ri, "exadl_commit", NULL, &r->commit))
        return -1;
    if (!r->machine) r->machine = r->host ? r->host : "?";
    r->root = root;
    /* counts become ints: read as integers in range, never cast from a double */
    if (rd_int_in(&c.rd, ri, "launches", 0, 0, RESULTS_MAX_COUNT, &v)) return -1;
    r->launches = (int)v;
    if (rd_int_in(&c.rd, ri, "launches_failed", 0, 0, RESULTS_MAX_COUNT, &v)) return -1;
    r->launches_failed = (int)v;
    r->system = yt_get(root, "system");
    const ytnode *refs = yt_get(root, "references");
    if (refs && refs->kind == YT_SEQ) {
        r->references = ar_alloc(a, (refs->n + 1) * sizeof *r->references);
        for (size_t i = 0; i < refs->n; i++)
            if (refs->items[i]->kind == YT_SCALAR)
                r->references[r->nreferences++] = path_join(a, r->dir, refs->items[i]->str);
    }
    if (load_metrics(&c, root, r) || load_checks(&c, root, r)) return -1;
    return 0;
}
