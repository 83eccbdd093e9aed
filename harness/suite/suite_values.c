#define _GNU_SOURCE
#include "harness/suite/suite_values.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/suite/suite_vars.h"

int suite_err_at(ctx_t *c, const ytnode *n, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return yt_err(c->err, c->errlen, c->d, n, "%s", msg);
}

int suite_check_vars(ctx_t *c, const ytnode *n, const char *what)
{
    size_t at;
    char why[256];
    if (n->kind != YT_SCALAR || yt_is_null(n) || !suite_vars_check(n->str, &at, why, sizeof why))
        return 0;
    /* the brace's own column where the value is one line; else the value's
     * start (a quoted value's escapes before the brace may shift it) */
    int col = n->col;
    if (!strchr(n->str, '\n')) col += (int)at + !n->plain;
    snprintf(c->err, c->errlen, "%s:%d:%d: %s: %s", c->d->name, n->line, col, what, why);
    return -1;
}

int suite_scalar_str(ctx_t *c, const ytnode *n, const char *what, const char **out)
{
    if (!n || n->kind != YT_SCALAR || yt_is_null(n))
        return suite_err_at(c, n, "%s must be a text value", what);
    *out = ar_strdup(c->a, n->str);
    return 0;
}

int suite_int_in(ctx_t *c, const ytnode *n, const char *what, long long lo, long long hi,
                  long long *out)
{
    if (yt_int(c->d, n, out, c->err, c->errlen)) return -1;
    if (*out < lo || *out > hi)
        return suite_err_at(c, n, "%s must be between %lld and %lld, not %lld", what, lo, hi, *out);
    return 0;
}

int suite_num_in(ctx_t *c, const ytnode *n, const char *what, double lo, double hi, double *out)
{
    if (yt_double(c->d, n, out, c->err, c->errlen)) return -1;
    if (!(*out >= lo && *out <= hi))
        return suite_err_at(c, n, "%s: %g is out of range (allowed %g to %g)", what, *out, lo, hi);
    return 0;
}

/* ---- scales ---------------------------------------------------------------- */
static int add_scale(ctx_t *c, const ytnode *n, int *v, size_t *nv, long long s)
{
    if (s < 1 || s > MAX_SCALE)
        return suite_err_at(c, n, "a scale must be between 1 and %d ranks, not %lld", MAX_SCALE, s);
    for (size_t i = 0; i < *nv; i++)
        if (v[i] == s) return suite_err_at(c, n, "scale %lld is listed twice", s);
    if (*nv == MAX_SCALES) return suite_err_at(c, n, "more than %d scales", MAX_SCALES);
    v[(*nv)++] = (int)s;
    return 0;
}

static int cmp_int(const void *x, const void *y) { return *(const int *)x - *(const int *)y; }

int suite_powers(ctx_t *c, const ytnode *n, long long lo, long long hi, long long f, int *v,
                  size_t *nv)
{
    if (lo > hi) return suite_err_at(c, n, "scales: min %lld is above max %lld", lo, hi);
    long long s = lo;
    for (; s <= hi; s *= f)
        if (add_scale(c, n, v, nv, s)) return -1;
    if (v[*nv - 1] != hi && add_scale(c, n, v, nv, hi)) return -1;
    return 0;
}

int suite_parse_scales(ctx_t *c, const ytnode *n, int **out, size_t *nout)
{
    int v[MAX_SCALES];
    size_t nv = 0;
    long long x;
    if (n->kind == YT_SCALAR && !strcmp(n->str, "auto")) {
        if (suite_powers(c, n, 1, machine_devices(c->m), 2, v, &nv)) return -1;
    } else if (n->kind == YT_SCALAR) {
        if (yt_int(c->d, n, &x, c->err, c->errlen) != 0)
            return suite_err_at(c, n, "scales must be a list of rank counts such as [1, 2, 4], "
                                "auto, or {min: 1, max: 16}, not '%s'", n->str);
        if (add_scale(c, n, v, &nv, x)) return -1;
    } else if (n->kind == YT_SEQ) {
        if (n->n == 0) return suite_err_at(c, n, "scales is an empty list");
        for (size_t i = 0; i < n->n; i++) {
            if (yt_int(c->d, n->items[i], &x, c->err, c->errlen)) return -1;
            if (add_scale(c, n->items[i], v, &nv, x)) return -1;
        }
    } else {
        static const char *const keys[] = {"min", "max", "factor", NULL};
        if (yt_check_keys(c->d, n, keys, c->err, c->errlen)) return -1;
        long long lo = 1, hi = 0, f = 2;
        const ytnode *k;
        if ((k = yt_get(n, "min")) && suite_int_in(c, k, "scales: min", 1, MAX_SCALE, &lo)) return -1;
        if ((k = yt_get(n, "factor")) && suite_int_in(c, k, "scales: factor", 2, 1024, &f)) return -1;
        k = yt_get(n, "max");
        if (!k) return suite_err_at(c, n, "scales: a {min, max} range needs max (a number or auto)");
        if (k->kind == YT_SCALAR && !strcmp(k->str, "auto")) hi = machine_devices(c->m);
        else if (suite_int_in(c, k, "scales: max", 1, MAX_SCALE, &hi)) return -1;
        if (suite_powers(c, n, lo, hi, f, v, &nv)) return -1;
    }
    qsort(v, nv, sizeof *v, cmp_int);
    *out = ar_alloc(c->a, nv * sizeof **out);
    memcpy(*out, v, nv * sizeof *v);
    *nout = nv;
    return 0;
}

/* ---- maps of key: value ------------------------------------------------------- */
/* A key given twice in one mapping never gets here: the YAML reader refuses
 * it (benchmarks/common/ytree.c, sorted, O(n log n)), so these readers need
 * no check of their own; comparing every key with every earlier one took
 * 35-55 s for 80,000 entries. */

static int env_cmp(const void *x, const void *y, void *env)
{
    const kv_t *e = env;
    return strcmp(e[*(const size_t *)x].key, e[*(const size_t *)y].key);
}

/* the slot of key among the first n entries of env, whose indices ix holds
 * sorted by key; n when absent */
static size_t env_find(const kv_t *env, const size_t *ix, size_t n, const char *key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(env[ix[mid]].key, key);
        if (!c) return ix[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return n;
}

int suite_parse_env(ctx_t *c, const ytnode *n, kv_t **out, size_t *nout, size_t *cap)
{
    if (yt_expect(c->d, n, YT_MAP, "env", c->err, c->errlen)) return -1;
    if (*cap < *nout + n->n + 1) { /* shared with the suite (*cap 0) or small: one copy */
        kv_t *e = ar_alloc(c->a, (*nout + n->n + 1) * sizeof *e);
        if (*nout) memcpy(e, *out, *nout * sizeof *e);
        *out = e;
        *cap = *nout + n->n + 1;
    }
    /* the entries before this mapping (the suite's, for a benchmark's env),
     * sorted once: each key of this mapping is looked up in O(log n) */
    size_t had = *nout, *ix = ar_alloc(c->a, (had + 1) * sizeof *ix);
    for (size_t i = 0; i < had; i++) ix[i] = i;
    if (had > 1) qsort_r(ix, had, sizeof *ix, env_cmp, *out);
    for (size_t i = 0; i < n->n; i++) {
        const ytnode *k = yt_key(n, i), *v = yt_val(n, i);
        if (k->kind != YT_SCALAR || !k->str[0] || isdigit((unsigned char)k->str[0]) ||
            strspn(k->str, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") !=
                strlen(k->str))
            return suite_err_at(c, k, "env: '%s' is not a valid variable name",
                          k->kind == YT_SCALAR ? k->str : "(collection)");
        if (v->kind != YT_SCALAR)
            return suite_err_at(c, v, "env: %s must be a text value (or null to unset it)", k->str);
        /* a benchmark's env replaces the suite's value of the same name */
        size_t slot = env_find(*out, ix, had, k->str);
        if (slot == had) slot = (*nout)++; /* room made above */
        (*out)[slot].key = ar_strdup(c->a, k->str);
        (*out)[slot].value = yt_is_null(v) ? NULL : ar_strdup(c->a, v->str);
    }
    return 0;
}

int suite_parse_config(ctx_t *c, const ytnode *n, bench_spec_t *b)
{
    if (yt_expect(c->d, n, YT_MAP, "config", c->err, c->errlen)) return -1;
    b->config = ar_alloc(c->a, (n->n + 1) * sizeof *b->config);
    for (size_t i = 0; i < n->n; i++) {
        const ytnode *k = yt_key(n, i), *v = yt_val(n, i);
        if (k->kind != YT_SCALAR || !k->str[0] || k->str[0] == '-' ||
            strspn(k->str, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") !=
                strlen(k->str))
            return suite_err_at(c, k, "config: '%s' is not an option name",
                          k->kind == YT_SCALAR ? k->str : "(collection)");
        kv_t *kv = &b->config[b->nconfig++];
        kv->key = ar_strdup(c->a, k->str);
        const char *what = ar_printf(c->a, "config: %s", k->str);
        if (v->kind == YT_SCALAR) {
            if (suite_check_vars(c, v, what)) return -1;
            kv->value = yt_is_null(v) ? NULL : ar_strdup(c->a, v->str);
        } else if (v->kind == YT_SEQ) {
            sb_t s = {0};
            for (size_t j = 0; j < v->n; j++) {
                if (v->items[j]->kind != YT_SCALAR) {
                    sb_free(&s);
                    return suite_err_at(c, v->items[j], "config: %s: list items must be values",
                                  k->str);
                }
                if (suite_check_vars(c, v->items[j], what)) {
                    sb_free(&s);
                    return -1;
                }
                sb_printf(&s, "%s%s", j ? "," : "", v->items[j]->str);
            }
            kv->value = ar_strdup(c->a, sb_str(&s));
            sb_free(&s);
        } else {
            return suite_err_at(c, v, "config: %s must be a value or a list, not a mapping", k->str);
        }
    }
    return 0;
}

int suite_parse_strlist(ctx_t *c, const ytnode *n, const char *what, const char ***out,
                         size_t *nout)
{
    if (yt_expect(c->d, n, YT_SEQ, what, c->err, c->errlen)) return -1;
    *out = ar_alloc(c->a, (n->n + 1) * sizeof **out);
    for (size_t i = 0; i < n->n; i++)
        if (suite_scalar_str(c, n->items[i], what, &(*out)[i])) return -1;
    *nout = n->n;
    return 0;
}

int suite_parse_scaling(ctx_t *c, const ytnode *n, scaling_kind *out)
{
    if (n->kind == YT_SCALAR && !strcmp(n->str, "weak")) *out = SCALING_WEAK;
    else if (n->kind == YT_SCALAR && !strcmp(n->str, "strong")) *out = SCALING_STRONG;
    else if (n->kind == YT_SCALAR && !strcmp(n->str, "spatial")) *out = SCALING_SPATIAL;
    else return suite_err_at(c, n, "scaling must be weak, strong or spatial");
    return 0;
}

