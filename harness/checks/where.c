/* where (where.h). */
#define _GNU_SOURCE
#include "harness/checks/where.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/ytree.h"
#include "harness/checks/rowindex.h"

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

/* What where_diagnose asks of a run, read once per reference (issue 30 D8:
 * reading the whole table again for every unmatched check was O(checks x
 * rows)): the benchmarks' names, and the distinct (metric, key, value)
 * triples sorted, so that a metric's keys and a key's values are ranges found
 * by binary search (worst case O(log n) whatever a vendor's file holds, as in
 * rowindex.c); whether a value matches is asked of the row index. */
typedef struct {
    const char *metric, *key, *value;
} wf_triple;

struct where_facts {
    const mtable_t *t;
    const rowindex_t *ix;
    const char **names; /* benchmark names in table order, each once */
    size_t nnames;
    const char **ids; /* every name a check's benchmark may give, sorted, each once */
    size_t nids;
    wf_triple *tr; /* sorted by metric, key, value; each once */
    size_t ntr;
    wf_triple *keys; /* the (metric, key) pairs of tr, each once, value NULL */
    size_t nkeys;
};

static int str_cmp(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static int triple_cmp(const void *x, const void *y)
{
    const wf_triple *a = x, *b = y;
    int c = strcmp(a->metric, b->metric);
    if (!c) c = strcmp(a->key, b->key);
    return c ? c : strcmp(a->value, b->value);
}

/* the triples from lo on whose metric (and key, when key is not NULL) are
 * these: [*lo, return) */
static size_t triple_range(const wf_triple *tr, size_t ntr, const char *metric, const char *key,
                           size_t *lo)
{
    size_t l = 0, h = ntr;
    while (l < h) {
        size_t mid = l + (h - l) / 2;
        int c = strcmp(tr[mid].metric, metric);
        if (!c && key) c = strcmp(tr[mid].key, key);
        if (c < 0) l = mid + 1;
        else h = mid;
    }
    *lo = l;
    h = ntr; /* the first entry past the range, by binary search too */
    while (l < h) {
        size_t mid = l + (h - l) / 2;
        int c = strcmp(tr[mid].metric, metric);
        if (!c && key) c = strcmp(tr[mid].key, key);
        if (c <= 0) l = mid + 1;
        else h = mid;
    }
    return l;
}

where_facts_t *where_facts_build(arena_t *a, const mtable_t *t, const rowindex_t *ix)
{
    where_facts_t *f = ar_alloc(a, sizeof *f);
    memset(f, 0, sizeof *f);
    f->t = t, f->ix = ix;
    size_t cn = 0, np = 0;
    for (size_t j = 0; j < t->n; j++) {
        push_unique(a, &f->names, &f->nnames, &cn, t->m[j].bench);
        np += t->m[j].nparams;
    }
    f->ids = ar_alloc(a, (3 * t->n + 1) * sizeof *f->ids);
    f->tr = ar_alloc(a, (np + 1) * sizeof *f->tr);
    for (size_t j = 0; j < t->n; j++) {
        const metric_t *m = &t->m[j];
        f->ids[f->nids++] = m->bench;
        f->ids[f->nids++] = m->kind ? m->kind : "";
        f->ids[f->nids++] = path_basename(m->program ? m->program : "");
        for (size_t p = 0; p < m->nparams; p++)
            f->tr[f->ntr++] = (wf_triple){m->metric, m->params[p].key, m->params[p].value};
    }
    qsort(f->ids, f->nids, sizeof *f->ids, str_cmp);
    qsort(f->tr, f->ntr, sizeof *f->tr, triple_cmp);
    size_t u = 0;
    for (size_t i = 0; i < f->nids; i++)
        if (!u || strcmp(f->ids[u - 1], f->ids[i])) f->ids[u++] = f->ids[i];
    f->nids = u, u = 0;
    for (size_t i = 0; i < f->ntr; i++)
        if (!u || triple_cmp(&f->tr[u - 1], &f->tr[i])) f->tr[u++] = f->tr[i];
    f->ntr = u;
    f->keys = ar_alloc(a, (u + 1) * sizeof *f->keys);
    for (size_t i = 0; i < f->ntr; i++)
        if (!f->nkeys || strcmp(f->keys[f->nkeys - 1].metric, f->tr[i].metric) ||
            strcmp(f->keys[f->nkeys - 1].key, f->tr[i].key))
            f->keys[f->nkeys++] = (wf_triple){f->tr[i].metric, f->tr[i].key, NULL};
    return f;
}

/* the keys or values of entries [lo, hi) of v (each once there), at most
 * `cap` of them, NULL-ended: a suggestion is looked for among the first 256
 * and a listing shows 8, with the count in all, so a check costs O(cap),
 * never O(rows) */
static const char **entries_list(arena_t *a, const wf_triple *v, size_t lo, size_t hi, int key,
                                 size_t cap, size_t *n)
{
    *n = hi - lo < cap ? hi - lo : cap;
    const char **r = ar_alloc(a, (*n + 1) * sizeof *r);
    for (size_t i = 0; i < *n; i++) r[i] = key ? v[lo + i].key : v[lo + i].value;
    r[*n] = NULL;
    return r;
}

/* listing() of n shown entries of `all` */
static const char *listing_of(arena_t *a, const char *const *v, size_t n, size_t all)
{
    if (all <= n) return listing(a, v, n);
    sb_t b = {0};
    for (size_t i = 0; i < n && i < 8; i++) sb_printf(&b, "%s%s", i ? ", " : "", v[i]);
    sb_printf(&b, ", ... (%zu in all)", all);
    char *r = ar_strdup(a, sb_str(&b));
    sb_free(&b);
    return r;
}

#define WHERE_SUGGEST_MAX 256

static int row_records(const metric_t *m, const kv_t *w)
{
    const char *p = metric_param(m, w->key);
    return p && where_value_same(p, w->value);
}

const char *where_diagnose_f(arena_t *a, const char *metric, const kv_t *kv, size_t n,
                             const where_facts_t *f, int values)
{
    size_t klo, khi = triple_range(f->keys, f->nkeys, metric, NULL, &klo), nk, allk = khi - klo;
    const char **keys = entries_list(a, f->keys, klo, khi, 1, WHERE_SUGGEST_MAX, &nk);
    for (size_t i = 0; i < n; i++) {
        const char *k = kv[i].key, *v = kv[i].value;
        if (!strcmp(k, "scale")) continue;
        if (!strcmp(k, "benchmark")) {
            if (!values || bsearch(&v, f->ids, f->nids, sizeof *f->ids, str_cmp)) continue;
            size_t shown = f->nnames < WHERE_SUGGEST_MAX ? f->nnames : WHERE_SUGGEST_MAX;
            const char **names = ar_alloc(a, (shown + 1) * sizeof *names);
            memcpy(names, f->names, shown * sizeof *names);
            names[shown] = NULL;
            return ar_printf(a, "reference error: where benchmark=%s: no benchmark of this run "
                                "has that name (%sthe run has: %s)", v, hint(a, v, names),
                             listing_of(a, names, shown, f->nnames));
        }
        if (!allk) continue; /* no row of this metric at all: the workload did not run */
        size_t vlo, vhi = triple_range(f->tr, f->ntr, metric, k, &vlo);
        if (vlo == vhi) {
            static const char *const extra[] = {"benchmark", "scale", NULL};
            const char *h = hint(a, k, keys);
            if (!*h) h = hint(a, k, extra);
            return ar_printf(a, "reference error: where key '%s' is not recorded for %s (%s"
                                "its keys: benchmark, scale, %s)", k, metric, h,
                             listing_of(a, keys, nk, allk));
        }
        if (!values) continue;
        /* a value matches as where_value_same says: the index's candidates
         * for this one key, each tested */
        if (rowindex_any(f->ix, metric, &kv[i], row_records)) continue;
        size_t nv, allv = vhi - vlo;
        const char **vals = entries_list(a, f->tr, vlo, vhi, 0, WHERE_SUGGEST_MAX, &nv);
        return ar_printf(a, "reference error: where %s=%s: no %s row records it (%s"
                            "recorded: %s)", k, v, metric, hint(a, v, vals),
                         listing_of(a, vals, nv, allv));
    }
    return NULL;
}

const char *where_diagnose(arena_t *a, const char *metric, const kv_t *kv, size_t n,
                           const mtable_t *t, int values)
{
    return where_diagnose_f(a, metric, kv, n, where_facts_build(a, t, rowindex_build(a, t)),
                            values);
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
