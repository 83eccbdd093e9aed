#define _GNU_SOURCE
#include "harness/run/launchplan.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    char **v;
    size_t n, cap;
} argv_t;

static void push(arena_t *a, argv_t *v, const char *s)
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

char *argv_join(arena_t *a, char *const *argv)
{
    sb_t b = {0};
    for (size_t i = 0; argv[i]; i++) sb_printf(&b, "%s%s", i ? " " : "", shell_quote(a, argv[i]));
    char *r = ar_strdup(a, sb_str(&b));
    sb_free(&b);
    return r;
}

/* config key -> option: c_in -> --c-in; one letter -> -b */
static char *option_name(arena_t *a, const char *key)
{
    if (strlen(key) == 1) return ar_printf(a, "-%s", key);
    char *o = ar_printf(a, "--%s", key);
    for (char *p = o + 2; *p; p++)
        if (*p == '_') *p = '-';
    return o;
}

char **launchplan_bench_argv(arena_t *a, const suite_t *s, const bench_spec_t *b, int scale,
                       const char *record)
{
    argv_t v = {0};
    if (s->gpu_bind && s->machine.gpus > 0) {
        push(a, &v, exadl_self());
        push(a, &v, "bind");
        push(a, &v, "--");
    }
    push(a, &v, b->program_path ? b->program_path : b->program);
    if (b->config_file) {
        push(a, &v, "--config");
        push(a, &v, b->config_file);
    }
    for (size_t i = 0; i < b->nconfig; i++) {
        push(a, &v, option_name(a, b->config[i].key));
        if (b->config[i].value) push(a, &v, b->config[i].value);
    }
    if (b->scaling == SCALING_STRONG) {
        push(a, &v, "--batch");
        push(a, &v, ar_printf(a, "%lld", b->global_batch / scale));
    }
    for (size_t i = 0; i < b->nargs; i++) push(a, &v, b->args[i]);
    if (record) {
        push(a, &v, "--record");
        push(a, &v, record);
    }
    return v.v;
}

int launchplan_ranks_per_node(const suite_t *s)
{
    if (s->ranks_per_node) return s->ranks_per_node;
    if (s->machine.slurm_tasks_per_node > 0) return s->machine.slurm_tasks_per_node;
    if (s->machine.gpus > 0) return s->machine.gpus;
    return 0;
}

char **launchplan_wrap(arena_t *a, const suite_t *s, char **inner, int scale, int nodes, int rpn)
{
    argv_t v = {0};
    const char *env_mpirun = getenv("EXADL_MPIRUN");
    switch (s->launcher) {
    case LAUNCH_LOCAL: return inner;
    case LAUNCH_MPIRUN:
        push(a, &v, s->launcher_command ? s->launcher_command
                                        : (env_mpirun && *env_mpirun ? env_mpirun : "mpirun"));
        push(a, &v, "-np");
        push(a, &v, ar_printf(a, "%d", scale));
        if (nodes > 1) { /* Open MPI: spread evenly and carry the suite's variables */
            push(a, &v, "--map-by");
            push(a, &v, ar_printf(a, "ppr:%d:node", rpn));
        }
        break;
    case LAUNCH_SRUN:
        push(a, &v, s->launcher_command ? s->launcher_command : "srun");
        push(a, &v, ar_printf(a, "--ntasks=%d", scale));
        push(a, &v, ar_printf(a, "--nodes=%d", nodes));
        if (rpn) push(a, &v, ar_printf(a, "--ntasks-per-node=%d", rpn < scale ? rpn : scale));
        push(a, &v, "--kill-on-bad-exit=1");
        break;
    case LAUNCH_TEMPLATE: {
        sb_t t = {0};
        for (const char *p = s->template_text; *p;) {
            if (!strncmp(p, "{cmd}", 5)) {
                sb_puts(&t, argv_join(a, inner));
                p += 5;
            } else if (!strncmp(p, "{ranks}", 7)) {
                sb_printf(&t, "%d", scale);
                p += 7;
            } else if (!strncmp(p, "{nodes}", 7)) {
                sb_printf(&t, "%d", nodes);
                p += 7;
            } else if (!strncmp(p, "{ranks_per_node}", 16)) {
                sb_printf(&t, "%d", rpn && rpn < scale ? rpn : scale);
                p += 16;
            } else {
                sb_putn(&t, p++, 1);
            }
        }
        push(a, &v, "/bin/sh");
        push(a, &v, "-c");
        push(a, &v, sb_str(&t));
        sb_free(&t);
        return v.v;
    }
    }
    for (size_t i = 0; i < s->nlauncher_args; i++) push(a, &v, s->launcher_args[i]);
    for (size_t i = 0; inner[i]; i++) push(a, &v, inner[i]);
    return v.v;
}

static void add_exports(arena_t *a, const suite_t *s, const bench_spec_t *b, char ***argvp)
{
    /* Open MPI over several nodes: -x NAME carries each suite variable along */
    if (s->launcher != LAUNCH_MPIRUN || !b->nenv) return;
    argv_t v = {0};
    char **old = *argvp;
    push(a, &v, old[0]);
    for (size_t i = 0; i < b->nenv; i++)
        if (b->env[i].value) {
            push(a, &v, "-x");
            push(a, &v, b->env[i].key);
        }
    for (size_t i = 1; old[i]; i++) push(a, &v, old[i]);
    *argvp = v.v;
}

void launchplan_build(arena_t *a, const suite_t *s, const char *rundir, launchplan_t *p)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nbench; i++) n += (size_t)s->bench[i].repetitions * s->bench[i].nscales;
    p->l = ar_alloc(a, (n ? n : 1) * sizeof *p->l);
    p->n = 0;
    int rpn = launchplan_ranks_per_node(s);
    for (size_t i = 0; i < s->nbench; i++) {
        const bench_spec_t *b = &s->bench[i];
        for (int r = 1; r <= b->repetitions; r++)
            for (size_t k = 0; k < b->nscales; k++) {
                launch_t *l = &p->l[p->n];
                l->index = p->n++;
                l->b = b;
                l->scale = b->scales[k];
                l->rep = r;
                l->ranks_per_node = rpn && rpn < l->scale ? rpn : l->scale;
                l->nodes = rpn ? (l->scale + rpn - 1) / rpn : 1;
                l->id = ar_printf(a, "%s-n%d-r%d", b->name, l->scale, r);
                char *rec = ar_printf(a, "records/%s.yaml", l->id);
                char *log = ar_printf(a, "logs/%s.log", l->id);
                l->record = rundir ? path_join(a, rundir, rec) : rec;
                l->log = rundir ? path_join(a, rundir, log) : log;
                char **inner = launchplan_bench_argv(a, s, b, l->scale, l->record);
                l->argv = launchplan_wrap(a, s, inner, l->scale, l->nodes, rpn);
                if (l->nodes > 1) add_exports(a, s, b, &l->argv);
                l->env = b->env;
                l->nenv = b->nenv;
            }
    }
}
