/* exadl model --spatial --stemdl: STEMDL's plan model (docs/spatial.md "The
 * plan model"; benchmarks/networks/fcdensenet/fd_model.c) asked through
 * `stemdl --describe`, with the links from a machine file or a pingpong
 * record and, optionally, the kernels measured on this machine: every
 * candidate, the choice, its memory per rank against a limit, and the exact
 * command and suite entry that run it, carrying the prediction
 * (--model-predicted-step-s) into the run's record, where the report's
 * spatial section sets it beside the measured step.  The model itself lives in stemdl (one
 * copy); this is its front end in the harness. */
#define _GNU_SOURCE
#include "harness/cli/cmd_model_stemdl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/opt.h"
#include "benchmarks/common/ytree.h"
#include "harness/cli/cmds.h"
#include "harness/proc/launch.h"
#include "harness/util/esc.h"
#include "harness/util/util.h"

const char help_model_stemdl[] =
    "usage: exadl model --spatial --stemdl [--links FILE] [--flops F] [--conv-times]\n"
    "                   [--memory-bytes M] [--name NAME] [--record FILE] -- STEMDL-OPTIONS...\n"
    "\n"
    "STEMDL's plan model (docs/spatial.md \"The plan model\"): runs `stemdl --describe` with\n"
    "STEMDL-OPTIONS (which must split: --spatial N or HxW, the ranks per sample, and --batch,\n"
    "the samples per group), prints every candidate plan (data parallel, every grid x\n"
    "per-level plan) with its predicted step and memory per rank, the chosen plan, and the\n"
    "command and the suite entry that run it; both carry the predicted step\n"
    "(--model-predicted-step-s), which the run records and the report sets beside the\n"
    "measured step (its spatial section).\n"
    "\n"
    "  --links FILE        alpha and B: a machine file (reference/machines/*.yaml) or a\n"
    "                      collectives pingpong record (stemdl --model-links)\n"
    "  --flops F           one rank's sustained FLOP/s (the rest, or all, of the FLOPs)\n"
    "  --conv-times        each convolution and other kernel at its time measured on this\n"
    "                      machine (cached;\n"
    "                      stemdl --model-conv-times on)\n"
    "  --memory-bytes M    what one rank may hold: plans over it do not fit\n"
    "  --name NAME         the suite entry's name (default stemdl-PLAN)\n"
    "  --record FILE       a stemdl record: its command's options first, then STEMDL-OPTIONS\n"
    "                      (which may then be empty, or change some: the last one wins)\n"
    "\n"
    "Exit status: 0 a plan was chosen, 1 none fits or stemdl failed, 2 bad input.\n";

typedef struct {
    const char *links, *flops, *memory, *name, *record;
    int conv_times;
    char **sargs; /* STEMDL-OPTIONS */
    int nsargs;
} topts_t;

static int parse(int argc, char **argv, topts_t *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        double x;
        if (!strcmp(k, "--")) {
            o->sargs = argv + i + 1;
            o->nsargs = argc - i - 1;
            break;
        }
        if (!strcmp(k, "--spatial") || !strcmp(k, "--stemdl")) continue;
        if (!strcmp(k, "--conv-times")) { o->conv_times = 1; continue; }
        const char **dst = !strcmp(k, "--links") ? &o->links : !strcmp(k, "--flops") ? &o->flops
                           : !strcmp(k, "--memory-bytes") ? &o->memory
                           : !strcmp(k, "--name") ? &o->name
                           : !strcmp(k, "--record") ? &o->record : NULL;
        if (!dst)
            return usage_error("model", "--stemdl: unknown option '%s' (stemdl's own go after --)",
                               esc_term_buf((char[128]){0}, 128, k));
        if (!v) return usage_error("model", "%s needs a value", k);
        i++;
        if (dst != &o->links && dst != &o->name && dst != &o->record &&
            (opt_parse_double(v, &x) || !isfinite(x) || x <= 0 || x > 1e21))
            return usage_error("model", "%s: '%s' is not a positive number", k,
                               esc_term_buf((char[128]){0}, 128, v));
        if (dst == &o->name && (!*v || strspn(v, "abcdefghijklmnopqrstuvwxyz"
                                                "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != strlen(v)))
            return usage_error("model", "--name: '%s' is not a name (letters, digits, - _ .)",
                               esc_term_buf((char[128]){0}, 128, v));
        *dst = v;
    }
    if (!o->nsargs && !o->record)
        return usage_error("model", "--stemdl needs stemdl's options after -- (e.g. -- --preset "
                           "small --spatial 2 --batch 2)");
    if (!o->links)
        return usage_error("model", "--stemdl needs --links FILE (a machine file or a pingpong "
                           "record) for the halo, shuffle and allreduce costs");
    if (!o->flops && !o->conv_times)
        return usage_error("model", "--stemdl needs --flops F or --conv-times for the compute");
    for (int i = 0; i < o->nsargs; i++)
        if (!strncmp(o->sargs[i], "--model-", 8) || !strcmp(o->sargs[i], "--describe"))
            return usage_error("model", "--stemdl: '%s' is set by exadl (use --links, --flops, "
                               "--conv-times, --memory-bytes)", o->sargs[i]);
    return 0;
}

/* The options of the stemdl run a record holds (its command, less the
 * program, --record FILE and what exadl sets), then o's own after --. */
static int from_record(arena_t *a, topts_t *o)
{
    char err[600];
    ytdoc *d = yt_load_file(o->record, err, sizeof err);
    if (!d) return usage_error("model", "--record: %s", err);
    const ytnode *b = d->root && d->root->kind == YT_MAP ? yt_get(d->root, "benchmark") : NULL;
    const ytnode *c = b ? yt_get(d->root, "command") : NULL;
    if (!b || b->kind != YT_SCALAR || strcmp(b->str, "stemdl") || !c || c->kind != YT_SEQ ||
        c->n < 1) {
        yt_free(d);
        return usage_error("model", "--record %s: not a stemdl record with its command",
                           esc_term(a, o->record));
    }
    char **v = ar_alloc(a, sizeof *v * (c->n + (size_t)o->nsargs + 1));
    int n = 0;
    for (size_t i = 1; i < c->n; i++) {
        const ytnode *x = c->items[i];
        if (x->kind != YT_SCALAR) continue;
        if (!strcmp(x->str, "--record") || !strncmp(x->str, "--model-", 8)) {
            i++; /* and its value */
            continue;
        }
        if (!strcmp(x->str, "--describe")) continue;
        v[n++] = ar_strdup(a, x->str);
    }
    yt_free(d);
    for (int i = 0; i < o->nsargs; i++) v[n++] = o->sargs[i];
    o->sargs = v;
    o->nsargs = n;
    return 0;
}

/* A candidate row of --describe's plan table. */
typedef struct {
    char name[24];
    long long flops, mem;
    char pred[32];
    int refused;
} row_t;

static int valid_plan(const char *s)
{
    return *s && strlen(s) < 24 && strspn(s, "0123456789x:hsdta") == strlen(s);
}

static void yaml_scalar(FILE *f, const char *s)
{
    if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-") ==
                  strlen(s))
        fputs(s, f);
    else {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"' || *s == '\\') fputc('\\', f);
            if ((unsigned char)*s >= 0x20) fputc(*s, f);
        }
        fputc('"', f);
    }
}

static int run(arena_t *a, topts_t *o)
{
    if (o->record) {
        int rc = from_record(a, o);
        if (rc) return rc;
    }
    const char *prog = path_join(a, exadl_bindir(), "stemdl");
    char **argv = ar_alloc(a, sizeof *argv * (size_t)(o->nsargs + 12));
    int n = 0;
    argv[n++] = (char *)prog;
    for (int i = 0; i < o->nsargs; i++) argv[n++] = o->sargs[i];
    argv[n++] = "--describe";
    argv[n++] = "--model-links";
    argv[n++] = (char *)o->links;
    if (o->flops) argv[n++] = "--model-flops", argv[n++] = (char *)o->flops;
    if (o->memory) argv[n++] = "--model-memory-bytes", argv[n++] = (char *)o->memory;
    if (o->conv_times) argv[n++] = "--model-conv-times", argv[n++] = "on";
    argv[n] = NULL;
    /* stemdl's stderr: a fresh file of our own (mkstemp), for its error line */
    char *log = ar_printf(a, "%s/exadl-model-stemdl-XXXXXX",
                          getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    int lfd = mkstemp(log);
    if (lfd < 0) {
        fprintf(stderr, "exadl model: error: cannot create a temporary file in %s\n",
                esc_term(a, path_dirname(a, log)));
        return 1;
    }
    close(lfd);
    spawn_opts_t so = {.argv = argv, .log = log, .timeout_s = 3600, .grace_s = 2, .capture = 1};
    spawn_result_t r;
    int bad = spawn_run(&so, &r);
    if (bad) {
        const char *tail = log_tail(a, log, 3, 2000);
        fprintf(stderr, "exadl model: error: stemdl --describe failed (%s): %s\n", r.why,
                esc_term(a, tail ? tail : ""));
        remove(log);
        int code = r.exited && r.code == 2 ? 2 : 1;
        spawn_result_free(&r);
        return code;
    }
    /* stemdl's warnings (a kernel cache it cannot write) are the user's too */
    char *errs = log_tail(a, log, 8, 4000), *sv = NULL;
    for (char *l = errs ? strtok_r(errs, "\n", &sv) : NULL; l; l = strtok_r(NULL, "\n", &sv))
        if (strstr(l, ": warning: ")) fprintf(stderr, "%s\n", esc_term(a, l));
    remove(log);
    /* the table between "spatial_plans" and the next unindented line */
    row_t rows[64];
    int nr = 0, in = 0, batch = 0, S = 0;
    char chosen[24] = "", links[400] = "", conv[400] = "", *save = NULL;
    for (char *l = strtok_r(r.out ? r.out : "", "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(l, "spatial_plans ", 14)) {
            in = 1;
            if (sscanf(l + 14, " %d ranks per sample, batch %d", &S, &batch) != 2) S = 0;
            continue;
        }
        if (in && l[0] == ' ' && l[1] == ' ') {
            row_t *w = &rows[nr];
            char name[64];
            if (sscanf(l, " %63s", name) != 1 || !strcmp(name, "plan") || nr == 64) continue;
            if (!valid_plan(name)) continue;
            memset(w, 0, sizeof *w);
            snprintf(w->name, sizeof w->name, "%s", name);
            w->refused = strstr(l, "refused:") != NULL;
            long long d[8];
            char c[32], other[32];
            /* ... memory_bytes conv_s other_s predicted_s (fd_model.c's table) */
            if (!w->refused &&
                sscanf(l, " %*s %lld %lld %lld %lld %lld %lld %lld %lld %31s %31s %31s", &w->flops,
                       &d[0], &d[1], &d[2], &d[3], &d[4], &d[5], &w->mem, c, other,
                       w->pred) != 11)
                continue;
            nr++;
            continue;
        }
        in = 0;
        if (!strncmp(l, "spatial_plan_chosen", 19)) {
            char nm[64];
            if (sscanf(l + 19, " %63s", nm) == 1 && valid_plan(nm) && strcmp(nm, "none:"))
                snprintf(chosen, sizeof chosen, "%s", nm);
        } else if (!strncmp(l, "model_links", 11)) {
            snprintf(links, sizeof links, "%s", l + 11 + strspn(l + 11, " "));
        } else if (!strncmp(l, "conv_times", 10)) {
            snprintf(conv, sizeof conv, "%s", l + 10 + strspn(l + 10, " "));
        }
    }
    spawn_result_free(&r);
    if (S < 2 || nr == 0) {
        fprintf(stderr, "exadl model: error: stemdl --describe gave no candidate plans: its "
                "options must split samples (--spatial N or HxW with N > 1)\n");
        return 2;
    }
    printf("exadl model --spatial --stemdl: %d ranks per sample group, batch %d per group\n", S,
           batch);
    printf("  links: %s\n", esc_term(a, links));
    if (*conv) printf("  convolutions: %s\n", esc_term(a, conv));
    printf("  memory limit per rank: %s\n\n", o->memory ? o->memory : "none");
    printf("  %-10s %12s %16s %14s\n", "plan", "predicted_s", "flops", "memory_bytes");
    for (int i = 0; i < nr; i++)
        if (rows[i].refused) printf("  %-10s refused or does not fit\n", rows[i].name);
        else
            printf("  %-10s %12s %16lld %14lld%s\n", rows[i].name, esc_term(a, rows[i].pred),
                   rows[i].flops, rows[i].mem, !strcmp(rows[i].name, chosen) ? "  <- chosen" : "");
    const row_t *c = NULL;
    for (int i = 0; i < nr; i++)
        if (!strcmp(rows[i].name, chosen)) c = &rows[i];
    if (!c) {
        printf("\nchosen: none (no plan is allowed and fits)\n");
        return 1;
    }
    /* the choice as stemdl options: data is --spatial 1 at batch / S per rank */
    int data = !strcmp(c->name, "data");
    char grid[16] = "1", plan[16] = "h", b[24];
    if (!data) {
        const char *colon = strchr(c->name, ':');
        snprintf(grid, sizeof grid, "%.*s", (int)(colon - c->name), c->name);
        snprintf(plan, sizeof plan, "%s", colon + 1);
    }
    snprintf(b, sizeof b, "%d", data ? batch / S : batch);
    printf("\nchosen: %s, predicted %s s per step, %lld bytes of network buffers per rank%s\n",
           c->name, esc_term(a, c->pred), c->mem,
           o->memory ? (atof(o->memory) >= (double)c->mem ? " (fits the limit)" : "") : "");
    printf("run it:\n  mpirun -np %d %s", S, shell_quote(a, prog));
    for (int i = 0; i < o->nsargs; i++) {
        const char *k = o->sargs[i];
        if ((!strcmp(k, "--spatial") || !strcmp(k, "--spatial-plan") || !strcmp(k, "--batch")) &&
            i + 1 < o->nsargs) {
            i++;
            continue;
        }
        printf(" %s", esc_term(a, shell_quote(a, k)));
    }
    /* the prediction travels with the run into its record (stemdl writes it
     * to the network block; the report's spatial section reads it) */
    char *end;
    double pred = strtod(c->pred, &end);
    int has_pred = end != c->pred && !*end && isfinite(pred) && pred > 0 && pred <= 1e6 &&
                   strspn(c->pred, "0123456789.e+-") == strlen(c->pred);
    printf(" --batch %s --spatial %s%s%s", b, grid, data ? "" : " --spatial-plan ",
           data ? "" : plan);
    if (has_pred) printf(" --model-predicted-step-s %s", c->pred);
    printf("\n");
    /* the suite entry: stemdl's --key value pairs as config keys */
    printf("suite entry:\n  - name: ");
    if (o->name) fputs(o->name, stdout);
    else printf("stemdl-%s", data ? "data" : ar_printf(a, "%s-%s", grid, plan));
    printf("\n    program: stemdl\n    scales: [%d]\n    config: {", S);
    int first = 1;
    for (int i = 0; i < o->nsargs; i++) {
        const char *k = o->sargs[i];
        /* a flag (--quiet: no value follows) has no config key: left out */
        if (strncmp(k, "--", 2) || i + 1 == o->nsargs || !strncmp(o->sargs[i + 1], "--", 2))
            continue;
        if (!strcmp(k, "--spatial") || !strcmp(k, "--spatial-plan") || !strcmp(k, "--batch")) {
            i++;
            continue;
        }
        char *key = ar_strdup(a, k + 2);
        for (char *p = key; *p; p++)
            if (*p == '-') *p = '_';
        if (strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(key)) {
            i++;
            continue;
        }
        printf("%s%s: ", first ? "" : ", ", key);
        yaml_scalar(stdout, esc_term(a, o->sargs[++i]));
        first = 0;
    }
    printf("%sbatch: %s, spatial: \"%s\"", first ? "" : ", ", b, grid);
    if (!data) printf(", spatial_plan: %s", plan);
    if (has_pred) printf(", model_predicted_step_s: %s", c->pred);
    printf("}\n");
    return 0;
}

int model_stemdl_main(int argc, char **argv)
{
    topts_t o;
    int rc = parse(argc, argv, &o);
    if (rc) return rc;
    arena_t *a = ar_new();
    rc = run(a, &o);
    ar_free(a);
    return rc;
}
