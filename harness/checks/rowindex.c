/* rowindex (rowindex.h): one sorted array of keys, looked up by binary
 * search (worst case O(log n) whatever the data: a hash table of names from
 * a vendor's file could be flooded). */
#define _GNU_SOURCE
#include "harness/checks/rowindex.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* what an entry says of its row; the order of the enum is the sort order */
typedef enum { RX_ALL = 0, RX_BENCH, RX_TEXT, RX_NUM, RX_TRUTH } rx_tag;

typedef struct {
    const char *metric;
    const char *key; /* parameter name; NULL for RX_ALL and RX_BENCH */
    rx_tag tag;
    const char *text; /* RX_BENCH, RX_TEXT */
    double num;       /* RX_NUM, RX_TRUTH (0 or 1) */
    size_t row;
} rx_entry;

struct rowindex {
    const mtable_t *t;
    rx_entry *e;
    size_t n;
};

static int nullcmp(const char *a, const char *b)
{
    if (!a || !b) return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

/* by metric, key, tag, value: row not compared (a lookup's probe) */
static int entry_key_cmp(const rx_entry *a, const rx_entry *b)
{
    int c = strcmp(a->metric, b->metric);
    if (!c) c = nullcmp(a->key, b->key);
    if (!c) c = (int)a->tag - (int)b->tag;
    if (c) return c;
    if (a->tag == RX_BENCH || a->tag == RX_TEXT) return strcmp(a->text, b->text);
    return (a->num > b->num) - (a->num < b->num);
}

static int entry_cmp(const void *x, const void *y)
{
    const rx_entry *a = x, *b = y;
    int c = entry_key_cmp(a, b);
    return c ? c : (a->row > b->row) - (a->row < b->row);
}

/* 1 true, 0 false, -1 not a truth value: the words where.c takes, in
 * false/true pairs (test_harness_rowindex keeps the two in step) */
static int truth(const char *s)
{
    static const char *const pairs[] = {"false", "true", "no", "yes", "off", "on", "False", "True",
                                        "No", "Yes", "Off", "On", "FALSE", "TRUE", "NO", "YES",
                                        "OFF", "ON", NULL};
    for (size_t i = 0; pairs[i]; i++)
        if (!strcmp(s, pairs[i])) return (int)(i % 2);
    return -1;
}

/* the keys a value is found by: as text, and as a number or truth value.
 * wanted: a value of a check (a size such as 1M counts as its bytes, as
 * where_value_same takes it); else a recorded one.  Returns how many. */
static size_t value_keys(const char *v, int wanted, rx_entry out[3])
{
    size_t n = 0;
    double d;
    size_t sz;
    out[n++] = (rx_entry){.tag = RX_TEXT, .text = v};
    if (!opt_parse_double(v, &d)) {
        if (!isnan(d)) out[n++] = (rx_entry){.tag = RX_NUM, .num = d == 0 ? 0 : d};
        return n; /* a number is never a truth value */
    }
    int tr = truth(v);
    if (tr >= 0) out[n++] = (rx_entry){.tag = RX_TRUTH, .num = tr};
    if (wanted && !opt_parse_size(v, &sz)) out[n++] = (rx_entry){.tag = RX_NUM, .num = (double)sz};
    return n;
}

int rowindex_may_match(const char *recorded, const char *wanted)
{
    rx_entry r[3], w[3];
    size_t nr = value_keys(recorded, 0, r), nw = value_keys(wanted, 1, w);
    for (size_t i = 0; i < nr; i++)
        for (size_t j = 0; j < nw; j++) {
            r[i].metric = w[j].metric = "";
            if (!entry_key_cmp(&r[i], &w[j])) return 1;
        }
    return 0;
}

rowindex_t *rowindex_build(arena_t *a, const mtable_t *t)
{
    rowindex_t *x = ar_alloc(a, sizeof *x);
    x->t = t;
    size_t cap = 0;
    for (size_t i = 0; i < t->n; i++) cap += 4 + 3 * t->m[i].nparams;
    x->e = ar_alloc(a, (cap + 1) * sizeof *x->e);
    for (size_t i = 0; i < t->n; i++) {
        const metric_t *m = &t->m[i];
        rx_entry *e = x->e;
        e[x->n++] = (rx_entry){.metric = m->metric, .tag = RX_ALL, .row = i};
        /* a check's benchmark is the suite entry, the record kind or the program */
        const char *names[] = {m->bench, m->kind ? m->kind : "",
                               path_basename(m->program ? m->program : "")};
        for (size_t k = 0; k < 3; k++)
            e[x->n++] = (rx_entry){.metric = m->metric, .tag = RX_BENCH, .text = names[k], .row = i};
        for (size_t p = 0; p < m->nparams; p++) {
            rx_entry v[3];
            size_t nv = value_keys(m->params[p].value, 0, v);
            for (size_t k = 0; k < nv; k++) {
                v[k].metric = m->metric, v[k].key = m->params[p].key, v[k].row = i;
                e[x->n++] = v[k];
            }
        }
    }
    qsort(x->e, x->n, sizeof *x->e, entry_cmp);
    return x;
}

/* the entries equal to probe (row aside): [*lo, return) */
static size_t range(const rowindex_t *x, const rx_entry *probe, size_t *lo)
{
    size_t l = 0, h = x->n;
    while (l < h) { /* first entry not below probe */
        size_t mid = l + (h - l) / 2;
        if (entry_key_cmp(&x->e[mid], probe) < 0) l = mid + 1;
        else h = mid;
    }
    *lo = l;
    h = x->n;
    while (l < h) { /* first entry above probe */
        size_t mid = l + (h - l) / 2;
        if (entry_key_cmp(&x->e[mid], probe) <= 0) l = mid + 1;
        else h = mid;
    }
    return l;
}

static int size_cmp(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return (a > b) - (a < b);
}

size_t rowindex_candidates(arena_t *a, const rowindex_t *x, const char *metric, const kv_t *where,
                           size_t n, size_t **rows)
{
    /* the narrowest of: every row of the metric, or the rows one where key
     * may match (the union of its value's keys) */
    rx_entry best[3] = {{.metric = metric, .tag = RX_ALL}};
    size_t nbest = 1, lo, hi = range(x, &best[0], &lo), cost = hi - lo;
    for (size_t i = 0; i < n; i++) {
        rx_entry p[3];
        size_t np;
        if (!strcmp(where[i].key, "scale")) continue;
        if (!strcmp(where[i].key, "benchmark")) {
            p[0] = (rx_entry){.tag = RX_BENCH, .text = where[i].value};
            np = 1;
        } else {
            np = value_keys(where[i].value, 1, p);
            for (size_t k = 0; k < np; k++) p[k].key = where[i].key;
        }
        size_t c = 0;
        for (size_t k = 0; k < np; k++) {
            p[k].metric = metric;
            hi = range(x, &p[k], &lo);
            c += hi - lo;
        }
        if (c < cost) {
            cost = c, nbest = np;
            memcpy(best, p, np * sizeof *p);
        }
    }
    size_t *r = ar_alloc(a, (cost + 1) * sizeof *r), m = 0;
    for (size_t k = 0; k < nbest; k++) {
        hi = range(x, &best[k], &lo);
        for (size_t j = lo; j < hi; j++) r[m++] = x->e[j].row;
    }
    qsort(r, m, sizeof *r, size_cmp); /* table order, each row once */
    size_t u = 0;
    for (size_t j = 0; j < m; j++)
        if (!u || r[u - 1] != r[j]) r[u++] = r[j];
    *rows = r;
    return u;
}

int rowindex_any(const rowindex_t *x, const char *metric, const kv_t *w,
                 int (*match)(const metric_t *m, const kv_t *w))
{
    rx_entry p[3];
    size_t np = value_keys(w->value, 1, p);
    for (size_t k = 0; k < np; k++) {
        p[k].metric = metric, p[k].key = w->key;
        size_t lo, hi = range(x, &p[k], &lo);
        for (size_t j = lo; j < hi; j++) /* the first that matches ends it: no list is made */
            if (match(&x->t->m[x->e[j].row], w)) return 1;
    }
    return 0;
}

static int bench_row_cmp(const void *x, const void *y, void *t)
{
    const metric_t *m = ((const mtable_t *)t)->m;
    return strcmp(m[*(const size_t *)x].bench, m[*(const size_t *)y].bench);
}

size_t rowindex_keep_extreme(arena_t *a, const rowindex_t *x, size_t *rows, size_t n, int largest)
{
    /* sorted by benchmark: each benchmark's extreme scale in one pass */
    size_t *s = ar_alloc(a, (n + 1) * sizeof *s);
    int *ext = ar_alloc(a, (n + 1) * sizeof *ext); /* the extreme, by position in s */
    memcpy(s, rows, n * sizeof *s);
    qsort_r(s, n, sizeof *s, bench_row_cmp, (void *)x->t);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int e = x->t->m[s[i]].scale;
        for (; j < n && !strcmp(x->t->m[s[j]].bench, x->t->m[s[i]].bench); j++) {
            int sc = x->t->m[s[j]].scale;
            if (largest ? sc > e : sc < e) e = sc;
        }
        for (size_t k = i; k < j; k++) ext[k] = e;
        i = j;
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        size_t lo = 0, hi = n; /* this row's benchmark in s */
        const char *b = x->t->m[rows[i]].bench;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (strcmp(x->t->m[s[mid]].bench, b) < 0) lo = mid + 1;
            else hi = mid;
        }
        if (x->t->m[rows[i]].scale == ext[lo]) rows[kept++] = rows[i];
    }
    return kept;
}

double rowindex_launches_ok(const rowindex_t *x, const char *bench, int scale)
{
    rx_entry p = {.metric = "launches_ok", .tag = RX_BENCH, .text = bench};
    size_t lo, hi = range(x, &p, &lo);
    double v = 0;
    size_t last = 0;
    int any = 0;
    for (size_t j = lo; j < hi; j++) {
        const metric_t *m = &x->t->m[x->e[j].row];
        if (m->scale == scale && !strcmp(m->bench, bench) && (!any || x->e[j].row > last))
            v = m->value, last = x->e[j].row, any = 1;
    }
    return v;
}
