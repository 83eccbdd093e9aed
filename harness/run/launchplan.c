#define _GNU_SOURCE
#include "harness/run/launchplan.h"

#include <string.h>

/* config key -> option: c_in -> --c-in; one letter -> -b */
static char *option_name(arena_t *a, const char *key)
{
    if (strlen(key) == 1) return ar_printf(a, "-%s", key);
    char *o = ar_printf(a, "--%s", key);
    for (char *p = o + 2; *p; p++)
        if (*p == '_') *p = '-';
    return o;
}

suite_vars_t launchplan_vars(arena_t *a, const char *rundir, const char *id)
{
    const char *sub = ar_printf(a, "launches/%s", id);
    return (suite_vars_t){.run_dir = rundir ? rundir : ".",
                          .launch_dir = rundir ? path_join(a, rundir, sub) : sub};
}

int launchplan_uses_launch_dir(const bench_spec_t *b)
{
    for (size_t i = 0; i < b->nconfig; i++)
        if (b->config[i].value && suite_vars_uses_launch_dir(b->config[i].value)) return 1;
    for (size_t i = 0; i < b->nargs; i++)
        if (suite_vars_uses_launch_dir(b->args[i])) return 1;
    return 0;
}

char **launchplan_bench_argv(arena_t *a, const suite_t *s, const bench_spec_t *b, int scale,
                       const char *record, const suite_vars_t *vars)
{
    argv_t v = {0};
    if (s->gpu_bind && machine_gpus_per_node(&s->machine) > 0) {
        argv_push(a, &v, exadl_self());
        argv_push(a, &v, "bind");
        argv_push(a, &v, "--");
    }
    argv_push(a, &v, b->program_path ? b->program_path : b->program);
    if (b->config_file) {
        argv_push(a, &v, "--config");
        argv_push(a, &v, b->config_file);
    }
    for (size_t i = 0; i < b->nconfig; i++) {
        argv_push(a, &v, option_name(a, b->config[i].key));
        if (b->config[i].value) argv_push(a, &v, suite_vars_expand(a, b->config[i].value, vars));
    }
    if (b->scaling == SCALING_STRONG) {
        argv_push(a, &v, "--batch");
        argv_push(a, &v, ar_printf(a, "%lld", b->global_batch / scale));
    }
    for (size_t i = 0; i < b->nargs; i++) argv_push(a, &v, suite_vars_expand(a, b->args[i], vars));
    if (record) {
        argv_push(a, &v, "--record");
        argv_push(a, &v, record);
    }
    return argv_done(a, &v);
}

int launchplan_ranks_per_node(const suite_t *s)
{
    return machine_ranks_per_node(&s->machine, s->ranks_per_node);
}

int launchplan_threads(const bench_spec_t *b)
{
    long long t = 0;
    for (size_t i = 0; b && i < b->nconfig; i++)
        if (!strcmp(b->config[i].key, "threads") && b->config[i].value &&
            (opt_parse_int(b->config[i].value, &t) || t < 1 || t > 4096))
            t = 0;
    return (int)t;
}

char **launchplan_wrap(arena_t *a, const suite_t *s, const bench_spec_t *b, char **inner,
                      int scale, int nodes, int rpn)
{
    const char **env = ar_alloc(a, ((b ? b->nenv : 0) + 1) * sizeof *env);
    for (size_t i = 0, n = 0; b && i < b->nenv; i++) /* an unset variable needs no carrying */
        if (b->env[i].value) env[n++] = b->env[i].key;
    launcher_job_t j = {.text = s->template_text,
                        .command = s->launcher_command,
                        .args = s->launcher_args,
                        .nargs = s->nlauncher_args,
                        .scale = scale,
                        .nodes = nodes,
                        .ranks_per_node = rpn,
                        .env = env,
                        .mpi = s->launcher_mpi && strcmp(s->launcher_mpi, "auto") ? s->launcher_mpi
                                                                                 : NULL,
                        .threads = launchplan_threads(b),
                        .cores_per_node = s->machine.cores};
    return launcher_wrap(a, s->launcher, &j, inner);
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
                suite_vars_t vars = launchplan_vars(a, rundir, l->id);
                l->dir = launchplan_uses_launch_dir(b) ? vars.launch_dir : NULL;
                char **inner = launchplan_bench_argv(a, s, b, l->scale, l->record, &vars);
                l->argv = launchplan_wrap(a, s, b, inner, l->scale, l->nodes, rpn);
                l->env = b->env;
                l->nenv = b->nenv;
            }
    }
}
