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

/* the rows of t a where key keeps (sel[j]: still selected); 0 when it keeps
 * none although some selected row records the key with another value (their
 * values listed into *had) or no row of t records the key at all */
static int keep(arena_t *a, const kv_t *w, const mtable_t *t, char *sel, const char **had)
{
    size_t kept = 0, recorded = 0, anywhere = 0;
    const char **vals = NULL;
    size_t nv = 0, cv = 0;
    for (size_t j = 0; j < t->n; j++) {
        const char *p = metric_param(&t->m[j], w->key);
        anywhere += p != NULL;
        if (!sel[j] || !p) continue;
        recorded++;
        if (where_value_same(p, w->value)) kept++;
        else push_unique(a, &vals, &nv, &cv, sanitize_name(a, p)); /* record text: a terminal's */
    }
    if (!anywhere) {
        *had = NULL;
        return 0;
    }
    if (!recorded) return 1; /* the rows that would record it are absent (failed launches) */
    if (!kept) {
        *had = listing(a, vals, nv);
        return 0;
    }
    for (size_t j = 0; j < t->n; j++) {
        const char *p = sel[j] ? metric_param(&t->m[j], w->key) : NULL;
        if (p && !where_value_same(p, w->value)) sel[j] = 0;
    }
    return 1;
}

const char *where_ran(arena_t *a, const kv_t *kv, size_t n, const mtable_t *t)
{
    char *sel = ar_alloc(a, t->n + 1);
    memset(sel, 1, t->n + 1);
    const char **names = NULL;
    size_t nn = 0, cn = 0;
    for (size_t i = 0; i < n; i++) { /* the benchmark first, then the scale */
        if (strcmp(kv[i].key, "benchmark")) continue;
        for (size_t j = 0; j < t->n; j++) {
            push_unique(a, &names, &nn, &cn, t->m[j].bench);
            sel[j] &= bench_is(&t->m[j], kv[i].value);
        }
    }
    long long want = -1;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(kv[i].key, "scale") && !opt_parse_int(kv[i].value, &want) && want >= 0) {
            const char **sc = NULL;
            size_t ns = 0, cs = 0, any = 0;
            for (size_t j = 0; j < t->n; j++) {
                if (!sel[j] || !t->m[j].scale) continue;
                push_unique(a, &sc, &ns, &cs, ar_printf(a, "%d", t->m[j].scale));
                any += t->m[j].scale == want;
            }
            if (!any)
                return ar_printf(a, "reference error: where scale=%lld matches nothing this run "
                                    "ran (its scales there: %s)", want, listing(a, sc, ns));
            for (size_t j = 0; j < t->n; j++) sel[j] &= !t->m[j].scale || t->m[j].scale == want;
        }
    size_t left = 0;
    for (size_t j = 0; j < t->n; j++) left += sel[j];
    if (!left)
        return ar_printf(a, "reference error: where matches no benchmark this run ran (%s)",
                         listing(a, names, nn));
    for (size_t i = 0; i < n; i++) {
        const char *had;
        if (!strcmp(kv[i].key, "benchmark") || !strcmp(kv[i].key, "scale")) continue;
        if (keep(a, &kv[i], t, sel, &had)) continue;
        if (!had)
            return ar_printf(a, "reference error: where key '%s' is recorded by no row of this "
                                "run", kv[i].key);
        return ar_printf(a, "reference error: where %s=%s matches nothing this run ran (it ran "
                            "%s=%s)", kv[i].key, kv[i].value, kv[i].key, had);
    }
    return NULL;
}

const char *where_nothing_measured(arena_t *a, const kv_t *kv, size_t n, const mtable_t *t)
{
    const char *bench = NULL;
    long long want = -1;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(kv[i].key, "benchmark")) bench = kv[i].value;
        if (!strcmp(kv[i].key, "scale")) opt_parse_int(kv[i].value, &want);
    }
    for (size_t j = 0; j < t->n; j++) {
        const metric_t *m = &t->m[j];
        if (strcmp(m->metric, "launches_ok") || m->value > 0 || (bench && !bench_is(m, bench)) ||
            (want >= 0 && m->scale != want))
            continue;
        return ar_printf(a, "nothing measured: no launch of %s at n=%d ended ok (0 of %.0f)",
                         sanitize_name(a, m->bench), m->scale, m->n);
    }
    return "no measurement of this run matches";
}
