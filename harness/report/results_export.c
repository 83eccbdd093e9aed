/* results_export (results_export.h).  One typed schema for the three files
 * (docs/record.md "results.csv, results.json"): a metric row is benchmark,
 * scale (null for a row of a configuration, not per scale), metric, value,
 * ci_lo, ci_hi, n, unit and its row keys (checks/rowkeys.h: bytes an
 * integer, inplace a boolean, the others text); numbers as numbers, null
 * where there is none. */
#define _GNU_SOURCE
#include "harness/report/results_export.h"

#include <math.h>
#include <string.h>

#include "benchmarks/common/record/record.h"
#include "harness/checks/rowkeys.h"
#include "harness/report/runctx.h"
#include "harness/util/version.h"

const char *results_status(const runctx_t *c)
{
    int ok, nfail, intr, notrun, pass, fail, na;
    outcome_count(c->ri.o, c->ri.no, &ok, &nfail, &intr, &notrun);
    checks_count(&c->ck, &pass, &fail, &na);
    return c->ri.interrupted               ? "interrupted"
           : checks_tally(&c->ck).ref_errors ? "reference_error"
           : (nfail || fail)                ? "failed"
                                            : "ok";
}

/* the row keys of m: those its benchmark's config does not already say */
static size_t row_keys(const runctx_t *c, const metric_t *m, kv_t *out)
{
    for (size_t k = 0; k < c->an.nb; k++)
        if (!strcmp(c->an.b[k].name, m->bench))
            return rowkeys_of(m, c->an.b[k].params, c->an.b[k].nparams, out);
    return rowkeys_of(m, NULL, 0, out);
}

/* ---- CSV: strings quoted (doubled quotes), numbers and booleans bare, null empty */

static void csv_str(sb_t *b, const char *s)
{
    sb_puts(b, "\"");
    for (; s && *s; s++) sb_printf(b, "%s", *s == '"' ? "\"\"" : (char[]){*s, 0});
    sb_puts(b, "\"");
}

static void num(sb_t *b, double v, const char *null)
{
    char t[40];
    if (!isfinite(v)) {
        sb_puts(b, null);
        return;
    }
    rec_format_double(v, t, sizeof t); /* as results.yaml writes it */
    sb_puts(b, t);
}

/* a row key's value as its type; text through put (CSV or JSON quoting) */
static void typed(sb_t *b, const char *key, const char *v, void (*put)(sb_t *, const char *))
{
    long long i;
    int t, x;
    if (!v) return;
    t = rowkey_typed(rowkey_find(key), v, &i, &x);
    if (t == 1) sb_printf(b, "%lld", i);
    else if (t == 2) sb_puts(b, x ? "true" : "false");
    else put(b, v);
}

int results_write_csv(const runctx_t *c, const char *path, char *err, size_t errlen)
{
    sb_t b = {0};
    sb_puts(&b, "run,machine,exadl_commit,benchmark,scale,metric,value,ci_lo,ci_hi,n,unit");
    for (size_t k = 0; rowkeys[k].key; k++) sb_printf(&b, ",%s", rowkeys[k].key);
    sb_puts(&b, "\n");
    const char *machine = c->ri.machine ? c->ri.machine : c->ri.host;
    for (size_t i = 0; i < c->t.n; i++) {
        const metric_t *m = &c->t.m[i];
        csv_str(&b, c->ri.name), sb_puts(&b, ","), csv_str(&b, machine), sb_puts(&b, ",");
        csv_str(&b, exadl_commit()), sb_puts(&b, ","), csv_str(&b, m->bench), sb_puts(&b, ",");
        if (m->scale > 0) sb_printf(&b, "%d", m->scale);
        sb_puts(&b, ","), csv_str(&b, m->metric), sb_puts(&b, ",");
        num(&b, m->value, ""), sb_puts(&b, ","), num(&b, m->lo, ""), sb_puts(&b, ",");
        num(&b, m->hi, ""), sb_puts(&b, ","), num(&b, m->n, ""), sb_puts(&b, ",");
        csv_str(&b, m->unit);
        kv_t rk[ROWKEYS_MAX];
        size_t nrk = row_keys(c, m, rk);
        for (size_t k = 0; rowkeys[k].key; k++) {
            sb_puts(&b, ",");
            for (size_t j = 0; j < nrk; j++)
                if (!strcmp(rk[j].key, rowkeys[k].key)) typed(&b, rk[j].key, rk[j].value, csv_str);
        }
        sb_puts(&b, "\n");
    }
    int rc = fileio_write_atomic(path, sb_str(&b), b.len, err, errlen);
    sb_free(&b);
    return rc;
}

/* ---- JSON: the metric rows and checks as results.yaml has them ---------------- */

static void js_str(sb_t *b, const char *s)
{
    if (!s) {
        sb_puts(b, "null");
        return;
    }
    sb_puts(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') sb_printf(b, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f) sb_printf(b, "\\u%04x", *p);
        else sb_printf(b, "%c", *p);
    }
    sb_puts(b, "\"");
}

static void js_kv(sb_t *b, const char *k, const char *v, int first)
{
    sb_puts(b, first ? "\"" : ", \""), sb_puts(b, k), sb_puts(b, "\": "), js_str(b, v);
}

static void js_num(sb_t *b, const char *k, double v)
{
    sb_printf(b, ", \"%s\": ", k), num(b, v, "null");
}

static void js_metric(sb_t *b, const runctx_t *c, const metric_t *m)
{
    js_kv(b, "benchmark", m->bench, 1);
    if (m->scale > 0) sb_printf(b, ", \"scale\": %d", m->scale);
    else sb_puts(b, ", \"scale\": null");
    js_kv(b, "metric", m->metric, 0);
    js_num(b, "value", m->value), js_num(b, "ci_lo", m->lo), js_num(b, "ci_hi", m->hi);
    js_num(b, "n", m->n), js_kv(b, "unit", m->unit, 0);
    kv_t rk[ROWKEYS_MAX];
    size_t nrk = row_keys(c, m, rk);
    for (size_t k = 0; k < nrk; k++) {
        sb_printf(b, "%s\"%s\": ", k ? ", " : ", \"row\": {", rk[k].key);
        typed(b, rk[k].key, rk[k].value, js_str);
    }
    if (nrk) sb_puts(b, "}");
}

static void js_check(sb_t *b, const check_t *k)
{
    js_kv(b, "reference", k->reference, 1), js_kv(b, "reference_file", k->reference_file, 0);
    js_kv(b, "kind", k->kind, 0), js_kv(b, "metric", k->metric, 0);
    js_kv(b, "where", k->where, 0), js_kv(b, "benchmark", k->bench, 0);
    if (k->scale > 0) sb_printf(b, ", \"scale\": %d", k->scale);
    else sb_puts(b, ", \"scale\": null");
    if (k->row) js_kv(b, "row_keys", k->row, 0);
    js_num(b, "measured", k->measured), js_num(b, "expected", k->expected);
    js_num(b, "lower_bound", k->lo), js_num(b, "upper_bound", k->hi);
    js_kv(b, "unit", k->unit, 0), js_kv(b, "outcome", ck_name(k->outcome), 0);
    js_kv(b, "source", k->source, 0), js_kv(b, "detail", k->detail, 0);
}

int results_write_json(const runctx_t *c, const char *path, char *err, size_t errlen)
{
    sb_t b = {0};
    ck_tally_t t = checks_tally(&c->ck);
    sb_puts(&b, "{\"exadl_results\": 1, \"run\": {");
    js_kv(&b, "name", c->ri.name, 1);
    js_kv(&b, "machine", c->ri.machine ? c->ri.machine : c->ri.host, 0);
    js_kv(&b, "host", c->ri.host, 0), js_kv(&b, "suite", c->ri.suite, 0);
    js_kv(&b, "started_utc", c->ri.started_utc, 0);
    js_kv(&b, "finished_utc", c->ri.finished_utc, 0);
    js_kv(&b, "exadl_version", exadl_version(), 0), js_kv(&b, "exadl_commit", exadl_commit(), 0);
    js_kv(&b, "status", results_status(c), 0);
    sb_printf(&b, ", \"exit_status\": %d, \"checks_passed\": %d, \"checks_failed\": %d, "
                  "\"checks_not_applicable\": %d, \"describe_checks_passed\": %d, "
                  "\"describe_checks_failed\": %d, \"checks_reference_errors\": %d",
              c->ri.exit_status, t.pass, t.fail, t.na, t.described_pass, t.described_fail,
              t.ref_errors);
    sb_puts(&b, "},\n \"metrics\": [");
    for (size_t i = 0; i < c->t.n; i++) {
        sb_puts(&b, i ? ",\n  {" : "\n  {");
        js_metric(&b, c, &c->t.m[i]);
        sb_puts(&b, "}");
    }
    sb_puts(&b, "\n],\n \"checks\": [");
    for (size_t i = 0; i < c->ck.n; i++) {
        sb_puts(&b, i ? ",\n  {" : "\n  {");
        js_check(&b, &c->ck.c[i]);
        sb_puts(&b, "}");
    }
    sb_puts(&b, "\n]}\n");
    int rc = fileio_write_atomic(path, sb_str(&b), b.len, err, errlen);
    sb_free(&b);
    return rc;
}
