/* results.yaml read back: the metric table, the checks, the references. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/report/results.h"

typedef struct {
    arena_t *a;
    const ytdoc *d;
    char *err;
    size_t errlen;
} lctx_t;

static const char *str_at(const ytnode *m, const char *k)
{
    const ytnode *n = yt_get(m, k);
    return n && n->kind == YT_SCALAR && !yt_is_null(n) ? n->str : NULL;
}

static int num_at(lctx_t *c, const ytnode *m, const char *k, double *out)
{
    const ytnode *n = yt_get(m, k);
    *out = NAN;
    if (!n || yt_is_null(n)) return 0;
    if (n->kind == YT_SCALAR && n->plain && (!strcmp(n->str, ".nan") || !strcmp(n->str, ".inf")))
        return 0;
    return yt_double(c->d, n, out, c->err, c->errlen);
}

/* keys a collective row sets itself */
static int row_key(const char *k)
{
    return !strcmp(k, "op") || !strcmp(k, "bytes") || !strcmp(k, "dtype") || !strcmp(k, "inplace");
}

/* scalar config of every benchmark, by name */
static const ytnode *bench_config(const ytnode *root, const char *name, const ytnode **bench)
{
    const ytnode *bs = yt_get(root, "benchmarks");
    for (size_t i = 0; bs && bs->kind == YT_SEQ && i < bs->n; i++) {
        const char *n = str_at(bs->items[i], "name");
        if (n && !strcmp(n, name)) {
            *bench = bs->items[i];
            return yt_get(bs->items[i], "config");
        }
    }
    *bench = NULL;
    return NULL;
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
        m.bench = str_at(x, "benchmark");
        m.metric = str_at(x, "metric");
        if (!m.bench || !m.metric)
            return yt_err(c->err, c->errlen, c->d, x, "a metric row needs benchmark and metric");
        double sc;
        if (num_at(c, x, "scale", &sc) || num_at(c, x, "value", &m.value) ||
            num_at(c, x, "ci_lo", &m.lo) || num_at(c, x, "ci_hi", &m.hi) ||
            num_at(c, x, "n", &m.n))
            return -1;
        m.scale = isfinite(sc) ? (int)sc : 0;
        m.unit = str_at(x, "unit");
        if (!m.unit) m.unit = "";
        const metric_info_t *mi = metric_info(m.metric);
        m.better = mi ? mi->better : 0;
        const ytnode *b;
        const ytnode *cfg = bench_config(root, m.bench, &b);
        m.program = b ? str_at(b, "program") : NULL;
        m.kind = b ? str_at(b, "kind") : NULL;
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
        double sc;
        k.reference = str_at(x, "reference");
        k.kind = str_at(x, "kind");
        k.metric = str_at(x, "metric");
        k.where = str_at(x, "where");
        k.bench = str_at(x, "benchmark");
        k.unit = str_at(x, "unit");
        k.source = str_at(x, "source");
        k.detail = str_at(x, "detail");
        if (num_at(c, x, "scale", &sc) || num_at(c, x, "measured", &k.measured) ||
            num_at(c, x, "expected", &k.expected) || num_at(c, x, "lower_bound", &k.lo) ||
            num_at(c, x, "upper_bound", &k.hi))
            return -1;
        k.scale = isfinite(sc) ? (int)sc : 0;
        const char *o = str_at(x, "outcome");
        k.outcome = o && !strcmp(o, "PASS") ? CK_PASS : o && !strcmp(o, "FAIL") ? CK_FAIL : CK_NA;
        if (!k.reference || !k.metric)
            return yt_err(c->err, c->errlen, c->d, x, "a check needs reference and metric");
        if (!k.kind) k.kind = "?";
        if (!k.where) k.where = "";
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
        snprintf(err, errlen, "%s: no results.yaml in this folder (not a run, or the run "
                              "did not finish)", run);
        return -1;
    }
    ytdoc *d = yt_load_file(path, err, errlen);
    if (!d) return -1;
    ar_defer(a, (void (*)(void *))yt_free, d);
    lctx_t c = {a, d, err, errlen};
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
    r->name = str_at(ri, "name");
    if (!r->name) r->name = path_basename(r->dir);
    r->suite = str_at(ri, "suite");
    r->started_utc = str_at(ri, "started_utc");
    r->host = str_at(ri, "host");
    r->status = str_at(ri, "status");
    double v;
    if (num_at(&c, ri, "launches", &v)) return -1;
    r->launches = isfinite(v) ? (int)v : 0;
    if (num_at(&c, ri, "launches_failed", &v)) return -1;
    r->launches_failed = isfinite(v) ? (int)v : 0;
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
