#define _GNU_SOURCE
#include "benchmarks/common/record/read.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"

int rd_err(const rd_t *c, const ytnode *node, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return yt_err(c->err, c->errlen, c->doc, node, "%s", msg);
}

void *rd_alloc(const rd_t *c, size_t bytes)
{
    void *p = c->alloc ? c->alloc(c->alloc_ctx, bytes) : calloc(1, bytes ? bytes : 1);
    CHECK(p != NULL, "out of memory reading %s (%zu bytes)", c->doc ? c->doc->name : "a file",
          bytes);
    return p;
}

/* What a message says was found instead: 'text', the quoted string "text",
 * null, a sequence, nothing. */
static const char *found(const ytnode *n, char *buf, size_t len)
{
    if (!n) return "nothing";
    if (n->kind != YT_SCALAR) {
        snprintf(buf, len, "a %s", yt_kind_name(n->kind));
    } else if (!n->plain) {
        snprintf(buf, len, "the quoted string \"%.60s\"", n->str);
    } else if (yt_is_null(n)) {
        return "null";
    } else {
        snprintf(buf, len, "'%.60s'", n->str);
    }
    return buf;
}

/* " for KEY" in a message, or nothing */
static const char *for_key(const char *key, char *buf, size_t len)
{
    if (!key) return "";
    snprintf(buf, len, " for %.60s", key);
    return buf;
}

static const char *domain_want(rd_domain dom)
{
    return dom == RD_COUNT ? "a count (a finite number >= 0)"
           : dom == RD_FINITE ? "a finite number"
                              : "a number";
}

/* YAML 1.2's spelling of NaN and the infinities; 1 when s is one of them */
static int special(const char *s, double *v)
{
    static const char *const nans[] = {".nan", ".NaN", ".NAN"};
    static const char *const infs[] = {".inf", ".Inf", ".INF"};
    for (size_t i = 0; i < 3; i++)
        if (!strcmp(s, nans[i])) return *v = NAN, 1;
    int neg = *s == '-';
    const char *p = (*s == '-' || *s == '+') ? s + 1 : s;
    for (size_t i = 0; i < 3; i++)
        if (!strcmp(p, infs[i])) return *v = neg ? -INFINITY : INFINITY, 1;
    return 0;
}

static int num_value(const rd_t *c, const ytnode *n, const char *key, rd_domain dom, double *out)
{
    char b1[96], b2[80];
    double v;
    if (!n || n->kind != YT_SCALAR || !n->plain || yt_is_null(n))
        return rd_err(c, n, "expected %s%s, found %s", domain_want(dom), for_key(key, b2, sizeof b2),
                      found(n, b1, sizeof b1));
    if (!special(n->str, &v)) {
        char *end;
        errno = 0;
        v = strtod(n->str, &end);
        /* ERANGE on underflow flags a subnormal (or zero) result, which is the
         * value the text means; strtod's own "nan", "inf" and an overflow to
         * inf are not numbers a record writes */
        if (end == n->str || *end || (errno && errno != ERANGE) || !isfinite(v))
            return rd_err(c, n, "expected %s%s, found %s%s", domain_want(dom),
                          for_key(key, b2, sizeof b2), found(n, b1, sizeof b1),
                          isfinite(v) || end == n->str || *end ? ""
                                                              : " (NaN and infinities are "
                                                                "written .nan, .inf, -.inf)");
    }
    if ((dom != RD_ANY && !isfinite(v)) || (dom == RD_COUNT && v < 0))
        return rd_err(c, n, "expected %s%s, found %s", domain_want(dom), for_key(key, b2, sizeof b2),
                      found(n, b1, sizeof b1));
    *out = v;
    return 0;
}

static int int_value(const rd_t *c, const ytnode *n, const char *key, long long *out)
{
    char b1[96], b2[80];
    if (n && n->kind == YT_SCALAR && n->plain && !yt_is_null(n)) {
        char *end;
        errno = 0;
        long long v = strtoll(n->str, &end, 10);
        if (end != n->str && !*end && !errno) return *out = v, 0;
    }
    return rd_err(c, n, "expected an integer%s, found %s", for_key(key, b2, sizeof b2),
                  found(n, b1, sizeof b1));
}

static int str_value(const rd_t *c, const ytnode *n, const char *key, const char **out)
{
    char b1[96], b2[80];
    if (n && n->kind == YT_SCALAR) return *out = n->str, 0;
    return rd_err(c, n, "expected text%s, found %s", for_key(key, b2, sizeof b2),
                  found(n, b1, sizeof b1));
}

static int bool_value(const rd_t *c, const ytnode *n, const char *key, int *out)
{
    static const char *const t[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
    static const char *const f[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
    char b1[96], b2[80];
    if (n && n->kind == YT_SCALAR && n->plain) {
        for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
            if (!strcmp(n->str, t[i])) return *out = 1, 0;
            if (!strcmp(n->str, f[i])) return *out = 0, 0;
        }
    }
    return rd_err(c, n, "expected true or false%s, found %s", for_key(key, b2, sizeof b2),
                  found(n, b1, sizeof b1));
}

int rd_num_node(const rd_t *c, const ytnode *n, rd_domain dom, double *out)
{
    return num_value(c, n, NULL, dom, out);
}

int rd_int_node(const rd_t *c, const ytnode *n, long long *out) { return int_value(c, n, NULL, out); }
int rd_str_node(const rd_t *c, const ytnode *n, const char **out) { return str_value(c, n, NULL, out); }
int rd_bool_node(const rd_t *c, const ytnode *n, int *out) { return bool_value(c, n, NULL, out); }

/* the value at map[key], or NULL when absent or null */
static const ytnode *given(const ytnode *map, const char *key)
{
    const ytnode *n = yt_get(map, key);
    return n && !yt_is_null(n) ? n : NULL;
}

int rd_num(const rd_t *c, const ytnode *map, const char *key, rd_domain dom, double *out)
{
    *out = NAN;
    const ytnode *n = given(map, key);
    return n ? num_value(c, n, key, dom, out) : 0;
}

int rd_int(const rd_t *c, const ytnode *map, const char *key, long long dflt, long long *out)
{
    *out = dflt;
    const ytnode *n = given(map, key);
    return n ? int_value(c, n, key, out) : 0;
}

int rd_int_in(const rd_t *c, const ytnode *map, const char *key, long long dflt, long long lo,
              long long hi, long long *out)
{
    *out = dflt;
    const ytnode *n = given(map, key);
    if (!n) return 0;
    if (int_value(c, n, key, out)) return -1;
    if (*out < lo || *out > hi)
        return rd_err(c, n, "%s: %lld is out of range (%lld to %lld)", key, *out, lo, hi);
    return 0;
}

int rd_str(const rd_t *c, const ytnode *map, const char *key, const char *dflt, const char **out)
{
    *out = dflt;
    const ytnode *n = given(map, key);
    return n ? str_value(c, n, key, out) : 0;
}

int rd_bool(const rd_t *c, const ytnode *map, const char *key, int dflt, int *out)
{
    *out = dflt;
    const ytnode *n = given(map, key);
    return n ? bool_value(c, n, key, out) : 0;
}

static int block(const rd_t *c, const ytnode *map, const char *key, yt_kind kind,
                 const ytnode **out)
{
    *out = NULL;
    const ytnode *n = given(map, key);
    if (!n) return 0;
    if (n->kind != kind)
        return rd_err(c, n, "%s must be a %s, not a %s", key,
                      kind == YT_SEQ ? "list" : yt_kind_name(kind),
                      n->kind == YT_SEQ ? "list" : yt_kind_name(n->kind));
    *out = n;
    return 0;
}

int rd_map(const rd_t *c, const ytnode *map, const char *key, const ytnode **out)
{
    return block(c, map, key, YT_MAP, out);
}

int rd_list(const rd_t *c, const ytnode *map, const char *key, const ytnode **out)
{
    return block(c, map, key, YT_SEQ, out);
}

int rd_nums(const rd_t *c, const ytnode *map, const char *key, rd_domain dom, double **out,
            size_t *n)
{
    *out = NULL;
    *n = 0;
    const ytnode *s = given(map, key);
    if (!s) return 0;
    if (s->kind != YT_SEQ) return rd_err(c, s, "%s must be a list of numbers", key);
    double *v = rd_alloc(c, (s->n + 1) * sizeof *v);
    for (size_t i = 0; i < s->n; i++)
        if (num_value(c, s->items[i], key, dom, &v[i])) {
            if (!c->alloc) free(v);
            return -1;
        }
    *out = v;
    *n = s->n;
    return 0;
}

/* absent or null: "KEY is required" at the map */
static const ytnode *required(const rd_t *c, const ytnode *map, const char *key)
{
    const ytnode *n = given(map, key);
    if (!n) rd_err(c, map, "%s is required", key);
    return n;
}

int rd_num_req(const rd_t *c, const ytnode *map, const char *key, rd_domain dom, double *out)
{
    *out = NAN;
    const ytnode *n = required(c, map, key);
    return n ? num_value(c, n, key, dom, out) : -1;
}

int rd_int_req(const rd_t *c, const ytnode *map, const char *key, long long *out)
{
    const ytnode *n = required(c, map, key);
    return n ? int_value(c, n, key, out) : -1;
}

int rd_str_req(const rd_t *c, const ytnode *map, const char *key, const char **out)
{
    *out = NULL;
    const ytnode *n = required(c, map, key);
    return n ? str_value(c, n, key, out) : -1;
}
