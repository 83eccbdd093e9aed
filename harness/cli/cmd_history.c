/* exadl history RUN... [--metric NAME] [--benchmark NAME] [--scale N] [--out DIR] */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "benchmarks/common/ytree.h"
#include "harness/cli/cmds.h"
#include "harness/report/plots.h"
#include "harness/report/results.h"
#include "harness/run/launch.h"
#include "harness/run/rundir.h"

static const char help_history[] =
    "usage: exadl history RUN... [--metric NAME] [--benchmark NAME] [--scale N]\n"
    "                            [--op OP] [--bytes B] [--out DIR]\n"
    "\n"
    "Tabulate one metric across many runs (in the order given: machine generations,\n"
    "software updates, nightly runs) with its 95% CI and the change against the first\n"
    "run, and plot it (PNG and SVG, with .dat and .gp) into a new folder.\n"
    "\n"
    "  --metric NAME     default throughput_samples_per_s (`exadl metrics` lists them)\n"
    "  --benchmark NAME  default: the first benchmark that has the metric\n"
    "  --scale N         default: the largest scale each run has\n"
    "  --op OP, --bytes B  pick a collective row (busbw_GBps, latency_us ...)\n"
    "  --out DIR         where the plot folder goes (default results/ of the project)\n";

static const metric_t *pick(const mtable_t *t, const char *metric, const char *bench, int scale,
                            const char *op, const char *bytes)
{
    const metric_t *best = NULL;
    for (size_t i = 0; i < t->n; i++) {
        const metric_t *m = &t->m[i];
        if (strcmp(m->metric, metric) || (bench && strcmp(m->bench, bench))) continue;
        if (scale > 0 && m->scale != scale) continue;
        const char *mo = metric_param(m, "op"), *mb = metric_param(m, "bytes");
        const char *ip = metric_param(m, "inplace");
        if (op && (!mo || strcmp(mo, op))) continue;
        if (bytes && (!mb || strcmp(mb, bytes))) continue;
        if (ip && !strcmp(ip, "true")) continue;
        if (!best || (!strcmp(m->bench, best->bench) && m->scale > best->scale)) best = m;
    }
    return best;
}

static int cmd_history(int argc, char **argv)
{
    if (wants_help(argc, argv)) return fputs(help_history, stdout), 0;
    const char *runs[512], *metric = "throughput_samples_per_s", *bench = NULL, *out = NULL;
    const char *op = NULL, *bytes = NULL;
    size_t nruns = 0;
    long long scale = 0;
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(o, "--metric") && has) metric = argv[++i];
        else if (!strcmp(o, "--benchmark") && has) bench = argv[++i];
        else if (!strcmp(o, "--op") && has) op = argv[++i];
        else if (!strcmp(o, "--bytes") && has) bytes = argv[++i];
        else if (!strcmp(o, "--out") && has) out = argv[++i];
        else if (!strcmp(o, "--scale") && has) {
            if (opt_parse_int(argv[++i], &scale) || scale < 1)
                return usage_error("history", "--scale needs a positive rank count");
        } else if (o[0] == '-') return usage_error("history", "unknown option or missing value '%s'", o);
        else if (nruns < 512) runs[nruns++] = o;
    }
    if (!nruns) return usage_error("history", "give one or more runs (see exadl history --help)");
    if (!metric_info(metric)) {
        const char *s = yt_suggest(metric, metric_names());
        return usage_error("history", "unknown metric '%s'%s%s%s", metric,
                           s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : "");
    }
    arena_t *a = ar_new();
    results_t *r = ar_alloc(a, nruns * sizeof *r);
    const metric_t **m = ar_alloc(a, nruns * sizeof *m);
    char err[1024];
    for (size_t i = 0; i < nruns; i++) {
        if (results_load(a, runs[i], &r[i], err, sizeof err)) {
            fprintf(stderr, "exadl history: error: %s\n", err);
            ar_free(a);
            return 2;
        }
        m[i] = pick(&r[i].t, metric, bench, (int)scale, op, bytes);
        if (m[i] && !bench) bench = m[i]->bench;
    }
    const metric_t *first = NULL;
    for (size_t i = 0; i < nruns && !first; i++) first = m[i];
    printf("%s of %s%s%s\n\n", metric, bench ? bench : "?", op ? " " : "", op ? op : "");
    printf("%-4s %-44s %-10s %-21s %-6s %-28s %s\n", "#", "run", "host", "started", "scale",
           "value [95% CI]", "vs first");
    sb_t dat = {0};
    sb_printf(&dat, "# index value ci_lo ci_hi scale label  (%s)\n", metric);
    for (size_t i = 0; i < nruns; i++) {
        char v[80] = "-", ch[24] = "-";
        if (m[i]) {
            if (isfinite(m[i]->lo)) snprintf(v, sizeof v, "%.5g [%.5g, %.5g]", m[i]->value, m[i]->lo, m[i]->hi);
            else snprintf(v, sizeof v, "%.5g", m[i]->value);
            if (first && first->value != 0)
                snprintf(ch, sizeof ch, "%+.1f%%", (m[i]->value - first->value) / fabs(first->value) * 100);
        }
        printf("%-4zu %-44s %-10s %-21s %-6s %-28s %s\n", i + 1, r[i].name, r[i].host ? r[i].host : "?",
               r[i].started_utc ? r[i].started_utc : "?", m[i] ? ar_printf(a, "%d", m[i]->scale) : "-",
               v, ch);
        if (m[i]) {
            sb_printf(&dat, "%zu", i + 1);
            plots_datum(&dat, m[i]->value), plots_datum(&dat, m[i]->lo), plots_datum(&dat, m[i]->hi);
            sb_printf(&dat, " %d %s\n", m[i]->scale, sanitize_name(a, r[i].name));
        }
    }
    if (!first) {
        printf("\nno run has %s%s%s\n", metric, bench ? " for " : "", bench ? bench : "");
        sb_free(&dat);
        ar_free(a);
        return 1;
    }
    /* the plot, in a folder of its own */
    const char *parent = out ? out : path_join(a, exadl_root(), "results");
    char stamp[32];
    utc_stamp(stamp, sizeof stamp);
    mkdir(parent, 0755);
    char *dir = NULL;
    for (int i = 1; i < 1000 && !dir; i++) {
        char *d = path_join(a, parent, i == 1 ? ar_printf(a, "history-%s-%s", stamp, metric)
                                              : ar_printf(a, "history-%s-%s-%d", stamp, metric, i));
        if (mkdir(d, 0755) == 0) dir = d;
        else if (errno != EEXIST) break;
    }
    if (!dir) {
        fprintf(stderr, "exadl history: error: cannot create a folder in %s\n", parent);
        sb_free(&dat);
        ar_free(a);
        return 2;
    }
    /* drawn like every plot (report/plots.h): the benchmark and metric reach
     * gnuplot quoted, the folder too */
    plots_t pl;
    plots_begin(a, dir, &pl);
    const char *title = ar_printf(a, "%s of %s across runs", metric, bench);
    char *gp = ar_printf(a,
                         "%sunset xlabel\nset xtics rotate by -30 font \",8\"\nset offsets 0.5,0.5,0,0\n"
                         "plot 'history.dat' using 1:2:3:4:xtic(6) with yerrorlines lw 2 pt 7 title "
                         "'median, 95%% CI'\n%s",
                         plots_gp_header(a, "history", title, "", metric_info(metric)->unit),
                         plots_gp_footer);
    plots_add(a, dir, &pl, "history", title, &dat, gp);
    sb_free(&dat);
    int drawn = plots_draw(a, dir, &pl) == 0 && pl.n == 1;
    printf("\nplot: %s/%s\n", dir, drawn ? "history.png (and .svg, .dat, .gp)"
                                         : "history.dat and history.gp (gnuplot could not draw)");
    ar_free(a);
    return 0;
}

const command_t command_history = {
    .name = "history",
    .run = cmd_history,
    .help = help_history,
    .synopsis = "history RUN...",
    .summary = "one metric across many runs, tabulated and plotted",
};
