/* exadl history RUN... [--metric NAME] [--benchmark NAME] [--scale N] [--out DIR] */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "benchmarks/common/ytree.h"
#include "harness/analysis/verdict.h"
#include "harness/cli/cmds.h"
#include "harness/plots/plots.h"
#include "harness/report/results.h"
#include "harness/run/rundir.h"
#include "harness/util/esc.h"

static const char help_history[] =
    "usage: exadl history RUN... [--metric NAME] [--benchmark NAME] [--scale N]\n"
    "                            [--op OP] [--bytes B] [--inplace yes|no] [--out DIR]\n"
    "\n"
    "Tabulate one metric across many runs (in the order given: machine generations,\n"
    "software updates, nightly runs) with its unit, 95% CI, machine and the change\n"
    "against the first run; give the newest run's verdict against the runs before it\n"
    "of the same machine (as `exadl compare --baseline`); plot it, one line per\n"
    "machine (PNG and SVG, with .dat and .gp) into a new folder.\n"
    "\n"
    "  --metric NAME     default throughput_samples_per_s (`exadl metrics` lists them)\n"
    "  --benchmark NAME  default: the first benchmark that has the metric\n"
    "  --scale N         default: the largest scale every run has (said in the output)\n"
    "  --op OP, --bytes B  pick a collective row (busbw_GBps, latency_us ...)\n"
    "  --inplace yes|no  in-place or out-of-place collective rows (default no)\n"
    "  --out DIR         where the plot folder goes (default: beside the first run)\n";

static const metric_t *pick(const mtable_t *t, const char *metric, const char *bench, int scale,
                            const char *op, const char *bytes, int inplace)
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
        if (ip && (strcmp(ip, "true") == 0) != inplace) continue;
        if (!best || (!strcmp(m->bench, best->bench) && m->scale > best->scale)) best = m;
    }
    return best;
}

/* the largest scale below `below` at which some run has the metric; 0: none */
static int largest_below(const results_t *r, size_t n, const char *metric, const char *bench,
                         int below)
{
    int best = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < r[i].t.n; j++) {
            const metric_t *m = &r[i].t.m[j];
            if (strcmp(m->metric, metric) || (bench && strcmp(m->bench, bench))) continue;
            if (m->scale < below && m->scale > best) best = m->scale;
        }
    return best;
}

/* every run that has the metric at all has it at this scale */
static int all_have(const results_t *r, size_t n, const char *metric, const char *bench, int scale,
                    const char *op, const char *bytes, int inplace)
{
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        if (!pick(&r[i].t, metric, bench, 0, op, bytes, inplace)) continue;
        if (!pick(&r[i].t, metric, bench, scale, op, bytes, inplace)) return 0;
        any = 1;
    }
    return any;
}

static void with_unit(char *buf, size_t len, double v, const char *unit)
{
    if (!isfinite(v)) snprintf(buf, len, "-");
    else if (unit && (!strcmp(unit, "FLOP/s") || !strcmp(unit, "FLOP"))) fmt_si(v, unit, buf, len);
    else snprintf(buf, len, "%.4g%s%s", v, unit && *unit ? " " : "", unit ? unit : "");
}

static int cmd_history(int argc, char **argv)
{
    if (wants_help(argc, argv)) return fputs(help_history, stdout), 0;
    const char *runs[512], *metric = "throughput_samples_per_s", *bench = NULL, *out = NULL;
    const char *op = NULL, *bytes = NULL;
    int inplace = 0;
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
        else if (!strcmp(o, "--inplace") && has) {
            const char *v = argv[++i];
            if (!strcmp(v, "yes") || !strcmp(v, "true")) inplace = 1;
            else if (!strcmp(v, "no") || !strcmp(v, "false")) inplace = 0;
            else return usage_error("history", "--inplace needs yes or no");
        }
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
        const metric_t *x = pick(&r[i].t, metric, bench, (int)scale, op, bytes, inplace);
        if (x && !bench) bench = x->bench;
    }
    /* the scale: given, else the largest every run that has the metric has */
    int chosen = (int)scale;
    if (!chosen) {
        for (int cand = 1 << 30; cand >= 1 && !chosen; cand = largest_below(r, nruns, metric, bench, cand))
            if (cand < (1 << 30) && all_have(r, nruns, metric, bench, cand, op, bytes, inplace)) chosen = cand;
    }
    for (size_t i = 0; i < nruns; i++)
        m[i] = pick(&r[i].t, metric, bench, chosen, op, bytes, inplace);
    const metric_t *first = NULL;
    for (size_t i = 0; i < nruns && !first; i++) first = m[i];
    const char *unit = metric_info(metric)->unit;
    printf("%s of %s%s%s%s, %s\n\n", metric, bench ? bench : "?", op ? " " : "", op ? op : "",
           bytes ? ar_printf(a, " %s B%s", bytes, inplace ? " in place" : "") : "",
           scale ? ar_printf(a, "scale %lld", scale)
           : chosen ? ar_printf(a, "scale %d (the largest every run has; --scale N for another)", chosen)
                    : "per configuration");
    printf("%-4s %-40s %-14s %-21s %-40s %s\n", "#", "run", "machine", "started",
           ar_printf(a, "value [95%% CI]%s%s", *unit ? " in " : "", unit), "vs first");
    /* the machines, in the order first seen: one line each in the plot */
    const char **mach = ar_alloc(a, (nruns + 1) * sizeof *mach);
    size_t nm = 0;
    for (size_t i = 0; i < nruns; i++) {
        size_t k = 0;
        while (k < nm && strcmp(mach[k], r[i].machine)) k++;
        if (k == nm) mach[nm++] = r[i].machine;
    }
    sb_t dat = {0};
    sb_printf(&dat, "# index value ci_lo ci_hi scale label  (%s), one block per machine\n", metric);
    for (size_t i = 0; i < nruns; i++) {
        char v[160] = "-", ch[24] = "-", x[40], lo[40], hi[40];
        if (m[i]) {
            with_unit(x, sizeof x, m[i]->value, unit);
            with_unit(lo, sizeof lo, m[i]->lo, "");
            with_unit(hi, sizeof hi, m[i]->hi, "");
            if (isfinite(m[i]->lo)) snprintf(v, sizeof v, "%s [%s, %s]", x, lo, hi);
            else snprintf(v, sizeof v, "%s", x);
            if (first && first->value != 0)
                snprintf(ch, sizeof ch, "%+.1f%%", (m[i]->value - first->value) / fabs(first->value) * 100);
        }
        printf("%-4zu %-40s %-14s %-21s %-40s %s\n", i + 1, esc_term(a, r[i].name),
               esc_term(a, r[i].machine), r[i].started_utc ? esc_term(a, r[i].started_utc) : "?", v, ch);
    }
    for (size_t k = 0; k < nm; k++) {
        if (k) sb_puts(&dat, "\n\n"); /* gnuplot's next index: the next machine */
        for (size_t i = 0; i < nruns; i++) {
            if (!m[i] || strcmp(r[i].machine, mach[k])) continue;
            sb_printf(&dat, "%zu", i + 1);
            plots_datum(&dat, m[i]->value), plots_datum(&dat, m[i]->lo), plots_datum(&dat, m[i]->hi);
            sb_printf(&dat, " %d %s\n", m[i]->scale, sanitize_name(a, r[i].name));
        }
    }
    if (!first) {
        int have = largest_below(r, nruns, metric, bench, 1 << 30);
        printf("\nno run has %s%s%s%s%s\n", metric, bench ? " for " : "", bench ? bench : "",
               scale ? ar_printf(a, " at scale %lld", scale) : "",
               scale && have ? ar_printf(a, " (the largest scale they have: %d)", have) : "");
        sb_free(&dat);
        ar_free(a);
        return 1;
    }
    /* the newest run's verdict against the runs before it on the same machine */
    size_t last = nruns;
    while (last > 0 && !m[last - 1]) last--;
    if (last) {
        const metric_t *nw = m[last - 1];
        double *pool = ar_alloc(a, 4096 * sizeof *pool), *runv = ar_alloc(a, (nruns + 1) * sizeof *runv);
        size_t np = 0, nr = 0;
        for (size_t i = 0; i + 1 < last; i++) {
            if (!m[i] || strcmp(r[i].machine, r[last - 1].machine)) continue;
            runv[nr++] = m[i]->value;
            if (m[i]->nlaunch)
                for (size_t k = 0; k < m[i]->nlaunch && np < 4096; k++) pool[np++] = m[i]->launch[k];
            else if (np < 4096) pool[np++] = m[i]->value;
        }
        if (np) {
            const double *obs = nw->nlaunch ? nw->launch : &nw->value;
            rjudge_t j;
            verdict_judge(pool, np, obs, nw->nlaunch ? nw->nlaunch : 1, nw->value, runv, nr,
                          nw->better, 5, &j);
            printf("\nnewest run (#%zu) against the %zu before it on %s: %+.1f%%: %s", last, nr,
                   r[last - 1].machine, j.change_pct, rverdict_name(j.v));
            if (j.v == RV_INCONCLUSIVE) printf(" (~%d %s per side would resolve it)", j.need,
                                               nw->nlaunch ? "launches" : "runs");
            printf("  (threshold 5%%; exadl compare --baseline for every metric)\n");
        }
    }
    /* the plot, in a folder of its own */
    /* beside the runs (the folder that holds the first), unless --out says */
    const char *parent = out ? out : path_dirname(a, r[0].dir);
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
    /* drawn like every plot (plots/plots.h): the benchmark and metric reach
     * gnuplot quoted, the folder too */
    plots_t pl;
    plots_begin(a, dir, &pl);
    const char *title = ar_printf(a, "%s of %s across runs", metric, bench);
    sb_t pc = {0};
    sb_puts(&pc, "plot ");
    for (size_t k = 0; k < nm; k++) /* machine names reach gnuplot quoted */
        sb_printf(&pc, "%s'history.dat' index %zu using 1:2:3:4:xtic(6) with yerrorlines lw 2 pt 7 "
                       "title %s", k ? ", " : "", k, plots_gp_str(a, ar_printf(a, "%s: median, 95%% CI", mach[k])));
    char *gp = ar_printf(a,
                         "%sunset xlabel\nset xtics rotate by -30 font \",8\"\nset offsets 0.5,0.5,0,0\n"
                         "%s\n%s",
                         plots_gp_header(a, "history", title, "", unit), sb_str(&pc), plots_gp_footer);
    sb_free(&pc);
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
