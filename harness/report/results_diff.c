/* results_diff (results_diff.h). */
#define _GNU_SOURCE
#include "harness/report/results_diff.h"

#include <string.h>

typedef struct {
    const char **k, **v;
    size_t n, cap, vcap;
} flat_t;

static void flat_add(arena_t *a, flat_t *f, const char *k, const char *v)
{
    AR_GROW(a, f->k, f->n, f->cap);
    AR_GROW(a, f->v, f->n, f->vcap);
    f->k[f->n] = k, f->v[f->n++] = v;
}

/* every scalar leaf as "a.b.c" -> value; a list of scalars as one value */
static void flatten(arena_t *a, const ytnode *n, const char *path, flat_t *f, int depth)
{
    if (!n || depth > 8) return;
    if (n->kind == YT_SCALAR) {
        flat_add(a, f, path, n->str);
        return;
    }
    if (n->kind == YT_SEQ) {
        int flat = 1;
        for (size_t i = 0; i < n->n; i++) flat &= n->items[i]->kind == YT_SCALAR;
        if (flat) {
            sb_t s = {0};
            sb_puts(&s, "[");
            for (size_t i = 0; i < n->n; i++) sb_printf(&s, "%s%s", i ? ", " : "", n->items[i]->str);
            sb_puts(&s, "]");
            flat_add(a, f, path, ar_strdup(a, sb_str(&s)));
            sb_free(&s);
            return;
        }
        for (size_t i = 0; i < n->n; i++)
            flatten(a, n->items[i], ar_printf(a, "%s[%zu]", path, i), f, depth + 1);
        return;
    }
    for (size_t i = 0; i < n->n; i++) {
        const ytnode *k = yt_key(n, i);
        if (k->kind != YT_SCALAR) continue;
        flatten(a, yt_val(n, i), path[0] ? ar_printf(a, "%s.%s", path, k->str) : k->str, f,
                depth + 1);
    }
}

static const char *lookup(const flat_t *f, const char *k)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->k[i], k)) return f->v[i];
    return NULL;
}

static int same_value(const char *p, const char *q)
{
    if (!strcmp(p, q)) return 1;
    double u, v;
    return !opt_parse_double(p, &u) && !opt_parse_double(q, &v) && u == v;
}

static void add(arena_t *a, rdiffs_t *o, const char *what, const char *x, const char *y,
                const char *bench)
{
    AR_GROW(a, o->d, o->n, o->cap);
    o->d[o->n++] = (rdiff_t){what, x ? x : "(absent)", y ? y : "(absent)", bench};
}

static void diff_nodes(arena_t *a, const ytnode *x, const ytnode *y, const char *label,
                       const char *bench, rdiffs_t *o)
{
    flat_t fx = {0}, fy = {0};
    flatten(a, x, "", &fx, 0);
    flatten(a, y, "", &fy, 0);
    for (size_t i = 0; i < fx.n; i++) {
        const char *w = lookup(&fy, fx.k[i]);
        if (!w || !same_value(fx.v[i], w))
            add(a, o, ar_printf(a, "%s%s", label, fx.k[i]), fx.v[i], w, bench);
    }
    for (size_t i = 0; i < fy.n; i++)
        if (!lookup(&fx, fy.k[i])) add(a, o, ar_printf(a, "%s%s", label, fy.k[i]), NULL, fy.v[i], bench);
}

static void diff_str(arena_t *a, rdiffs_t *o, const char *what, const char *x, const char *y)
{
    if (!x && !y) return;
    if (!x || !y || strcmp(x, y)) add(a, o, what, x ? x : "(not recorded)", y ? y : "(not recorded)", NULL);
}

void results_diff(arena_t *a, const results_t *x, const results_t *y, rdiffs_t *o)
{
    memset(o, 0, sizeof *o);
    diff_str(a, o, "exadl version", x->version, y->version);
    diff_str(a, o, "exadl commit", x->commit, y->commit);
    diff_str(a, o, "machine", x->machine, y->machine);
    diff_str(a, o, "suite", x->suite, y->suite);
    diff_nodes(a, x->system, y->system, "system ", NULL, o);
    const ytnode *bx = yt_get(x->root, "benchmarks"), *by = yt_get(y->root, "benchmarks");
    for (size_t i = 0; bx && bx->kind == YT_SEQ && i < bx->n; i++) {
        const ytnode *nx = yt_get(bx->items[i], "name");
        if (!nx || nx->kind != YT_SCALAR) continue;
        for (size_t j = 0; by && by->kind == YT_SEQ && j < by->n; j++) {
            const ytnode *ny = yt_get(by->items[j], "name");
            if (!ny || ny->kind != YT_SCALAR || strcmp(nx->str, ny->str)) continue;
            diff_nodes(a, yt_get(bx->items[i], "config"), yt_get(by->items[j], "config"),
                       ar_printf(a, "config %s.", nx->str), nx->str, o);
            const ytnode *px = yt_get(bx->items[i], "program"), *py = yt_get(by->items[j], "program");
            if (px && py && px->kind == YT_SCALAR && py->kind == YT_SCALAR && strcmp(px->str, py->str))
                add(a, o, ar_printf(a, "program of %s", nx->str), px->str, py->str, nx->str);
        }
    }
}

int results_config_differs(const rdiffs_t *d, const char *bench)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->d[i].bench && !strcmp(d->d[i].bench, bench)) return 1;
    return 0;
}

void results_diff_print(FILE *f, const rdiffs_t *d)
{
    if (!d->n) {
        fprintf(f, "Differences between A and B: none in versions, machine, system or config\n\n");
        return;
    }
    size_t w = 0;
    for (size_t i = 0; i < d->n; i++)
        if (strlen(d->d[i].what) > w) w = strlen(d->d[i].what);
    if (w > 48) w = 48;
    fprintf(f, "Differences between A and B (%zu):\n", d->n);
    for (size_t i = 0; i < d->n; i++)
        fprintf(f, "  %-*s  A: %s   B: %s\n", (int)w, d->d[i].what, d->d[i].a, d->d[i].b);
    fprintf(f, "\n");
}
