/* The only list of launchers, and everything that loops over it. */
#include "harness/launchers/launcher.h"

#include <string.h>

#include "benchmarks/common/ytree.h"

/* One line per launcher, in the order help and messages list them.  X(NAME)
 * refers to `const launcher_t launcher_NAME`, defined in NAME.c of this folder
 * (module.mk compiles every file here). */
#define LAUNCHERS(X) \
    X(local)         \
    X(mpirun)        \
    X(srun)          \
    X(netns)         \
    X(smpi)          \
    X(template)

#define LAUNCHER_DECLARE(n) extern const launcher_t launcher_##n;
LAUNCHERS(LAUNCHER_DECLARE)
#define LAUNCHER_ENTRY(n) &launcher_##n,
const launcher_t *const launchers[] = {LAUNCHERS(LAUNCHER_ENTRY) NULL};

/* docs/harness.md: `mpirun` [default] */
const launcher_t *launcher_default(void) { return &launcher_mpirun; }

const launcher_t *launcher_by_name(const char *name)
{
    for (const launcher_t *const *l = launchers; *l; l++)
        if (!strcmp((*l)->name, name)) return *l;
    return NULL;
}

const launcher_t *launcher_select(const char *text)
{
    for (const launcher_t *const *l = launchers; *l; l++) /* a name wins over a text */
        if (!(*l)->matches && !strcmp((*l)->name, text)) return *l;
    for (const launcher_t *const *l = launchers; *l; l++)
        if ((*l)->matches && (*l)->matches(text)) return *l;
    return NULL;
}

const char *launcher_suggest(const char *text)
{
    const char *names[64];
    size_t n = 0;
    for (const launcher_t *const *l = launchers; *l && n + 1 < sizeof names / sizeof *names; l++)
        if (!(*l)->matches) names[n++] = (*l)->name;
    names[n] = NULL;
    return yt_suggest(text, names);
}

char *launcher_usage(arena_t *a)
{
    size_t n = 0;
    while (launchers[n]) n++;
    sb_t b = {0};
    for (size_t i = 0; i < n; i++)
        sb_printf(&b, "%s%s", i == 0 ? "" : i + 1 == n ? ", or " : ", ", launchers[i]->usage);
    char *r = ar_strdup(a, sb_str(&b));
    sb_free(&b);
    return r;
}

char *launcher_help(arena_t *a)
{
    int w = 0;
    for (const launcher_t *const *l = launchers; *l; l++)
        if ((int)strlen((*l)->name) > w) w = (int)strlen((*l)->name);
    sb_t b = {0};
    sb_puts(&b, "Launchers (suite key launcher:, docs/harness.md):\n");
    for (const launcher_t *const *l = launchers; *l; l++)
        sb_printf(&b, "  %-*s  %s\n", w, (*l)->name, (*l)->summary);
    char *r = ar_strdup(a, sb_str(&b));
    sb_free(&b);
    return r;
}

const char *launcher_check_text(arena_t *a, const launcher_t *l, const char *text)
{
    return l->check_text && text ? l->check_text(a, text) : NULL;
}

const char *launcher_check_scale(arena_t *a, const launcher_t *l, int scale)
{
    return l->check_scale ? l->check_scale(a, scale) : NULL;
}

char **launcher_wrap(arena_t *a, const launcher_t *l, const launcher_job_t *j,
                     char *const *inner)
{
    char **v = l->wrap(a, j, inner);
    if (j->nodes <= 1 || !l->exports || !j->env || !j->env[0]) return v;
    argv_t w = {0};
    argv_push(a, &w, v[0]);
    l->exports(a, &w, j->env);
    argv_push_argv(a, &w, v + 1);
    return argv_done(a, &w);
}

void launcher_read_log(arena_t *a, const launcher_t *l, const char *log, launch_facts_t *f)
{
    memset(f, 0, sizeof *f);
    if (l->read_log && log) l->read_log(a, log, f);
}
