/* Records: stemdl's gradient_reduction block and the orchestration
 * benchmark's rows (recread.h).  Read defensively like the rest: what is
 * absent stays NaN or empty; a wrong type is an error naming FILE:LINE:COL. */
#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include "harness/records/recread.h"

static int gnum(const ytdoc *d, const ytnode *map, const char *key, double *out, char *err,
                size_t errlen)
{
    *out = NAN;
    const ytnode *n = yt_get(map, key);
    if (!n || yt_is_null(n)) return 0;
    return yt_double(d, n, out, err, errlen);
}

static int gint(const ytdoc *d, const ytnode *map, const char *key, long long *out, char *err,
                size_t errlen)
{
    *out = -1;
    const ytnode *n = yt_get(map, key);
    if (!n || yt_is_null(n)) return 0;
    return yt_int(d, n, out, err, errlen);
}

static int gtext(const ytdoc *d, const ytnode *map, const char *key, const char **out, char *err,
                 size_t errlen)
{
    *out = NULL;
    const ytnode *n = yt_get(map, key);
    if (!n || yt_is_null(n)) return 0;
    if (n->kind != YT_SCALAR) return yt_err(err, errlen, d, n, "%s must be text", key);
    *out = n->str;
    return 0;
}

static int glist(arena_t *a, const ytdoc *d, const ytnode *map, const char *key, double **out,
                 size_t *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    const ytnode *s = yt_get(map, key);
    if (!s || yt_is_null(s)) return 0;
    if (s->kind != YT_SEQ) return yt_err(err, errlen, d, s, "%s must be a list of numbers", key);
    *out = ar_alloc(a, (s->n + 1) * sizeof **out);
    for (size_t i = 0; i < s->n; i++)
        if (yt_double(d, s->items[i], &(*out)[i], err, errlen)) return -1;
    *n = s->n;
    return 0;
}

static int steps_block(arena_t *a, const ytdoc *d, const ytnode *st, grinfo_t *g, char *err,
                       size_t errlen)
{
    size_t n[5];
    if (glist(a, d, st, "exposed_s", &g->exposed_s, &n[0], err, errlen) ||
        glist(a, d, st, "negotiation_s", &g->negotiation_s, &n[1], err, errlen) ||
        glist(a, d, st, "reduce_s", &g->reduce_s, &n[2], err, errlen) ||
        glist(a, d, st, "backward_end_s", &g->backward_end_s, &n[3], err, errlen) ||
        glist(a, d, st, "cycles", &g->cycles, &n[4], err, errlen))
        return -1;
    g->nsteps = n[0];
    for (int i = 1; i < 5; i++)
        if (n[i] != g->nsteps && n[i] != 0)
            return yt_err(err, errlen, d, st, "gradient_reduction.steps: the lists differ in "
                          "length (%zu and %zu)", g->nsteps, n[i]);
    return 0;
}

static int timeline(arena_t *a, const ytdoc *d, const ytnode *tl, grinfo_t *g, char *err,
                    size_t errlen)
{
    if (!tl || yt_is_null(tl)) return 0;
    if (tl->kind != YT_SEQ) return yt_err(err, errlen, d, tl, "timeline must be a list of steps");
    size_t G = (size_t)(g->groups > 0 ? g->groups : 0);
    g->timeline = ar_alloc(a, (tl->n * G * 3 + 1) * sizeof *g->timeline);
    for (size_t s = 0; s < tl->n; s++) {
        const ytnode *step = tl->items[s];
        if (step->kind != YT_SEQ || step->n != G)
            return yt_err(err, errlen, d, step, "timeline: each step must list %zu groups", G);
        for (size_t k = 0; k < G; k++) {
            const ytnode *e = step->items[k];
            if (e->kind != YT_SEQ || e->n != 3)
                return yt_err(err, errlen, d, e, "timeline: each group is [ready, start, end]");
            for (int j = 0; j < 3; j++)
                if (yt_double(d, e->items[j], &g->timeline[(s * G + k) * 3 + (size_t)j], err,
                              errlen))
                    return -1;
        }
    }
    g->ntl = tl->n;
    return 0;
}

int record_read_gr(arena_t *a, const ytdoc *d, const ytnode *root, record_t *r, char *err,
                   size_t errlen)
{
    const ytnode *b = yt_get(root, "gradient_reduction");
    if (!b || yt_is_null(b)) return 0;
    if (b->kind != YT_MAP) return yt_err(err, errlen, d, b, "gradient_reduction must be a mapping");
    grinfo_t *g = ar_alloc(a, sizeof *g);
    if (gtext(d, b, "transport", &g->transport, err, errlen) ||
        gtext(d, b, "orchestration", &g->orchestration, err, errlen) ||
        gtext(d, b, "grouping", &g->grouping, err, errlen) ||
        gint(d, b, "groups", &g->groups, err, errlen) ||
        gint(d, b, "cache_capacity", &g->cache_capacity, err, errlen) ||
        gnum(d, b, "fusion_bytes", &g->fusion_bytes, err, errlen) ||
        gnum(d, b, "cycle_ms", &g->cycle_ms, err, errlen))
        return -1;
    const ytnode *ts = yt_get(b, "tensors");
    if (ts && !yt_is_null(ts)) {
        if (ts->kind != YT_SEQ) return yt_err(err, errlen, d, ts, "tensors must be a list");
        g->t = ar_alloc(a, (ts->n + 1) * sizeof *g->t);
        for (size_t i = 0; i < ts->n; i++) {
            const ytnode *x = ts->items[i];
            grtensor_t *t = &g->t[g->nt++];
            if (x->kind != YT_MAP)
                return yt_err(err, errlen, d, x, "tensors: each must be a mapping");
            if (gtext(d, x, "name", &t->name, err, errlen) ||
                gnum(d, x, "bytes", &t->bytes, err, errlen) ||
                gint(d, x, "group", &t->group, err, errlen))
                return -1;
            if (!t->name || !(t->bytes >= 0) || t->group < 0 ||
                (g->groups > 0 && t->group >= g->groups))
                return yt_err(err, errlen, d, x, "tensors: each needs name, bytes >= 0 and a group "
                              "below groups (%lld)", g->groups);
        }
    }
    g->labels = ar_alloc(a, ((size_t)(g->groups > 0 ? g->groups : 0) + 1) * sizeof *g->labels);
    const ytnode *gl = yt_get(b, "group_list");
    for (size_t i = 0; gl && gl->kind == YT_SEQ && i < gl->n; i++) {
        long long k;
        const char *label;
        if (gint(d, gl->items[i], "group", &k, err, errlen) ||
            gtext(d, gl->items[i], "label", &label, err, errlen))
            return -1;
        if (k >= 0 && k < g->groups) g->labels[k] = label;
    }
    const ytnode *st = yt_get(b, "steps");
    if (st && st->kind == YT_MAP && steps_block(a, d, st, g, err, errlen)) return -1;
    if (timeline(a, d, yt_get(b, "timeline"), g, err, errlen)) return -1;
    r->gr = g;
    return 0;
}

int record_read_orch(arena_t *a, const ytdoc *d, const ytnode *root, record_t *r, char *err,
                     size_t errlen)
{
    const ytnode *rs = yt_get(root, "results");
    if (!rs || yt_is_null(rs)) return 0;
    if (rs->kind != YT_SEQ) return yt_err(err, errlen, d, rs, "results must be a list");
    r->o = ar_alloc(a, (rs->n + 1) * sizeof *r->o);
    for (size_t i = 0; i < rs->n; i++) {
        const ytnode *row = rs->items[i];
        if (row->kind != YT_MAP)
            return yt_err(err, errlen, d, row, "results: each row must be a mapping");
        orow_t *o = &r->o[r->no++];
        if (gtext(d, row, "mode", &o->mode, err, errlen) ||
            gtext(d, row, "grouping", &o->grouping, err, errlen) ||
            gint(d, row, "groups", &o->groups, err, errlen) ||
            gint(d, row, "ranks", &o->ranks, err, errlen) ||
            gint(d, row, "tensors", &o->tensors, err, errlen) ||
            gnum(d, row, "cycles", &o->cycles, err, errlen) ||
            gnum(d, row, "median_s", &o->median_s, err, errlen) ||
            gnum(d, row, "per_cycle_s", &o->per_cycle_s, err, errlen))
            return -1;
        if (!o->mode)
            return yt_err(err, errlen, d, row, "results: an orchestration row has no mode");
        if (o->ranks < 1) o->ranks = r->ranks;
        if (isnan(o->per_cycle_s) && o->cycles > 0) o->per_cycle_s = o->median_s / o->cycles;
    }
    return 0;
}
