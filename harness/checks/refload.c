/* reference_load (refcheck.h): a reference file read and checked, every key
 * and value with its line in an error.  Apart from refcheck.c, which
 * evaluates what this reads against a run's metric table: reading knows the
 * file's format, evaluating knows the run's rows, and they meet only in
 * reference_t. */
#define _GNU_SOURCE
#include "harness/checks/refcheck.h"

#include <math.h>
#include <string.h>

#include "benchmarks/common/ytree.h"
#include "harness/util/util.h"

static const char *const top_keys[] = {"exadl_reference", "name", "kind", "source", "system",
                                       "notes", "checks", NULL};
static const char *const check_keys[] = {"metric", "where", "value", "lower", "upper", "unit",
                                         "note", NULL};

static int bound(const ytdoc *d, const ytnode *c, const char *key, double *out, char *err,
                 size_t errlen)
{
    const ytnode *n = yt_get(c, key);
    if (!n)
        return yt_err(err, errlen, d, c, "a check needs %s: (a fraction such as %s, or null "
                                         "for no bound)", key, key[0] == 'l' ? "-0.05" : "0.1");
    if (yt_is_null(n)) {
        *out = NAN;
        return 0;
    }
    return yt_double(d, n, out, err, errlen);
}

static int text_of(const ytdoc *d, const ytnode *map, const char *key, arena_t *a,
                   const char **out, char *err, size_t errlen)
{
    const ytnode *n = yt_get(map, key);
    *out = NULL;
    if (!n || yt_is_null(n)) return 0;
    if (n->kind != YT_SCALAR) return yt_err(err, errlen, d, n, "%s must be text", key);
    *out = ar_strdup(a, n->str);
    return 0;
}

static int load_check(arena_t *a, const ytdoc *d, const ytnode *c, refspec_t *s, char *err,
                      size_t errlen)
{
    if (yt_expect(d, c, YT_MAP, "a check", err, errlen)) return -1;
    if (yt_check_keys(d, c, check_keys, err, errlen)) return -1;
    s->line = c->line;
    const ytnode *m = yt_get(c, "metric");
    if (!m || m->kind != YT_SCALAR) return yt_err(err, errlen, d, c, "a check needs metric:");
    if (!metric_info(m->str)) {
        const char *sug = yt_suggest(m->str, metric_names());
        if (sug) return yt_err(err, errlen, d, m, "unknown metric '%s' (did you mean '%s'?)", m->str, sug);
        return yt_err(err, errlen, d, m, "unknown metric '%s' (docs/harness.md lists them)", m->str);
    }
    s->metric = ar_strdup(a, m->str);
    const ytnode *v = yt_get(c, "value");
    if (!v) return yt_err(err, errlen, d, c, "a check needs value:");
    if (yt_double(d, v, &s->value, err, errlen)) return -1;
    if (bound(d, c, "lower", &s->lower, err, errlen) || bound(d, c, "upper", &s->upper, err, errlen))
        return -1;
    if (!isnan(s->lower) && !isnan(s->upper) && s->lower > s->upper)
        return yt_err(err, errlen, d, c, "lower (%g) is above upper (%g)", s->lower, s->upper);
    if (text_of(d, c, "unit", a, &s->unit, err, errlen) ||
        text_of(d, c, "note", a, &s->note, err, errlen))
        return -1;
    const ytnode *w = yt_get(c, "where");
    if (w && !yt_is_null(w)) {
        if (yt_expect(d, w, YT_MAP, "where", err, errlen)) return -1;
        s->where = ar_alloc(a, (w->n + 1) * sizeof *s->where);
        for (size_t i = 0; i < w->n; i++) {
            const ytnode *k = yt_key(w, i), *x = yt_val(w, i);
            if (k->kind != YT_SCALAR || x->kind != YT_SCALAR)
                return yt_err(err, errlen, d, x, "where: keys and values must be plain values");
            s->where[s->nwhere++] = (kv_t){ar_strdup(a, k->str), ar_strdup(a, x->str)};
        }
    }
    return 0;
}

int reference_load(arena_t *a, const char *path, reference_t *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    ytdoc *d = yt_load_file(path, err, errlen);
    if (!d) return -1;
    ar_defer(a, (void (*)(void *))yt_free, d);
    const ytnode *root = d->root;
    r->path = ar_strdup(a, path);
    if (!root) return yt_err(err, errlen, d, NULL, "the reference file is empty");
    if (yt_expect(d, root, YT_MAP, "a reference file", err, errlen)) return -1;
    if (yt_check_keys(d, root, top_keys, err, errlen)) return -1;
    long long ver;
    const ytnode *k = yt_get(root, "exadl_reference");
    if (!k) return yt_err(err, errlen, d, root, "not a reference file (no exadl_reference: 1)");
    if (yt_int(d, k, &ver, err, errlen)) return -1;
    if (ver != REFERENCE_FORMAT_VERSION)
        return yt_err(err, errlen, d, k, "exadl_reference %lld: this exadl reads version 1", ver);
    if (text_of(d, root, "name", a, &r->name, err, errlen) ||
        text_of(d, root, "kind", a, &r->kind, err, errlen) ||
        text_of(d, root, "source", a, &r->source, err, errlen) ||
        text_of(d, root, "system", a, &r->system, err, errlen) ||
        text_of(d, root, "notes", a, &r->notes, err, errlen))
        return -1;
    if (!r->name) r->name = ar_strdup(a, path_basename(path));
    static const char *const kinds[] = {"exact", "published", "acceptance", NULL};
    if (!r->kind) return yt_err(err, errlen, d, root, "kind: is required (exact, published or acceptance)");
    if (strcmp(r->kind, "exact") && strcmp(r->kind, "published") && strcmp(r->kind, "acceptance")) {
        const char *sug = yt_suggest(r->kind, kinds);
        return yt_err(err, errlen, d, yt_get(root, "kind"),
                      "unknown kind '%s'%s%s%s (exact, published or acceptance)", r->kind,
                      sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "");
    }
    const ytnode *cs = yt_get(root, "checks");
    if (!cs) return yt_err(err, errlen, d, root, "no checks: list");
    if (yt_expect(d, cs, YT_SEQ, "checks", err, errlen)) return -1;
    r->c = ar_alloc(a, (cs->n + 1) * sizeof *r->c);
    for (size_t i = 0; i < cs->n; i++)
        if (load_check(a, d, cs->items[i], &r->c[r->n++], err, errlen)) return -1;
    for (size_t i = 0; i < r->n; i++) r->c[i].describable = !strcmp(r->kind, "exact");
    r->label = r->name;
    return 0;
}
