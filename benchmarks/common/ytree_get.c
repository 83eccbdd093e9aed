/* ytree's accessors (ytree.h): lookups, typed scalars with FILE:LINE:COL
 * errors, and the near-miss suggestion for unknown keys; ytree.c builds the
 * tree.  Apart so that each file stays one concern (the reader is the part
 * the fuzz harnesses and the linear-parsing tests exercise). */
#define _GNU_SOURCE
#include "benchmarks/common/ytree.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ytnode *yt_get(const ytnode *map, const char *key)
{
    if (!map || map->kind != YT_MAP) return NULL;
    for (size_t i = 0; i < map->n; i++) {
        ytnode *k = yt_key(map, i);
        if (k->kind == YT_SCALAR && strcmp(k->str, key) == 0) return yt_val(map, i);
    }
    return NULL;
}

int yt_err(char *err, size_t errlen, const ytdoc *doc, const ytnode *node, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (node)
        snprintf(err, errlen, "%s:%d:%d: %s", doc->name, node->line, node->col, msg);
    else
        snprintf(err, errlen, "%s: %s", doc->name, msg);
    return -1;
}

int yt_is_null(const ytnode *n)
{
    if (!n) return 1;
    if (n->kind != YT_SCALAR || !n->plain) return 0;
    const char *s = n->str;
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
           !strcmp(s, "NULL");
}

int yt_expect(const ytdoc *d, const ytnode *n, yt_kind kind, const char *what, char *err,
              size_t errlen)
{
    if (n && n->kind == kind) return 0;
    return yt_err(err, errlen, d, n, "%s must be a %s, not a %s", what, yt_kind_name(kind),
                  n ? yt_kind_name(n->kind) : "missing value");
}

int yt_int(const ytdoc *d, const ytnode *n, long long *out, char *err, size_t errlen)
{
    if (!n || n->kind != YT_SCALAR || !n->plain)
        return yt_err(err, errlen, d, n, "expected an integer, found %s",
                      n ? (n->kind == YT_SCALAR ? "a quoted string" : yt_kind_name(n->kind))
                        : "nothing");
    char *end;
    errno = 0;
    long long v = strtoll(n->str, &end, 10);
    if (end == n->str || *end || errno)
        return yt_err(err, errlen, d, n, "expected an integer, found '%s'", n->str);
    *out = v;
    return 0;
}

int yt_double(const ytdoc *d, const ytnode *n, double *out, char *err, size_t errlen)
{
    if (!n || n->kind != YT_SCALAR || !n->plain)
        return yt_err(err, errlen, d, n, "expected a number, found %s",
                      n ? (n->kind == YT_SCALAR ? "a quoted string" : yt_kind_name(n->kind))
                        : "nothing");
    char *end;
    errno = 0;
    double v = strtod(n->str, &end);
    /* ERANGE on underflow only flags a subnormal (or zero) result, which is the
     * value the text means (records write subnormals too); overflow is inf */
    if (end == n->str || *end || (errno && errno != ERANGE) || !isfinite(v))
        return yt_err(err, errlen, d, n, "expected a finite number, found '%s'", n->str);
    *out = v;
    return 0;
}

int yt_bool(const ytdoc *d, const ytnode *n, int *out, char *err, size_t errlen)
{
    static const char *t[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
    static const char *f[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
    if (n && n->kind == YT_SCALAR && n->plain) {
        for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
            if (!strcmp(n->str, t[i])) return *out = 1, 0;
            if (!strcmp(n->str, f[i])) return *out = 0, 0;
        }
    }
    return yt_err(err, errlen, d, n, "expected true or false, found '%s'",
                  n && n->kind == YT_SCALAR ? n->str : "a collection");
}

int yt_string(const ytdoc *d, const ytnode *n, const char **out, char *err, size_t errlen)
{
    if (!n || n->kind != YT_SCALAR)
        return yt_err(err, errlen, d, n, "expected a string, found %s",
                      n ? yt_kind_name(n->kind) : "nothing");
    *out = n->str;
    return 0;
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64) return (size_t)-1;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = diag + cost;
            if (row[j] + 1 < best) best = row[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *yt_suggest(const char *word, const char *const *valid)
{
    const char *best = NULL;
    size_t bestd = (size_t)-1;
    for (size_t i = 0; valid[i]; i++) {
        size_t dd = edit_distance(word, valid[i]);
        if (dd < bestd) bestd = dd, best = valid[i];
    }
    size_t len = strlen(word);
    size_t limit = len <= 4 ? 1 : (len <= 8 ? 2 : 3);
    return bestd <= limit ? best : NULL;
}

int yt_check_keys(const ytdoc *d, const ytnode *map, const char *const *valid, char *err,
                  size_t errlen)
{
    for (size_t i = 0; i < map->n; i++) {
        ytnode *k = yt_key(map, i);
        if (k->kind != YT_SCALAR)
            return yt_err(err, errlen, d, k, "keys must be plain words, not a %s",
                          yt_kind_name(k->kind));
        int ok = 0;
        for (size_t v = 0; valid[v]; v++)
            if (!strcmp(k->str, valid[v])) ok = 1;
        if (!ok) {
            const char *s = yt_suggest(k->str, valid);
            if (s) return yt_err(err, errlen, d, k, "unknown key '%s' (did you mean '%s'?)", k->str, s);
            char list[512] = "";
            size_t used = 0;
            for (size_t v = 0; valid[v] && used + 40 < sizeof list; v++)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", v ? ", " : "", valid[v]);
            return yt_err(err, errlen, d, k, "unknown key '%s' (valid keys: %s)", k->str, list);
        }
        for (size_t j = 0; j < i; j++)
            if (!strcmp(yt_key(map, j)->str, k->str))
                return yt_err(err, errlen, d, k, "key '%s' given twice (first at line %d)", k->str,
                              yt_key(map, j)->line);
    }
    return 0;
}
