#define _GNU_SOURCE
#include "harness/analysis/metrics.h"

#include <string.h>

const metric_info_t *metric_catalog(void) { return blocks_catalog(); }

const metric_info_t *metric_info(const char *name)
{
    for (const metric_info_t *m = metric_catalog(); m->name; m++)
        if (!strcmp(m->name, name)) return m;
    return NULL;
}

const char *const *metric_names(void)
{
    static const char *names[64];
    if (!names[0]) {
        size_t i = 0;
        for (const metric_info_t *m = metric_catalog(); m->name && i < 63; m++)
            names[i++] = m->name;
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
