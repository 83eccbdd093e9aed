#define _GNU_SOURCE
#include "harness/suite/suite.h"

#include <ctype.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/ytree.h"
#include "harness/suite/suite_power.h"
#include "harness/suite/suite_values.h"
#include "harness/util/esc.h"
#include "harness/workloads/workload.h"

const char *const suite_top_keys[] = {
    "exadl_suite", "name", "description", "machine", "launcher", "launcher_command", "launcher_args",
    "launcher_mpi", "ranks_per_node", "gpu_bind", "kill_grace_s", "scales", "scaling", "repetitions",
    "timeout_s", "env", "references", "device_peak_flops", "benchmarks", "model",
    "regression_threshold_pct", "power", NULL};
const char *const suite_bench_keys[] = {
    "name", "program", "optional", "config", "config_file", "args", "scales", "scaling",
    "global_batch", "repetitions", "timeout_s", "env", NULL};


const char *scaling_name(scaling_kind k)
{
    return k == SCALING_STRONG ? "strong" : k == SCALING_SPATIAL ? "spatial" : "weak";
}

/* launcher_command and launcher_args that the chosen launcher would ignore
 * (a template holds its whole command; local starts the program itself) */
static int ignored_launcher_option(ctx_t *c, const ytnode *r, const suite_t *s)
{
    static const struct { const char *key; unsigned bit; } opts[] = {
        {"launcher_command", LAUNCHER_USES_COMMAND}, {"launcher_args", LAUNCHER_USES_ARGS}};
    for (size_t i = 0; i < 2; i++) {
        const ytnode *k = yt_get(r, opts[i].key);
        if (!k || yt_is_null(k) || (s->launcher->uses & opts[i].bit)) continue;
        sb_t b = {0};
        for (const launcher_t *const *l = launchers; *l; l++)
            if ((*l)->uses & opts[i].bit) sb_printf(&b, "%s%s", b.len ? ", " : "", (*l)->name);
        char *users = ar_strdup(c->a, sb_str(&b));
        sb_free(&b);
        return suite_err_at(c, k, "%s: the %s launcher would ignore it (only %s use it%s)", opts[i].key,
                            s->launcher->name, users,
                            s->launcher->matches ? "; a template holds its whole command" : "");
    }
    return 0;
}

/* ---- launcher: a name or a text, as harness/launchers/registry.c lists them ---------- */
static int parse_launcher(ctx_t *c, const ytnode *n, suite_t *s)
{
    const char *v;
    if (suite_scalar_str(c, n, "launcher", &v)) return -1;
    const launcher_t *l = launcher_select(v);
    if (!l) {
        const char *sug = launcher_suggest(v);
        if (sug) return suite_err_at(c, n, "unknown launcher '%s' (did you mean '%s'?)", v, sug);
        return suite_err_at(c, n, "unknown launcher '%s': use %s", v, launcher_usage(c->a));
    }
    s->launcher = l;
    s->template_text = l->matches ? v : NULL;
    const char *why = launcher_check_text(c->a, l, s->template_text);
    return why ? suite_err_at(c, n, "%s", why) : 0;
}

/* ---- model: {machine, base, scales} (every key optional) -------------------------------- */
static int parse_model(ctx_t *c, const ytnode *n, suite_t *s)
{
    static const char *const keys[] = {"machine", "base", "scales", NULL};
    s->model = 1;
    if (yt_is_null(n)) return 0;
    if (yt_expect(c->d, n, YT_MAP, "model", c->err, c->errlen) ||
        yt_check_keys(c->d, n, keys, c->err, c->errlen))
        return -1;
    const ytnode *k;
    if ((k = yt_get(n, "machine"))) {
        const char *m;
        if (suite_scalar_str(c, k, "model.machine", &m)) return -1;
        char *p = path_join(c->a, c->dir, m);
        if (!path_is_file(p)) p = path_join(c->a, exadl_root(), m);
        if (!path_is_file(p))
            return suite_err_at(c, k, "machine file '%s' not found (looked beside the suite and "
                                "in %s)", m, exadl_root());
        s->model_machine = path_abs(c->a, p);
    }
    if ((k = yt_get(n, "base")) && suite_scalar_str(c, k, "model.base", &s->model_base)) return -1;
    if ((k = yt_get(n, "scales")) &&
        suite_parse_scales(c, k, &s->model_scales, &s->nmodel_scales))
        return -1;
    return 0;
}

/* ---- one benchmark ---------------------------------------------------------------- */
/* a path is relative to the suite's folder; a bare name is exadl's program,
 * else a program beside the suite, else one on PATH */
static const char *resolve_program(ctx_t *c, const char *prog)
{
    if (strchr(prog, '/')) {
        char *p = path_join(c->a, c->dir, prog);
        return path_is_exec(p) ? path_abs(c->a, p) : NULL;
    }
    char *p = path_join(c->a, exadl_bindir(), prog);
    if (path_is_exec(p)) return p;
    p = path_join(c->a, c->dir, prog);
    if (path_is_exec(p) && !path_is_dir(p)) return path_abs(c->a, p);
    return path_search(c->a, prog);
}

static int bench_name_cmp(const void *x, const void *y)
{
    return strcmp(((const bench_spec_t *)x)->name, ((const bench_spec_t *)y)->name);
}

static void no_free(void *p) { (void)p; }

static int parse_bench(ctx_t *c, const ytnode *n, const suite_t *s, bench_spec_t *b,
                       const bench_spec_t *defaults)
{
    if (yt_expect(c->d, n, YT_MAP, "each entry of benchmarks", c->err, c->errlen)) return -1;
    if (yt_check_keys(c->d, n, suite_bench_keys, c->err, c->errlen)) return -1;
    *b = *defaults;
    b->line = n->line;
    size_t envcap = 0; /* the suite's env, shared: copied only for an env: of its own */
    const ytnode *k;
    if (!(k = yt_get(n, "program")))
        return suite_err_at(c, n, "a benchmark needs program: (%s, or a path)",
                            workload_programs(c->a));
    if (suite_scalar_str(c, k, "program", &b->program)) return -1;
    b->program_path = resolve_program(c, b->program);
    if ((k = yt_get(n, "name"))) {
        if (suite_scalar_str(c, k, "name", &b->name)) return -1;
    } else {
        char *nm = sanitize_name(c->a, path_basename(b->program));
        char *dot = strrchr(nm, '.');
        if (dot && dot != nm) *dot = 0;
        b->name = nm;
    }
    if (strspn(b->name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
            strlen(b->name) || !b->name[0])
        return suite_err_at(c, k ? k : n, "benchmark name '%s' may hold only letters, digits, '.', "
                                    "'_' and '-'", b->name);
    if ((k = yt_get(n, "optional")) && yt_bool(c->d, k, &b->optional, c->err, c->errlen))
        return -1;
    if ((k = yt_get(n, "config")) && suite_parse_config(c, k, b)) return -1;
    if ((k = yt_get(n, "config_file"))) {
        const char *f;
        if (suite_scalar_str(c, k, "config_file", &f)) return -1;
        char *p = path_join(c->a, c->dir, f);
        if (!path_is_file(p)) return suite_err_at(c, k, "config_file '%s' not found (as %s)", f, p);
        b->config_file = path_abs(c->a, p);
    }
    if ((k = yt_get(n, "args"))) {
        if (suite_parse_strlist(c, k, "args", &b->args, &b->nargs)) return -1;
        for (size_t i = 0; i < k->n; i++)
            if (suite_check_vars(c, k->items[i], "args")) return -1;
    }
    if ((k = yt_get(n, "scales")) && suite_parse_scales(c, k, &b->scales, &b->nscales)) return -1;
    const ytnode *sc = k ? k : n;
    if ((k = yt_get(n, "scaling")) && suite_parse_scaling(c, k, &b->scaling)) return -1;
    long long v;
    if ((k = yt_get(n, "repetitions"))) {
        if (suite_int_in(c, k, "repetitions", 1, 1000, &v)) return -1;
        b->repetitions = (int)v;
    }
    if ((k = yt_get(n, "timeout_s")) &&
        suite_num_in(c, k, "timeout_s", SUITE_TIMEOUT_MIN_S, SUITE_TIMEOUT_MAX_S, &b->timeout_s))
        return -1;
    if ((k = yt_get(n, "env")) && suite_parse_env(c, k, &b->env, &b->nenv, &envcap)) return -1;
    if ((k = yt_get(n, "global_batch"))) {
        if (suite_int_in(c, k, "global_batch", 1, 1LL << 40, &b->global_batch)) return -1;
        if (b->scaling != SCALING_STRONG)
            return suite_err_at(c, k, "global_batch applies to scaling: strong only (weak scaling "
                                "keeps the per-rank batch of config)");
    }
    if (b->scaling == SCALING_STRONG) {
        if (!b->global_batch)
            return suite_err_at(c, n, "scaling: strong needs global_batch: (the samples per step "
                                "over all ranks, divided among them)");
        for (size_t i = 0; i < b->nconfig; i++)
            if (!strcmp(b->config[i].key, "batch"))
                return suite_err_at(c, n, "scaling: strong sets the per-rank batch from "
                                    "global_batch; leave batch out of config");
        for (size_t i = 0; i < b->nscales; i++)
            if (b->global_batch % b->scales[i])
                return suite_err_at(c, sc, "global_batch %lld cannot be split over %d ranks",
                              b->global_batch, b->scales[i]);
    }
    for (size_t i = 0; i < b->nscales; i++) {
        const char *why = launcher_check_scale(c->a, s->launcher, b->scales[i]);
        /* a job step cannot outgrow the allocation it runs in */
        if (!why && s->launcher->job_steps)
            why = machine_check_launch(c->a, c->m, b->scales[i], machine_ranks_per_node(c->m, s->ranks_per_node));
        if (why) return suite_err_at(c, sc, "%s", why);
    }
    if (!b->program_path && !b->optional)
        return suite_err_at(c, yt_get(n, "program"), "program '%s' not found (looked in %s%s%s)",
                      b->program, strchr(b->program, '/') ? "" : exadl_bindir(),
                      strchr(b->program, '/') ? c->dir : ", beside the suite in ",
                      strchr(b->program, '/') ? "" : ar_printf(c->a, "%s and on PATH", c->dir));
    return 0;
}

/* ---- the whole suite ------------------------------------------------------------------ */
static int parse_root(ctx_t *c, const ytnode *r, suite_t *s)
{
    if (!r) return yt_err(c->err, c->errlen, c->d, NULL, "the suite file is empty");
    if (yt_expect(c->d, r, YT_MAP, "a suite", c->err, c->errlen)) return -1;
    if (yt_check_keys(c->d, r, suite_top_keys, c->err, c->errlen)) return -1;
    const ytnode *k;
    long long v;
    if ((k = yt_get(r, "exadl_suite"))) {
        if (yt_int(c->d, k, &v, c->err, c->errlen)) return -1;
        if (v != SUITE_FORMAT_VERSION)
            return suite_err_at(c, k, "exadl_suite %lld: this exadl reads version %d", v,
                          SUITE_FORMAT_VERSION);
    }
    if ((k = yt_get(r, "name"))) {
        if (suite_scalar_str(c, k, "name", &s->name)) return -1;
        if (esc_has_control(s->name)) /* it heads report.md and every table */
            return suite_err_at(c, k, "name: control characters (a newline, an escape) are not "
                                "allowed in a name");
    } else {
        char *nm = sanitize_name(c->a, path_basename(s->path));
        char *dot = strrchr(nm, '.');
        if (dot && dot != nm) *dot = 0;
        s->name = nm;
    }
    if ((k = yt_get(r, "description")) && suite_scalar_str(c, k, "description", &s->description))
        return -1;
    if ((k = yt_get(r, "machine"))) {
        if (suite_scalar_str(c, k, "machine", &s->machine_name)) return -1;
        /* a name shown in every table and plot title */
        if (!s->machine_name[0] || strlen(s->machine_name) > 100)
            return suite_err_at(c, k, "machine: give a name of 1 to 100 characters");
        if (esc_has_control(s->machine_name))
            return suite_err_at(c, k, "machine: control characters (a newline, an escape) are not "
                                "allowed in a name");
    }
    s->launcher = launcher_default();
    if ((k = yt_get(r, "launcher")) && parse_launcher(c, k, s)) return -1;
    if ((k = yt_get(r, "launcher_command")) &&
        suite_scalar_str(c, k, "launcher_command", &s->launcher_command))
        return -1;
    if ((k = yt_get(r, "launcher_args")) &&
        suite_parse_strlist(c, k, "launcher_args", &s->launcher_args, &s->nlauncher_args))
        return -1;
    if (ignored_launcher_option(c, r, s)) return -1;
    if ((k = yt_get(r, "launcher_mpi"))) {
        if (suite_scalar_str(c, k, "launcher_mpi", &s->launcher_mpi)) return -1;
        if (!s->launcher->job_steps)
            return suite_err_at(c, k, "launcher_mpi applies to launcher: srun (launcher %s takes "
                                "its MPI settings from launcher_args or its template)",
                                s->launcher->name);
        if (!s->launcher_mpi[0] ||
            strspn(s->launcher_mpi, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(s->launcher_mpi))
            return suite_err_at(c, k, "launcher_mpi '%s': a plugin name of `srun --mpi=list` "
                                "(pmix, pmi2, none ...) or auto", s->launcher_mpi);
        s->launcher_mpi_source = "the suite (launcher_mpi)";
    }
    if ((k = yt_get(r, "ranks_per_node")) && !(k->kind == YT_SCALAR && !strcmp(k->str, "auto"))) {
        if (suite_int_in(c, k, "ranks_per_node", 1, 4096, &v)) return -1;
        s->ranks_per_node = (int)v;
    }
    s->gpu_bind = 1;
    if ((k = yt_get(r, "gpu_bind"))) {
        if (k->kind == YT_SCALAR && !strcmp(k->str, "local_rank")) s->gpu_bind = 1;
        else if (k->kind == YT_SCALAR && !strcmp(k->str, "none")) s->gpu_bind = 0;
        else return suite_err_at(c, k, "gpu_bind must be local_rank or none");
    }
    s->kill_grace_s = 5;
    if ((k = yt_get(r, "kill_grace_s")) && suite_num_in(c, k, "kill_grace_s", SUITE_GRACE_MIN_S,
                                                       SUITE_GRACE_MAX_S, &s->kill_grace_s))
        return -1;
    if ((k = yt_get(r, "device_peak_flops")) && !yt_is_null(k) &&
        suite_num_in(c, k, "device_peak_flops", 1, SUITE_PEAK_MAX_FLOPS, &s->device_peak_flops))
        return -1;
    double thr_pct; /* compare and history read it from the run folder's suite.yaml */
    if ((k = yt_get(r, "regression_threshold_pct")) && !yt_is_null(k) &&
        suite_num_in(c, k, "regression_threshold_pct", 0, 1000, &thr_pct))
        return -1;
    if ((k = yt_get(r, "references"))) {
        const char **refs;
        size_t nref;
        if (suite_parse_strlist(c, k, "references", &refs, &nref)) return -1;
        s->references = ar_alloc(c->a, (nref + 1) * sizeof *s->references);
        for (size_t i = 0; i < nref; i++) {
            char *p = path_join(c->a, c->dir, refs[i]);
            if (!path_is_file(p)) p = path_join(c->a, exadl_root(), refs[i]);
            if (!path_is_file(p))
                return suite_err_at(c, k->items[i], "reference file '%s' not found (looked beside "
                                              "the suite and in %s)", refs[i], exadl_root());
            s->references[s->nreferences++] = path_abs(c->a, p);
        }
    }
    if ((k = yt_get(r, "model")) && parse_model(c, k, s)) return -1;
    /* suite-wide defaults every benchmark inherits */
    bench_spec_t def = {.scaling = SCALING_WEAK, .repetitions = 1, .timeout_s = 600};
    size_t envcap = 0;
    if ((k = yt_get(r, "scales")) && suite_parse_scales(c, k, &def.scales, &def.nscales)) return -1;
    if (!k) { /* no scales: auto */
        int v2[MAX_SCALES];
        if (suite_powers(c, r, 1, machine_devices(c->m), 2, v2, &def.nscales)) return -1;
        def.scales = ar_alloc(c->a, def.nscales * sizeof *def.scales);
        memcpy(def.scales, v2, def.nscales * sizeof *v2);
    }
    if ((k = yt_get(r, "scaling")) && suite_parse_scaling(c, k, &def.scaling)) return -1;
    if ((k = yt_get(r, "repetitions"))) {
        if (suite_int_in(c, k, "repetitions", 1, 1000, &v)) return -1;
        def.repetitions = (int)v;
    }
    if ((k = yt_get(r, "timeout_s")) &&
        suite_num_in(c, k, "timeout_s", SUITE_TIMEOUT_MIN_S, SUITE_TIMEOUT_MAX_S, &def.timeout_s))
        return -1;
    /* the machine's power sources (docs/energy.md), which env: may override */
    if ((k = yt_get(r, "power")) && suite_parse_power(c, k, &def.env, &def.nenv, &envcap))
        return -1;
    if ((k = yt_get(r, "env")) && suite_parse_env(c, k, &def.env, &def.nenv, &envcap)) return -1;
    s->env = def.env;
    s->nenv = def.nenv;
    const ytnode *bl = yt_get(r, "benchmarks");
    if (!bl) return suite_err_at(c, r, "the suite has no benchmarks: list");
    if (yt_expect(c->d, bl, YT_SEQ, "benchmarks", c->err, c->errlen)) return -1;
    if (bl->n == 0) return suite_err_at(c, bl, "benchmarks is an empty list");
    s->bench = ar_alloc(c->a, bl->n * sizeof *s->bench);
    void *names = NULL; /* the names so far, a balanced tree: O(n log n), not every pair */
    for (size_t i = 0; i < bl->n; i++) {
        bench_spec_t *b = &s->bench[i];
        int rc = parse_bench(c, bl->items[i], s, b, &def);
        bench_spec_t **seen = rc ? NULL : tsearch(b, &names, bench_name_cmp);
        CHECK(rc || seen, "out of memory indexing benchmark names");
        if (!rc && *seen != b)
            rc = suite_err_at(c, bl->items[i], "benchmark name '%s' is used twice (line %d); "
                              "give one a name:", b->name, (*seen)->line);
        if (rc) {
            tdestroy(names, no_free);
            return -1;
        }
        s->nbench++;
    }
    tdestroy(names, no_free);
    if (s->model_base) {
        int found = 0;
        for (size_t i = 0; i < s->nbench; i++) found |= !strcmp(s->bench[i].name, s->model_base);
        if (!found)
            return suite_err_at(c, yt_get(yt_get(r, "model"), "base"), "model.base: no benchmark "
                                "is named '%s'", s->model_base);
    }
    return 0;
}

int suite_load_text(arena_t *a, const char *text, size_t len, const char *name,
                    const char *dir, const machine_t *m, suite_t *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    ytdoc *d = yt_load_string(text, len, name, err, errlen);
    if (!d) return -1;
    ar_defer(a, (void (*)(void *))yt_free, d);
    s->path = ar_strdup(a, name);
    s->dir = ar_strdup(a, dir ? dir : ".");
    s->text = ar_strndup(a, text, len);
    s->textlen = len;
    s->machine = *m;
    ctx_t c = {.a = a, .d = d, .err = err, .errlen = errlen, .m = m, .dir = s->dir};
    return parse_root(&c, d->root, s);
}

int suite_load_file(arena_t *a, const char *path, const machine_t *m, suite_t *s, char *err,
                    size_t errlen)
{
    size_t len;
    char *text = fileio_read(path, &len, (size_t)64 << 20, err, errlen);
    if (!text) return -1;
    int rc = suite_load_text(a, text, len, path, path_dirname(a, path), m, s, err, errlen);
    free(text);
    return rc;
}
