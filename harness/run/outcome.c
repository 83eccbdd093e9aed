/* Launch outcomes (outcome.h). */
#include "harness/run/outcome.h"

#include <string.h>

const char *lstatus_name(lstatus_t s)
{
    switch (s) {
    case LS_OK: return "ok";
    case LS_FAILED: return "failed";
    case LS_INVALID: return "invalid";
    case LS_TIMEOUT: return "timeout";
    case LS_INTERRUPTED: return "interrupted";
    case LS_NOTRUN: return "not_run";
    }
    return "?";
}

int lstatus_final(lstatus_t s) { return s == LS_OK || s == LS_FAILED || s == LS_INVALID || s == LS_TIMEOUT; }

void outcome_count(const outcome_t *o, size_t n, int *ok, int *failed, int *interrupted,
                   int *not_run)
{
    *ok = *failed = *interrupted = *not_run = 0;
    for (size_t i = 0; i < n; i++) {
        if (o[i].status == LS_OK) ++*ok;
        else if (o[i].status == LS_INTERRUPTED) ++*interrupted;
        else if (o[i].status == LS_NOTRUN) ++*not_run;
        else ++*failed;
    }
}

static void add_host(arena_t *a, const char ***v, size_t *n, size_t *cap, const char *h, size_t l)
{
    if (!l) return;
    for (size_t i = 0; i < *n; i++)
        if (strlen((*v)[i]) == l && !strncmp((*v)[i], h, l)) return;
    AR_GROW(a, *v, *n, *cap);
    (*v)[(*n)++] = ar_strndup(a, h, l);
}

const char **outcome_hosts(arena_t *a, const outcome_t *o, size_t n, size_t *nh)
{
    const char **v = NULL;
    size_t cap = 0;
    *nh = 0;
    for (size_t i = 0; i < n; i++) {
        if (o[i].hosts) {
            for (const char *p = o[i].hosts; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] != 0))
                add_host(a, &v, nh, &cap, p, strcspn(p, ","));
            continue;
        }
        const ytnode *h = o[i].rec ? yt_get(o[i].rec->system, "hosts") : NULL;
        for (size_t k = 0; h && h->kind == YT_SEQ && k < h->n; k++)
            if (h->items[k]->kind == YT_SCALAR)
                add_host(a, &v, nh, &cap, h->items[k]->str, strlen(h->items[k]->str));
    }
    return v;
}
