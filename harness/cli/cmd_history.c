/* exadl history RUN... [--metric NAME] [--benchmark NAME] [--scale N] [--out DIR]: one metric
 * across runs, and the newest run's verdict with compare's statistic (results_pool.h, verdict.h);
 * which row of each run it shows is cmd_history_rows.c's (the selection options narrow it) */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "benchmarks/common/ytree.h"
#include "harness/analysis/compare.h"
#include "harness/analysis/verdict.h"
#include "harness/cli/cmd_history_rows.h"
#include "harness/cli/cmds.h"
#include "harness/plots/axis.h"
#include "harness/plots/plots.h"
#include "harness/report/results.h"
#include "harness/report/results_diff.h"
#include "harness/report/results_pool.h"
#include "harness/run/rundir.h"
#include "harness/util/esc.h"

static const char help_history[] =
    "usage: exadl history RUN... [--metric NAME] [--benchmark NAME] [--scale N]\n"
    "                            [--op OP] [--bytes B] [--redop R] [--inplace yes|no] [--out DIR]\n"
    "                            [--threshold PCT] [--allow-config-diff]\n"
    "\n"
    "Tabulate one metric across many runs (in the order given: machine generations,\n"
    "software updates, nightly runs) with its 95% CI in its unit, machine and the change\n"
    "against the first run; give the newest run's verdict against the runs before it\n"
    "of the same machine with compare's statistic (the ratio of medians of the pooled\n"
    "samples, 95% CI by a staged percentile bootstrap, Efron & Tibshirani 1993; see\n"
    "exadl compare --help); plot it, one line per machine (PNG and SVG, with .dat and\n"
    ".gp) into a new folder.  Runs whose workload config differs from the newest run's\n"
    "are refused as compare refuses them (listed; --allow-config-diff: kept, marked).\n"
    "Arguments that are not run folders (results/README.md, the history-* folders this\n"
    "command writes) are skipped with a note, so `exadl history results/*` works.\n"
    "\n"
    "  --metric NAME     default throughput_samples_per_s (`exadl metrics` lists them)\n"
    "  --benchmark NAME  default: the first benchmark that has the metric\n"
    "  --scale N         default: the largest scale every run has (said in the output)\n"
    "  --op OP, --bytes B  pick a collective row (busbw_GBps, latency_us ...)\n"
    "  --inplace yes|no  in-place or out-of-place collective rows (default no)\n"
    "  --redop R         the reduction (sum, min, max, ...) of a collective row; where\n"
    "                    the options leave more than one row of a run, exit 2 naming them\n"
    "  --out DIR         where the plot folder goes (default: beside the first run)\n"
    "  --threshold PCT   as compare's (default: the newest run's suite, else 5)\n"
    "  --allow-config-diff  keep runs whose workload config differs, marked\n"
    "  --ignore-interference  decide as if no launch was busy (the busy lines stay)\n"
    "\n"
    "Exit status: 0 no regression, 1 the newest run is a REGRESSION, 2 bad usage or\n"
    "input (an unknown option, a bad value, a --scale or metric no run has, nothing\n"
    "comparable).\n";

/* a run argument: 1 load it, 0 skip it (said once), -1 bad input */
static int run_argument(arena_t *a, const char *p)
{
    if (path_is_dir(p)) {
        if (path_is_file(path_join(a, p, "results.yaml"))) return 1;
        fprintf(stderr, "exadl history: note: skipped %s: not a finished run folder (no results.yaml)\n", p);
        return 0;
    }
    if (!path_is_file(p)) {
        fprintf(stderr, "exadl history: error: %s: no such file or folder\n", p);
        return -1;
    }
    const char *b = path_basename(p), *dot = strrchr(b, '.');
    if (dot && !strcmp(dot, ".yaml")) return 1;
    fprintf(stderr, "exadl history: note: skipped %s: not a run folder or its results.yaml\n", p);
    return 0;
}

/* the newest run's verdict against the earlier runs of its machine; 1 when
 * it is a regression, -1 on a damaged record */
static int newest_verdict(arena_t *a, const results_t *r, const metric_t *const *m, const int *refused,
                          size_t last, double threshold, const char *from, int ignore_intf)
{
    const metric_t *nw = m[last];
    const results_t **runs = ar_alloc(a, (last + 1) * sizeof *runs);
    const metric_t **rows = ar_alloc(a, (last + 1) * sizeof *rows);
    size_t nb = 0;
    for (size_t i = 0; i < last; i++)
        if (m[i] && !refused[i] && !strcmp(r[i].machine, r[last].machine)) runs[nb] = &r[i], rows[nb++] = m[i];
    if (!nb) {
        printf("\nnewest run (#%zu): no earlier comparable run on %s: no verdict\n", last + 1, r[last].machine);
        return 0;
    }
    rpool_t p;
    char err[1024];
    if (results_pool(a, runs, rows, nb, &r[last], nw, &p, err, sizeof err)) {
        fprintf(stderr, "exadl history: error: %s\n", err);
        return -1;
    }
    vjudge_t j;
    verdict_judge(&p.base, &p.nw, nw->better, threshold, !ignore_intf && p.ib.busy > 0,
                  !ignore_intf && p.in.busy > 0, &j);
    char ci[64] = "(no CI)";
    if (isfinite(j.lo)) snprintf(ci, sizeof ci, "[95%% CI %.3g, %.3g]", j.lo, j.hi);
    printf("\nnewest run (#%zu) against the %zu before it on %s: %.3gx %s (%+.1f%%), %zu/%zu %s: %s",
           last + 1, nb, r[last].machine, j.r, ci, j.change_pct, p.base.ngroup, p.nw.ngroup,
           p.level == PL_RUNS ? "runs" : "launches", rverdict_name(j.v));
    if (j.why == RW_WIDE && j.need_base)
        printf(" (CI +-%.3g%% holds the threshold; ~%zu/%zu %s would narrow it to +-%.3g%%)", j.half_pct,
               j.need_base, j.need_new, p.level == PL_RUNS ? "runs" : "launches", j.need_pct);
    else if (j.why == RW_WIDE) printf(" (the change sits on the threshold: more launches would not decide)");
    else if (j.why == RW_ONE_EACH) printf(" (one value a side: no spread to judge by)");
    else if (j.why == RW_BUSY_NEW) printf(" (slower, but the newest run was measured while the machine was busy)");
    else if (j.why == RW_BUSY_BASE) printf(" (faster, but an earlier run was measured while the machine was busy)");
    printf("\n  (threshold %.3g%%%s; exadl compare --baseline for every metric)\n", threshold, from);
    if (p.in.busy) printf("  interference: the newest run: %zu of %zu launches busy\n", p.in.busy, p.in.launches);
    if (p.ib.busy) printf("  interference: the earlier runs: %zu of %zu launches busy\n", p.ib.busy, p.ib.launches);
    return j.v == RV_REGRESSION;
}

static int cmd_history(int argc, char **argv)
{
    if (wants_help(argc, argv)) return fputs(help_history, stdout), 0;
    const char *runs[512], *metric = "throughput_samples_per_s", *bench = NULL, *out = NULL;
    const char *op = NULL, *bytes = NULL, *from = " (the default)";
    int inplace = 0, allow = 0, ignore_intf = 0;
    hsel_t sel = {0};
    size_t nargs = 0;
    long long scale = 0;
    double threshold = NAN;
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(o, "--metric") && has) metric = argv[++i];
        else if (!strcmp(o, "--benchmark") && has) bench = argv[++i];
        else if (!strcmp(o, "--op") && has) op = argv[++i];
        else if (!strcmp(o, "--redop") && has) sel.redop = argv[++i];
        else if (!strcmp(o, "--bytes") && has) bytes = argv[++i];
        else if (!strcmp(o, "--out") && has) out = argv[++i];
        else if (!strcmp(o, "--allow-config-diff")) allow = 1;
        else if (!strcmp(o, "--ignore-interference")) ignore_intf = 1;
        else if (!strcmp(o, "--inplace") && has) {
            const char *v = argv[++i];
            if (!strcmp(v, "yes") || !strcmp(v, "true")) inplace = 1;
            else if (!strcmp(v, "no") || !strcmp(v, "false")) inplace = 0;
            else return usage_error("history", "--inplace needs yes or no");
        }
        else if (!strcmp(o, "--scale") && has) {
            if (opt_parse_int(argv[++i], &scale) || scale < 1 || scale > (1 << 30))
                return usage_error("history", "--scale needs a positive rank count");
        } else if (!strcmp(o, "--threshold") && has) {
            if (opt_parse_double(argv[++i], &threshold) || !(threshold >= 0 && threshold <= 1000))
                return usage_error("history", "--threshold needs a percentage in [0, 1000]");
            from = " (--threshold)";
        } else if (o[0] == '-') return usage_error("history", "unknown option or missing value '%s'", o);
        else if (nargs < 512) runs[nargs++] = o;
        else return usage_error("history", "at most 512 runs");
    }
    if (!nargs) return usage_error("history", "give one or more runs (see exadl history --help)");
    if (!metric_info(metric)) {
        const char *s = yt_suggest(metric, metric_names());
        return usage_error("history", "unknown metric '%s'%s%s%s", metric,
                           s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : "");
    }
    arena_t *a = ar_new();
    /* the run folders among the arguments; the rest skipped, each said */
    size_t nruns = 0;
    for (size_t i = 0; i < nargs; i++) {
        int k = run_argument(a, runs[i]);
        if (k < 0) return ar_free(a), 2;
        if (k) runs[nruns++] = runs[i];
    }
    if (!nruns) {
        fprintf(stderr, "exadl history: error: no run folder among the arguments\n");
        return ar_free(a), 2;
    }
    sel.op = op, sel.bytes = bytes, sel.inplace = inplace;
    results_t *r = ar_alloc(a, nruns * sizeof *r);
    const metric_t **m = ar_alloc(a, nruns * sizeof *m);
    int *refused = ar_alloc(a, nruns * sizeof *refused);
    char err[1024];
    for (size_t i = 0; i < nruns; i++) {
        if (results_load(a, runs[i], &r[i], err, sizeof err)) {
            fprintf(stderr, "exadl history: error: %s\n", err);
            ar_free(a);
            return 2;
        }
        const metric_t *x = hrows_pick(&r[i].t, metric, bench, (int)scale, &sel);
        if (x && !bench) bench = x->bench;
    }
    /* the scale: given, else the largest every run that has the metric has */
    int chosen = (int)scale;
    if (!chosen) {
        for (int cand = 1 << 30; cand >= 1 && !chosen;
             cand = hrows_largest_below(r, nruns, metric, bench, cand))
            if (cand < (1 << 30) && hrows_all_have(r, nruns, metric, bench, cand, &sel)) chosen = cand;
    }
    for (size_t i = 0; i < nruns; i++) {
        m[i] = hrows_pick(&r[i].t, metric, bench, chosen, &sel);
        sb_t which = {0};
        size_t k = m[i] && chosen > 0 ? hrows_matches(&r[i].t, metric, bench, chosen, &sel, &which) : 0;
        if (k > 1) {
            fprintf(stderr, "exadl history: error: %s has %zu rows of %s for %s at scale %d (%s%s): "
                            "choose one with --op, --bytes, --redop or --inplace\n",
                    r[i].name, k, metric, m[i]->bench, chosen, sb_str(&which), k > 6 ? "; ..." : "");
            sb_free(&which);
            ar_free(a);
            return 2;
        }
        sb_free(&which);
    }
    /* the newest run that has the row: the others are compared with it, and
     * refused where their workload config differs (as compare refuses them) */
    size_t last = nruns;
    while (last > 0 && !m[last - 1]) last--;
    size_t nref = 0, ncomparable = 0;
    for (size_t i = 0; i < nruns; i++) {
        refused[i] = 0;
        if (!last || !m[i] || i + 1 == last) continue;
        if (results_workload_differs(a, &r[i], &r[last - 1], m[i]->bench)) {
            if (!allow) {
                refused[i] = 1, nref++;
                continue;
            }
        }
        ncomparable++;
    }
    const metric_t *first = NULL;
    for (size_t i = 0; i < nruns && !first; i++)
        if (!refused[i]) first = m[i];
    const char *unit = metric_info(metric)->unit;
    printf("%s of %s%s%s%s%s, %s\n\n", metric, bench ? bench : "?", op ? " " : "", op ? op : "",
           sel.redop ? ar_printf(a, " (%s)", sel.redop) : "",
           bytes ? ar_printf(a, " %s B%s", bytes, inplace ? " in place" : "") : "",
           scale ? ar_printf(a, "scale %lld", scale)
           : chosen ? ar_printf(a, "scale %d (the largest every run has; --scale N for another)", chosen)
                    : "per configuration");
    printf("%-4s %-40s %-14s %-21s %-40s %s\n", "#", "run", "machine", "started", "value [95% CI]",
           "vs first");
    /* the machines, in the order first seen: one line each in the plot */
    const char **mach = ar_alloc(a, (nruns + 1) * sizeof *mach);
    size_t nm = 0;
    for (size_t i = 0; i < nruns; i++) {
        if (!m[i] || refused[i]) continue; /* drawn: the comparable runs only */
        size_t k = 0;
        while (k < nm && strcmp(mach[k], r[i].machine)) k++;
        if (k == nm) mach[nm++] = r[i].machine;
    }
    sb_t dat = {0};
    sb_printf(&dat, "# index value ci_lo ci_hi scale label  (%s), one block per machine\n", metric);
    for (size_t i = 0; i < nruns; i++) {
        char v[160] = "-", ch[64] = "-";
        if (m[i]) {
            compare_fmt_ci(v, sizeof v, m[i]->value, m[i]->lo, m[i]->hi, unit);
            if (refused[i])
                snprintf(ch, sizeof ch, "refused: config differs");
            else if (first && first->value != 0)
                snprintf(ch, sizeof ch, "%+.1f%%%s", (m[i]->value - first->value) / fabs(first->value) * 100,
                         allow && i + 1 != last && results_workload_differs(a, &r[i], &r[last - 1], m[i]->bench)
                             ? " (config differs)" : "");
        }
        printf("%-4zu %-40s %-14s %-21s %-40s %s\n", i + 1, esc_term(a, r[i].name),
               esc_term(a, r[i].machine), r[i].started_utc ? esc_term(a, r[i].started_utc) : "?", v, ch);
    }
    for (size_t k = 0; k < nm; k++) {
        if (k) sb_puts(&dat, "\n\n"); /* gnuplot's next index: the next machine */
        for (size_t i = 0; i < nruns; i++) {
            /* a refused run (its workload differs) is in the table, not drawn */
            if (!m[i] || refused[i] || strcmp(r[i].machine, mach[k])) continue;
            sb_printf(&dat, "%zu", i + 1);
            plots_datum(&dat, m[i]->value), plots_datum(&dat, m[i]->lo), plots_datum(&dat, m[i]->hi);
            sb_printf(&dat, " %d %s\n", m[i]->scale, sanitize_name(a, r[i].name));
        }
    }
    if (!first) {
        int have = hrows_largest_below(r, nruns, metric, bench, 1 << 30);
        fprintf(stderr, "exadl history: error: no run has %s%s%s%s%s\n", metric, bench ? " for " : "",
                bench ? bench : "", scale ? ar_printf(a, " at scale %lld", scale) : "",
                scale && have ? ar_printf(a, " (the largest scale they have: %d)", have) : "");
        sb_free(&dat);
        ar_free(a);
        return 2;
    }
    if (nref)
        printf("\n%zu run(s) refused: their %s config differs from the newest run's "
               "(exadl compare lists the differences; --allow-config-diff keeps them, marked)\n",
               nref, bench);
    if (nref && !ncomparable) {
        fprintf(stderr, "exadl history: error: no run is comparable with the newest (#%zu): every "
                        "other run's workload config differs\n", last);
        sb_free(&dat);
        ar_free(a);
        return 2;
    }
    /* the newest run's verdict against the runs before it on the same machine */
    int regression = 0;
    if (last > 1) {
        if (isnan(threshold)) {
            if (results_threshold(a, &r[last - 1], &threshold, err, sizeof err)) {
                fprintf(stderr, "exadl history: error: %s\n", err);
                sb_free(&dat);
                ar_free(a);
                return 2;
            }
            if (!isnan(threshold)) from = " (the suite's regression_threshold_pct)";
            else threshold = 5;
        }
        regression = newest_verdict(a, r, m, refused, last - 1, threshold, from, ignore_intf);
        if (regression < 0) {
            sb_free(&dat);
            ar_free(a);
            return 2;
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
    double ytop = 0, ydiv; /* one SI prefix for the y axis: 18 GFLOP/s, not 1.8e+10 */
    for (size_t i = 0; i < nruns; i++)
        if (m[i] && isfinite(m[i]->hi) ? m[i]->hi > ytop : m[i] && m[i]->value > ytop)
            ytop = isfinite(m[i]->hi) ? m[i]->hi : m[i]->value;
    const char *ylabel = ar_printf(a, "%s%s", axis_si(ytop, &ydiv), unit);
    sb_t pc = {0};
    sb_puts(&pc, "plot ");
    for (size_t k = 0; k < nm; k++) /* machine names reach gnuplot quoted */
        sb_printf(&pc, "%s'history.dat' index %zu using 1:($2/%g):($3/%g):($4/%g):xtic(6) with "
                       "yerrorlines lw 2 pt 7 title %s", k ? ", " : "", k, ydiv, ydiv, ydiv,
                  plots_gp_str(a, ar_printf(a, "%s: median, 95%% CI", mach[k])));
    char *gp = ar_printf(a,
                         "%sunset xlabel\nset xtics rotate by -30 font \",8\"\nset offsets 0.5,0.5,0,0\n"
                         "%s\n%s",
                         plots_gp_header(a, "history", title, "", ylabel), sb_str(&pc), plots_gp_footer);
    sb_free(&pc);
    plots_add(a, dir, &pl, "history", title, &dat, gp);
    sb_free(&dat);
    int drawn = plots_draw(a, dir, &pl) == 0 && pl.n == 1;
    printf("\nplot: %s/%s\n", dir, drawn ? "history.png (and .svg, .dat, .gp)"
                                         : "history.dat and history.gp (gnuplot could not draw)");
    ar_free(a);
    return regression ? 1 : 0;
}

const command_t command_history = {
    .name = "history",
    .run = cmd_history,
    .help = help_history,
    .synopsis = "history RUN...",
    .summary = "one metric across many runs, tabulated and plotted",
};
