#include "harness/proc/argv.h"

#include <stdarg.h>
#include <string.h>

void argv_push(arena_t *a, argv_t *v, const char *s)
{
    if (v->n + 2 > v->cap) { /* room for s and the NULL after it */
        size_t cap = v->cap ? 2 * v->cap : 16;
        char **nv = ar_alloc(a, cap * sizeof *nv);
        if (v->n) memcpy(nv, v->v, v->n * sizeof *nv);
        v->v = nv;
        v->cap = cap;
    }
    v->v[v->n++] = ar_strdup(a, s);
    v->v[v->n] = NULL;
}

void argv_pushf(arena_t *a, argv_t *v, const char *fmt, ...)
{
    sb_t b = {0};
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&b, fmt, ap);
    va_end(ap);
    argv_push(a, v, sb_str(&b));
    sb_free(&b);
}

void argv_push_list(arena_t *a, argv_t *v, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++) argv_push(a, v, list[i]);
}

void argv_push_argv(arena_t *a, argv_t *v, char *const *argv)
{
    for (size_t i = 0; argv && argv[i]; i++) argv_push(a, v, argv[i]);
}

char **argv_done(arena_t *a, argv_t *v)
{
    if (!v->v) {
        v->cap = 1;
        v->v = ar_alloc(a, sizeof *v->v); /* zeroed: the NULL */
    }
    return v->v;
}

char *argv_join(arena_t *a, char *const *argv)
{
    sb_t b = {0};
    for (size_t i = 0; argv[i]; i++) sb_printf(&b, "%s%s", i ? " " : "", shell_quote(a, argv[i]));
    char *r = ar_strdup(a, sb_str(&b));
    sb_free(&b);
    return r;
}
