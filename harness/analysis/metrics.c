#define _GNU_SOURCE
#include "harness/analysis/metrics.h"

#include <string.h>

#include "benchmarks/common/check.h"

const metric_info_t *metric_catalog(void) { return blocks_catalog(); }

const metric_info_t *metric_info(const char *name)
{
    for (const metric_info_t *m = metric_catalog(); m->name; m++)
        if (!strcmp(m->name, name)) return m;
    return NULL;
}

/* every name of the catalog, NULL-ended, made once: a fixed array of 64 cut
 * the list once the blocks' catalog outgrew it, so suggestions missed the
 * later blocks' metrics */
const char *const *metric_names(void)
{
    static const char **names;
    if (!names) {
        size_t n = 0, i = 0;
        for (const metric_info_t *m = metric_catalog(); m->name; m++) n++;
        names = XCALLOC(n + 1, sizeof *names, "metric names");
        for (const metric_info_t *m = metric_catalog(); m->name; m++) names[i++] = m->name;
    }
    return names;
}

void mtable_add(arena_t *a, mtable_t *t, const metric_t *m)
{
    AR_GROW(a, t->m, t->n, t->cap);
    t->m[t->n++] = *m;
}

const char *metric_param(const metric_t *m, const char *key)
{
    for (size_t i = 0; i < m->nparams; i++)
        if (!strcmp(m->params[i].key, key)) return m->params[i].value;
    return NULL;
}

char *metric_label(arena_t *a, const metric_t *m)
{
    char *s = m->scale ? ar_printf(a, "%s n=%d", m->bench, m->scale) : ar_strdup(a, m->bench);
    const char *op = metric_param(m, "op"), *bytes = metric_param(m, "bytes");
    const char *ip = metric_param(m, "inplace");
    if (op) s = ar_printf(a, "%s %s", s, op);
    if (bytes) s = ar_printf(a, "%s %s B", s, bytes);
    if (ip && !strcmp(ip, "true")) s = ar_printf(a, "%s in-place", s);
    return s;
}
