/* where (where.h). */
#define _GNU_SOURCE
#include "harness/checks/where.h"

#include <stdint.h>
#include <string.h>

#include "benchmarks/common/ytree.h"

/* 1 true, 0 false, -1 not a truth value */
static int truth(const char *s)
{
    static const char *const t[] = {"true", "yes", "on", "True", "Yes", "YES", "TRUE", "On", "ON", NULL};
    static const char *const f[] = {"false", "no", "off", "False", "No", "NO", "FALSE", "Off", "OFF", NULL};
    for (size_t i = 0; t[i]; i++)
        if (!strcmp(s, t[i])) return 1;
    for (size_t i = 0; f[i]; i++)
        if (!strcmp(s, f[i])) return 0;
    return -1;
}

int where_value_same(const char *rec, const char *want)
{
    if (!strcmp(rec, want)) return 1;
    double a, b;
    if (!opt_parse_double(rec, &a) && !opt_parse_double(want, &b)) return a == b;
    int tr = truth(rec), tw = truth(want);
    if (tr >= 0 && tw >= 0) return tr == tw;
    size_t sz;
    if (!opt_parse_double(rec, &a) && !opt_parse_size(want, &sz)) return a == (double)sz;
    return 0;
}

static int bench_is(const metric_t *m, const char *want)
{
    return !strcmp(m->bench, want) || !strcmp(m->kind ? m->kind : "", want) ||
           !strcmp(path_basename(m->program ? m->program : ""), want);
}

/* the slot of s in the index after a list of cap entries: a table of 2 * cap
 * positions + 1 (0: empty), open addressing; a scan of the list per row was
 * O(rows x distinct values) per check (issue 30 D8) */
static size_t *index_slot(const char **v, size_t cap, const char *s)
{
    size_t *tab = (size_t *)(void *)(v + cap), mask = 2 * cap - 1;
    size_t h = 1469598103934665603u ^ (size_t)(uintptr_t)&index_slot; /* per-process seed */
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) h = (h ^ *p) * 1099511628211u;
    for (size_t i = h & mask;; i = (i + 1) & mask)
        if (!tab[i] || !strcmp(v[tab[i] - 1], s)) return &tab[i];
}

static void push_unique(arena_t *a, const char ***v, size_t *n, size_t *cap, const char *s)
{
    if (*cap && *index_slot(*v, *cap, s)) return;
    if (*n + 2 > *cap) { /* room for s and the NULL that ends the list */
        size_t nc = *cap ? 2 * *cap : 8;
        const char **w = ar_alloc(a, nc * sizeof *w + 2 * nc * sizeof(size_t));
        if (*n) memcpy(w, *v, *n * sizeof *w);
        for (size_t i = 0; i < *n; i++) *index_slot(w, nc, w[i]) = i + 1;
        *v = w, *cap = nc;
    }
    *index_slot(*v, *cap, s) = *n + 1;
    (*v)[(*n)++] = s;
    (*v)[*n] = NULL;
}

static const char *listing(arena_t *a, const char *const *v, size_t n)
{
    sb_t b = {0};
    for (size_t i = 0; i < n && i < 8; i++) sb_printf(&b, "%s%s", i ? ", " : "", v[i]);
    if (n > 8) sb_printf(&b, ", ... (%zu in all)", n);
    char *r = ar_strdup(a, b.len ? sb_str(&b) : "none");
    sb_free(&b);
    return r;
}

static const char *hint(arena_t *a, const char *word, const char *const *v)
{
    const char *s = v ? yt_suggest(word, v) : NULL;
    return s ? ar_printf(a, "did you mean '%s'? ", s) : "";
}

const char *where_diagnose(arena_t *a, const char *metric, const kv_t *kv, size_t n,
                           const mtable_t *t, int values)
{
    const char **names = NULL, **keys = NULL;
    size_t nn = 0, cn = 0, nk = 0, ck = 0;
    for (size_t j = 0; j < t->n; j++) {
        const metric_t *m = &t->m[j];
        push_unique(a, &names, &nn, &cn, m->bench);
        if (strcmp(m->metric, metric)) continue;
        for (size_t p = 0; p < m->nparams; p++) push_unique(a, &keys, &nk, &ck, m->params[p].key);
    }
    for (size_t i = 0; i < n; i++) {
        const char *k = kv[i].key, *v = kv[i].value;
        if (!strcmp(k, "scale")) continue;
        if (!strcmp(k, "benchmark")) {
            if (!values) continue;
            int any = 0;
            for (size_t j = 0; j < t->n && !any; j++) any = bench_is(&t->m[j], v);
            if (!any)
                return ar_printf(a, "reference error: where benchmark=%s: no benchmark of this run "
                                    "has that name (%sthe run has: %s)", v, hint(a, v, names),
                                 listing(a, names, nn));
            continue;
        }
        if (!nk) continue; /* no row of this metric at all: the workload did not run */
        int known = 0;
        for (size_t p = 0; p < nk && !known; p++) known = !strcmp(keys[p], k);
        if (!known) {
            static const char *const extra[] = {"benchmark", "scale", NULL};
            const char *h = hint(a, k, keys);
            if (!*h) h = hint(a, k, extra);
            return ar_printf(a, "reference error: where key '%s' is not recorded for %s (%s"
                                "its keys: benchmark, scale, %s)", k, metric, h, listing(a, keys, nk));
        }
        if (!values) continue;
        const char **vals = NULL;
        size_t nv = 0, cv = 0;
        int hit = 0;
        for (size_t j = 0; j < t->n && !hit; j++) {
            const metric_t *m = &t->m[j];
            if (strcmp(m->metric, metric)) continue;
            const char *p = metric_param(m, k);
            if (!p) continue;
            hit = where_value_same(p, v);
            push_unique(a, &vals, &nv, &cv, p);
        }
        if (!hit)
            return ar_printf(a, "reference error: where %s=%s: no %s row records it (%s"
                                "recorded: %s)", k, v, metric, hint(a, v, vals), listing(a, vals, nv));
    }
    return NULL;
}
