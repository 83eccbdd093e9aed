/* rowkeys (rowkeys.h). */
#define _GNU_SOURCE
#include "harness/checks/rowkeys.h"

#include <string.h>

/* who sets each: blocks/collectives (op ... inplace), gradient_reduction and
 * the model (mode, grouping), datadist (strategy), manytask (launcher),
 * workflow (mode: mpi or files),
 * ensemble (trainers), update_exchange (exchange, rate), energy (energy_basis) */
const rowkey_t rowkeys[] = {
    {"op", RK_TEXT, 1},        {"redop", RK_TEXT, 1},    {"dtype", RK_TEXT, 1},
    {"bytes", RK_INT, 1},      {"inplace", RK_BOOL, 1},  {"mode", RK_TEXT, 0},
    {"grouping", RK_TEXT, 0},  {"strategy", RK_TEXT, 0}, {"launcher", RK_TEXT, 0},
    {"trainers", RK_INT, 0},   {"exchange", RK_TEXT, 0}, {"rate", RK_TEXT, 0},
    {"energy_basis", RK_TEXT, 0}, {NULL, RK_TEXT, 0}};

const rowkey_t *rowkey_find(const char *key)
{
    for (size_t i = 0; rowkeys[i].key; i++)
        if (!strcmp(rowkeys[i].key, key)) return &rowkeys[i];
    return NULL;
}

int rowkey_truth(const char *v)
{
    static const char *const t[] = {"true", "yes", "on", NULL}, *const f[] = {"false", "no", "off", NULL};
    for (size_t i = 0; v && t[i]; i++)
        if (!strcmp(v, t[i])) return 1;
    for (size_t i = 0; v && f[i]; i++)
        if (!strcmp(v, f[i])) return 0;
    return -1;
}

int rowkey_typed(const rowkey_t *k, const char *v, long long *i, int *b)
{
    if (!v || !k) return 0;
    if (k->type == RK_INT && !opt_parse_int(v, i)) return 1;
    if (k->type == RK_BOOL && (*b = rowkey_truth(v)) >= 0) return 2;
    return 0;
}

size_t rowkeys_of(const metric_t *m, const kv_t *cfg, size_t ncfg, kv_t *out)
{
    size_t n = 0;
    for (size_t i = 0; rowkeys[i].key && n < ROWKEYS_MAX; i++) {
        const char *v = metric_param(m, rowkeys[i].key);
        if (!v) continue;
        int from_cfg = 0; /* a config key the row only repeats */
        for (size_t j = 0; cfg && !rowkeys[i].own && j < ncfg && !from_cfg; j++)
            from_cfg = cfg[j].key && cfg[j].value && !strcmp(cfg[j].key, rowkeys[i].key) &&
                       !strcmp(cfg[j].value, v);
        if (!from_cfg) out[n++] = (kv_t){rowkeys[i].key, v};
    }
    return n;
}

/* does a row of t beside m (same benchmark, metric and scale) have another
 * value of key, or none? */
static int varies(const metric_t *m, const mtable_t *t, const char *key, const char *v)
{
    for (size_t j = 0; t && j < t->n; j++) {
        const metric_t *o = &t->m[j];
        if (o == m || o->scale != m->scale || strcmp(o->metric, m->metric) || strcmp(o->bench, m->bench))
            continue;
        const char *ov = metric_param(o, key);
        if (!ov || strcmp(ov, v)) return 1;
    }
    return 0;
}

const char *rowkeys_text(arena_t *a, const metric_t *m, const mtable_t *t)
{
    kv_t k[ROWKEYS_MAX];
    size_t n = rowkeys_of(m, NULL, 0, k);
    sb_t b = {0};
    for (size_t i = 0; i < n; i++) { /* values from records: only [A-Za-z0-9._-] reach a terminal */
        if (!rowkey_find(k[i].key)->own && !varies(m, t, k[i].key, k[i].value)) continue;
        sb_printf(&b, "%s%s=%s", b.len ? " " : "", k[i].key, sanitize_name(a, k[i].value));
    }
    char *r = b.len ? ar_strdup(a, sb_str(&b)) : NULL;
    sb_free(&b);
    return r;
}
