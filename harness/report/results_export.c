/* results_export (results_export.h). */
#define _GNU_SOURCE
#include "harness/report/results_export.h"

#include <math.h>
#include <string.h>

#include "harness/report/runctx.h"
#include "harness/util/version.h"

static const char *const row_keys[] = {"op", "bytes", "dtype", "inplace"};

static void csv_str(sb_t *b, const char *s)
{
    sb_puts(b, "\"");
    for (; s && *s; s++) sb_printf(b, "%s", *s == '"' ? "\"\"" : (char[]){*s, 0});
    sb_puts(b, "\"");
}

static void csv_num(sb_t *b, double v)
{
    if (isfinite(v)) sb_printf(b, "%.17g", v);
}

int results_write_csv(const runctx_t *c, const char *path, char *err, size_t errlen)
{
    sb_t b = {0};
    sb_puts(&b, "run,machine,exadl_commit,benchmark,scale,metric,value,ci_lo,ci_hi,n,unit,op,bytes,"
                "dtype,inplace\n");
    const char *machine = c->ri.machine ? c->ri.machine : c->ri.host;
    for (size_t i = 0; i < c->t.n; i++) {
        const metric_t *m = &c->t.m[i];
        csv_str(&b, c->ri.name), sb_puts(&b, ","), csv_str(&b, machine), sb_puts(&b, ",");
        csv_str(&b, exadl_commit()), sb_puts(&b, ","), csv_str(&b, m->bench);
        sb_printf(&b, ",%d,", m->scale), csv_str(&b, m->metric), sb_puts(&b, ",");
        csv_num(&b, m->value), sb_puts(&b, ","), csv_num(&b, m->lo), sb_puts(&b, ",");
        csv_num(&b, m->hi), sb_puts(&b, ","), csv_num(&b, m->n), sb_puts(&b, ",");
        csv_str(&b, m->unit);
        for (int k = 0; k < 4; k++) {
            sb_puts(&b, ",");
            const char *p = metric_param(m, row_keys[k]);
            if (p) csv_str(&b, p);
        }
        sb_puts(&b, "\n");
    }
    int rc = fileio_write_atomic(path, sb_str(&b), b.len, err, errlen);
    sb_free(&b);
    return rc;
}

static void js_str(sb_t *b, const char *s)
{
    if (!s) {
        sb_puts(b, "null");
        return;
    }
    sb_puts(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') sb_printf(b, "\\%c", *p);
        else if (*p < 0x20) sb_printf(b, "\\u%04x", *p);
        else sb_printf(b, "%c", *p);
    }
    sb_puts(b, "\"");
}

static void js_num(sb_t *b, double v)
{
    if (isfinite(v)) sb_printf(b, "%.17g", v);
    else sb_puts(b, "null");
}

int results_write_json(const runctx_t *c, const char *path, char *err, size_t errlen)
{
    sb_t b = {0};
    sb_puts(&b, "{\"exadl_results\": 1, \"run\": {\"name\": ");
    js_str(&b, c->ri.name), sb_puts(&b, ", \"machine\": ");
    js_str(&b, c->ri.machine ? c->ri.machine : c->ri.host), sb_puts(&b, ", \"host\": ");
    js_str(&b, c->ri.host), sb_puts(&b, ", \"suite\": "), js_str(&b, c->ri.suite);
    sb_puts(&b, ", \"started_utc\": "), js_str(&b, c->ri.started_utc);
    sb_puts(&b, ", \"exadl_version\": "), js_str(&b, exadl_version());
    sb_puts(&b, ", \"exadl_commit\": "), js_str(&b, exadl_commit());
    sb_puts(&b, "},\n \"metrics\": [");
    for (size_t i = 0; i < c->t.n; i++) {
        const metric_t *m = &c->t.m[i];
        sb_puts(&b, i ? ",\n  {" : "\n  {");
        sb_puts(&b, "\"benchmark\": "), js_str(&b, m->bench);
        sb_printf(&b, ", \"scale\": %d, \"metric\": ", m->scale), js_str(&b, m->metric);
        sb_puts(&b, ", \"value\": "), js_num(&b, m->value);
        sb_puts(&b, ", \"ci_lo\": "), js_num(&b, m->lo), sb_puts(&b, ", \"ci_hi\": ");
        js_num(&b, m->hi), sb_puts(&b, ", \"n\": "), js_num(&b, m->n);
        sb_puts(&b, ", \"unit\": "), js_str(&b, m->unit);
        for (int k = 0; k < 4; k++) {
            const char *p = metric_param(m, row_keys[k]);
            if (p) sb_printf(&b, ", \"%s\": ", row_keys[k]), js_str(&b, p);
        }
        sb_puts(&b, "}");
    }
    sb_puts(&b, "\n]}\n");
    int rc = fileio_write_atomic(path, sb_str(&b), b.len, err, errlen);
    sb_free(&b);
    return rc;
}
