#define _GNU_SOURCE
#include "harness/util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchmarks/common/check.h"

/* ---- arena ------------------------------------------------------------------ */
typedef struct block {
    struct block *next;
    size_t used, cap;
    max_align_t data[];
} block_t;

typedef struct defer {
    struct defer *next;
    void (*fn)(void *);
    void *p;
} defer_t;

struct arena {
    block_t *head;
    defer_t *defers;
};

arena_t *ar_new(void) { return XCALLOC(1, sizeof(arena_t), "arena"); }

void ar_free(arena_t *a)
{
    if (!a) return;
    for (defer_t *d = a->defers, *n; d; d = n) {
        n = d->next;
        d->fn(d->p);
        free(d);
    }
    for (block_t *b = a->head, *n; b; b = n) {
        n = b->next;
        free(b);
    }
    free(a);
}

void *ar_alloc(arena_t *a, size_t bytes)
{
    size_t al = sizeof(max_align_t);
    bytes = (bytes + al - 1) / al * al;
    if (!bytes) bytes = al;
    block_t *b = a->head;
    if (!b || b->cap - b->used < bytes) {
        size_t cap = bytes > 60000 ? bytes : 60000;
        b = XMALLOC(sizeof *b + cap, "arena block");
        b->used = 0;
        b->cap = cap;
        b->next = a->head;
        a->head = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += bytes;
    memset(p, 0, bytes);
    return p;
}

char *ar_strndup(arena_t *a, const char *s, size_t n)
{
    if (!s) return NULL;
    char *p = ar_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *ar_strdup(arena_t *a, const char *s) { return s ? ar_strndup(a, s, strlen(s)) : NULL; }

char *ar_printf(arena_t *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = ar_alloc(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void ar_defer(arena_t *a, void (*fn)(void *), void *p)
{
    defer_t *d = XMALLOC(sizeof *d, "arena destructor");
    d->fn = fn;
    d->p = p;
    d->next = a->defers;
    a->defers = d;
}

/* ---- string builder --------------------------------------------------------- */
void sb_putn(sb_t *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1) cap *= 2;
        b->s = realloc(b->s, cap);
        CHECK(b->s != NULL, "cannot grow a text buffer to %zu bytes", cap);
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void sb_puts(sb_t *b, const char *s) { sb_putn(b, s, strlen(s)); }

void sb_vprintf(sb_t *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n <= 0) return;
    sb_putn(b, "", 0);
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap;
        while (cap < b->len + (size_t)n + 1) cap *= 2;
        b->s = realloc(b->s, cap);
        CHECK(b->s != NULL, "cannot grow a text buffer to %zu bytes", cap);
        b->cap = cap;
    }
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void sb_printf(sb_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

void sb_free(sb_t *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

const char *sb_str(const sb_t *b) { return b->s ? b->s : ""; }

/* ---- files ------------------------------------------------------------------ */

int path_is_file(const char *p)
{
    struct stat st;
    return p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int path_is_dir(const char *p)
{
    struct stat st;
    return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int path_is_exec(const char *p) { return path_is_file(p) && access(p, X_OK) == 0; }

char *path_join(arena_t *a, const char *dir, const char *file)
{
    if (file[0] == '/' || !dir || !*dir) return ar_strdup(a, file);
    size_t l = strlen(dir);
    return ar_printf(a, "%s%s%s", dir, dir[l - 1] == '/' ? "" : "/", file);
}

char *path_dirname(arena_t *a, const char *path)
{
    const char *s = strrchr(path, '/');
    if (!s) return ar_strdup(a, ".");
    if (s == path) return ar_strdup(a, "/");
    return ar_strndup(a, path, (size_t)(s - path));
}

const char *path_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

char *path_abs(arena_t *a, const char *path)
{
    char buf[PATH_MAX];
    if (realpath(path, buf)) return ar_strdup(a, buf);
    if (path[0] == '/') return ar_strdup(a, path);
    if (!getcwd(buf, sizeof buf)) return ar_strdup(a, path);
    return path_join(a, buf, path);
}

char *path_search(arena_t *a, const char *name)
{
    if (strchr(name, '/')) return path_is_exec(name) ? ar_strdup(a, name) : NULL;
    const char *p = getenv("PATH");
    if (!p) p = "/usr/local/bin:/usr/bin:/bin";
    while (*p) {
        size_t l = strcspn(p, ":");
        char *dir = ar_strndup(a, p, l);
        char *cand = path_join(a, *dir ? dir : ".", name);
        if (path_is_exec(cand)) return cand;
        p += l;
        if (*p == ':') p++;
    }
    return NULL;
}

/* ---- where exadl runs from ------------------------------------------------------ */
static char g_self[PATH_MAX], g_bindir[PATH_MAX], g_root[PATH_MAX];

const char *exadl_self(void)
{
    if (!g_self[0]) {
        ssize_t n = readlink("/proc/self/exe", g_self, sizeof g_self - 1);
        if (n <= 0) snprintf(g_self, sizeof g_self, "exadl");
        else g_self[n] = 0;
    }
    return g_self;
}

const char *exadl_bindir(void)
{
    if (!g_bindir[0]) {
        snprintf(g_bindir, sizeof g_bindir, "%s", exadl_self());
        char *s = strrchr(g_bindir, '/');
        if (s) *s = 0;
        else snprintf(g_bindir, sizeof g_bindir, ".");
    }
    return g_bindir;
}

const char *exadl_root(void)
{
    if (g_root[0]) return g_root;
    const char *env = getenv("EXADL_ROOT");
    if (env && *env) {
        snprintf(g_root, sizeof g_root, "%s", env);
        return g_root;
    }
    char cand[PATH_MAX + 8], probe[PATH_MAX + 32];
    snprintf(cand, sizeof cand, "%s/../..", exadl_bindir());
    snprintf(probe, sizeof probe, "%s/harness", cand);
    char probe2[PATH_MAX + 32];
    snprintf(probe2, sizeof probe2, "%s/Makefile", cand);
    if ((path_is_dir(probe) || path_is_file(probe2)) && realpath(cand, g_root)) return g_root;
    if (!getcwd(g_root, sizeof g_root)) snprintf(g_root, sizeof g_root, ".");
    return g_root;
}

