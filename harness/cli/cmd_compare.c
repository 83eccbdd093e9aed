/* exadl compare: regression (A or a pool of baselines against a new run) and
 * procurement (B / A with a CI, a winner per row, the overall geometric mean),
 * after listing every difference in versions, machine, system and config;
 * rows whose workload config differs are refused (or marked). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/ytree.h"
#include "harness/analysis/compare.h"
#include "harness/analysis/ratio.h"
#include "harness/analysis/verdict.h"
#include "harness/cli/cmds.h"
#include "harness/report/results.h"
#include "harness/report/results_diff.h"
#include "harness/util/esc.h"

static const char help_compare[] =
    "usage: exadl compare RUN_A RUN_B [options]             regression: A is the baseline\n"
    "       exadl compare --baseline RUN... NEW [options]   regression against a pool\n"
    "       exadl compare --mode procurement RUN_A RUN_B    B / A per metric, a winner\n"
    "\n"
    "Runs are run folders or their results.yaml.  First every difference between the\n"
    "runs is listed: exadl version and commit, machine, system, each workload's config.\n"
    "Rows of a workload whose config differs are refused (not comparable).\n"
    "\n"
    "Regression (the default): the new run (B, or the last run given) against the\n"
    "baseline pool (A, or every --baseline run).  The variation across launches and runs\n"
    "decides, not the iterations inside one launch: per-launch values where results.yaml\n"
    "keeps them (training metrics), else one value per run; Welch's t at 95%.  Verdicts:\n"
    "  same          within the threshold\n"
    "  REGRESSION    past the threshold, significant, for the worse\n"
    "  improvement   past the threshold, significant, for the better\n"
    "  inconclusive  past the threshold, not significant: with the launches per side\n"
    "                that would resolve it (repetitions: in the suite, or more baselines)\n"
    "\n"
    "Procurement: per metric and scale the ratio B/A with its 95% CI (delta method on the\n"
    "log scale: the half-widths of log A and log B, each the larger of its median's CI and\n"
    "of the spread across launches, add in quadrature), the winner (the side the CI points\n"
    "to; a CI holding 1 is a tie), and the geometric mean of the speed ratios (larger: B\n"
    "faster) over the headline metrics (throughput, busbw_max) with its geometric sd.\n"
    "\n"
    "  --baseline RUN...    baseline runs (every run given but the last)\n"
    "  --mode regression|procurement\n"
    "  --threshold PCT      smallest change that counts in regression mode (default 5)\n"
    "  --metric NAME        compare this metric (repeatable; `exadl metrics` lists them)\n"
    "  --all                compare every metric, each collective size included\n"
    "  --allow-config-diff  compare rows whose workload config differs, marked '(config differs)'\n"
    "\n"
    "Default metrics: step_time_s, throughput_samples_per_s, efficiency,\n"
    "sustained_flops, sustained_flops_per_device, fraction_of_peak, busbw_max_GBps.\n"
    "Machines are shown by their name (suite `machine:` or `exadl run --machine`).\n"
    "Exit status: 0 no regression (procurement: always 0), 1 a regression, 2 bad input\n"
    "or nothing comparable.\n";

typedef struct {
    const char *only[64];
    size_t nonly;
    int all, allow, procurement, pool_flag;
    double threshold;
    const char *run[64];
    size_t nrun;
} copts_t;

static int parse(int argc, char **argv, copts_t *o)
{
    memset(o, 0, sizeof *o);
    o->threshold = 5;
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "--threshold")) {
            if (i + 1 >= argc || opt_parse_double(argv[i + 1], &o->threshold) || o->threshold < 0)
                return usage_error("compare", "--threshold needs a percentage >= 0");
            i++;
        } else if (!strcmp(s, "--metric")) {
            if (i + 1 >= argc) return usage_error("compare", "--metric needs a name");
            if (!metric_info(argv[i + 1])) {
                const char *g = yt_suggest(argv[i + 1], metric_names());
                /* words people type: latency, throughput, busbw */
                if (!g && strstr("latency_us", argv[i + 1])) g = "latency_us";
                if (!g && strstr("throughput_samples_per_s", argv[i + 1])) g = "throughput_samples_per_s";
                if (!g && strstr("busbw_max_GBps busbw_GBps", argv[i + 1])) g = "busbw_max_GBps";
                return usage_error("compare", "unknown metric '%s'%s%s%s", argv[i + 1],
                                   g ? " (did you mean '" : " (exadl metrics lists them)",
                                   g ? g : "", g ? "'?)" : "");
            }
            if (o->nonly < 64) o->only[o->nonly++] = argv[++i];
        } else if (!strcmp(s, "--all")) {
            o->all = 1;
        } else if (!strcmp(s, "--allow-config-diff")) {
            o->allow = 1;
        } else if (!strcmp(s, "--baseline")) {
            o->pool_flag = 1;
        } else if (!strcmp(s, "--mode")) {
            if (i + 1 >= argc || (strcmp(argv[i + 1], "procurement") && strcmp(argv[i + 1], "regression")))
                return usage_error("compare", "--mode needs regression or procurement");
            o->procurement = !strcmp(argv[++i], "procurement");
        } else if (s[0] == '-') {
            return usage_error("compare", "unknown option '%s' (see exadl compare --help)", s);
        } else if (o->nrun < 64) {
            o->run[o->nrun++] = s;
        } else {
            return usage_error("compare", "at most 64 runs");
        }
    }
    if (o->nrun < 2)
        return usage_error("compare", "give two runs (RUN_A RUN_B), or --baseline RUN... NEW");
    if (o->nrun > 2 && !o->pool_flag)
        return usage_error("compare", "more than two runs: give the pool with --baseline RUN... NEW");
    if (o->procurement && o->nrun != 2)
        return usage_error("compare", "--mode procurement compares exactly two runs (A B)");
    return -1; /* go on */
}

static void header(const char *tag, const results_t *r)
{
    int host = r->host && strcmp(r->host, r->machine);
    char e[4][256]; /* results.yaml's text, escaped for the terminal (harness/util/esc.h) */
    printf("%s: %s  machine %s%s%s%s, suite %s, %s, exadl %s (commit %s)\n", tag,
           esc_term_buf(e[0], 256, r->name), esc_term_buf(e[1], 256, r->machine),
           host ? " (host " : "", host ? esc_term_buf(e[2], 256, r->host) : "", host ? ")" : "",
           r->suite ? esc_term_buf(e[3], 256, r->suite) : "?",
           r->started_utc ? r->started_utc : "?", r->version ? r->version : "(not recorded)",
           r->commit ? r->commit : "(not recorded)");
}

/* every row of `t` wanted; refused when its workload config differs */
static int refused(const copts_t *o, const rdiffs_t *d, size_t nd, const metric_t *m)
{
    if (o->allow) return 0;
    for (size_t i = 0; i < nd; i++)
        if (results_config_differs(&d[i], m->bench)) return 1;
    return 0;
}

static int marked(const rdiffs_t *d, size_t nd, const metric_t *m)
{
    for (size_t i = 0; i < nd; i++)
        if (results_config_differs(&d[i], m->bench)) return 1;
    return 0;
}

static void add_obs(arena_t *a, double **v, size_t *n, size_t *cap, const metric_t *m)
{
    if (m->nlaunch)
        for (size_t i = 0; i < m->nlaunch; i++) {
            AR_GROW(a, *v, *n, *cap);
            (*v)[(*n)++] = m->launch[i];
        }
    else {
        AR_GROW(a, *v, *n, *cap);
        (*v)[(*n)++] = m->value;
    }
}

/* a table printed once every row is known, each column as wide as its widest
 * cell, so that long values (FLOP/s with their CI) never shift the columns */
typedef struct {
    const char **cell; /* ncol per row */
    size_t ncol, nrow, cap;
} table_t;

static void table_row(arena_t *a, table_t *t, const char *const *cells)
{
    if ((t->nrow + 1) * t->ncol > t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 16 * t->ncol;
        const char **c = ar_alloc(a, nc * sizeof *c);
        if (t->nrow) memcpy(c, t->cell, t->nrow * t->ncol * sizeof *c);
        t->cell = c, t->cap = nc;
    }
    for (size_t k = 0; k < t->ncol; k++) t->cell[t->nrow * t->ncol + k] = ar_strdup(a, cells[k]);
    t->nrow++;
}

static void table_print(const table_t *t)
{
    size_t w[16] = {0};
    for (size_t r = 0; r < t->nrow; r++)
        for (size_t k = 0; k < t->ncol && k < 16; k++) {
            size_t l = strlen(t->cell[r * t->ncol + k]);
            if (l > w[k]) w[k] = l;
        }
    for (size_t r = 0; r < t->nrow; r++) {
        for (size_t k = 0; k < t->ncol; k++) {
            const char *c = t->cell[r * t->ncol + k];
            if (k + 1 == t->ncol) printf("%s\n", c);
            else printf("%-*s  ", (int)w[k], c);
        }
    }
}

static int regression(arena_t *a, const copts_t *o, results_t *r, size_t nr, rdiffs_t *d)
{
    const results_t *nw = &r[nr - 1];
    size_t nb = nr - 1;
    table_t tab = {.ncol = 7};
    table_row(a, &tab, (const char *[]){"metric", "benchmark", "baseline [range]", "new [95% CI]",
                                        "change", "n b/new", "verdict"});
    int reg = 0, cmp = 0, nref = 0, ninc = 0;
    for (size_t i = 0; i < nw->t.n; i++) {
        const metric_t *m = &nw->t.m[i];
        if (!compare_wanted(m, o->nonly ? o->only : NULL, o->nonly, o->all)) continue;
        double *pool = NULL, lo = INFINITY, hi = -INFINITY, *runv = ar_alloc(a, (nb + 1) * sizeof *runv);
        size_t np = 0, cap = 0, runs = 0;
        for (size_t b = 0; b < nb; b++)
            for (size_t j = 0; j < r[b].t.n; j++)
                if (compare_same_row(&r[b].t.m[j], m)) {
                    add_obs(a, &pool, &np, &cap, &r[b].t.m[j]);
                    runv[runs++] = r[b].t.m[j].value;
                    break;
                }
        char vb[96] = "-", vn[128], ch[24] = "-", nn[24] = "-";
        const char *verdict;
        compare_fmt_value(vn, sizeof vn, m);
        if (!np) {
            verdict = "only in the new run";
        } else if (refused(o, d, nb, m)) {
            verdict = "refused: config differs";
            nref++;
        } else {
            double *obs = NULL;
            size_t no = 0, ocap = 0;
            add_obs(a, &obs, &no, &ocap, m);
            for (size_t k = 0; k < np; k++) lo = fmin(lo, pool[k]), hi = fmax(hi, pool[k]);
            rjudge_t j;
            verdict_judge(pool, np, obs, no, m->value, runv, runs, m->better, o->threshold, &j);
            char x[32], y[32], z[32];
            if (!strcmp(m->unit, "FLOP/s")) {
                fmt_si(j.base, m->unit, x, sizeof x), fmt_si(lo, "", y, sizeof y);
                fmt_si(hi, "", z, sizeof z);
            } else {
                fmt_num(j.base, x, sizeof x), fmt_num(lo, y, sizeof y), fmt_num(hi, z, sizeof z);
            }
            snprintf(vb, sizeof vb, np > 1 ? "%s [%s, %s]" : "%s", x, y, z);
            if (isfinite(j.change_pct)) snprintf(ch, sizeof ch, "%+.1f%%", j.change_pct);
            snprintf(nn, sizeof nn, "%zu/%zu", np, no);
            verdict = j.v == RV_INCONCLUSIVE
                          ? ar_printf(a, "inconclusive: ~%d %s per side would resolve it%s", j.need,
                                      m->nlaunch ? "launches" : "runs",
                                      np + no <= 2 ? " (one value each: spread unknown)" : "")
                          : rverdict_name(j.v);
            if (marked(d, nb, m)) verdict = ar_printf(a, "%s (config differs)", verdict);
            reg += j.v == RV_REGRESSION, ninc += j.v == RV_INCONCLUSIVE, cmp++;
        }
        table_row(a, &tab, (const char *[]){m->metric, metric_label(a, m), vb, vn, ch, nn, verdict});
    }
    table_print(&tab);
    printf("\nbaseline: %zu run(s); n: observations per side (launches where results.yaml keeps "
           "them, else runs); a change counts past %.3g%% when Welch's t says it is beyond the "
           "variation across launches and runs (95%%)\n", nb, o->threshold);
    if (nref)
        printf("%d row(s) refused: their workload config differs (listed above); "
               "--allow-config-diff compares them anyway, marked\n", nref);
    printf("%d compared: %d regression(s), %d inconclusive\n", cmp, reg, ninc);
    if (!cmp) return 2;
    return reg ? 1 : 0;
}

static int procurement(arena_t *a, const copts_t *o, results_t *r, rdiffs_t *d)
{
    printf("B / A: %s / %s\n\n", esc_term(a, r[1].machine), esc_term(a, r[0].machine));
    table_t tab = {.ncol = 6};
    table_row(a, &tab, (const char *[]){"metric", "benchmark", "A [95% CI]", "B [95% CI]",
                                        "B/A [95% CI]", "winner"});
    double *sp = ar_alloc(a, (r[1].t.n + 1) * sizeof *sp);
    size_t ns = 0;
    int cmp = 0, nref = 0;
    for (size_t i = 0; i < r[1].t.n; i++) {
        const metric_t *mb = &r[1].t.m[i], *ma = NULL;
        if (!compare_wanted(mb, o->nonly ? o->only : NULL, o->nonly, o->all)) continue;
        for (size_t j = 0; j < r[0].t.n && !ma; j++)
            if (compare_same_row(&r[0].t.m[j], mb)) ma = &r[0].t.m[j];
        char va[96] = "-", vb[96], rr[64] = "-";
        const char *win;
        compare_fmt_value(vb, sizeof vb, mb);
        if (!ma) {
            win = "only in B";
        } else if (refused(o, d, 1, mb)) {
            compare_fmt_value(va, sizeof va, ma);
            win = "refused: config differs";
            nref++;
        } else {
            compare_fmt_value(va, sizeof va, ma);
            ratio_t q;
            ratio_of(ma, mb, &q);
            if (isfinite(q.lo)) snprintf(rr, sizeof rr, "%.3gx [%.3g, %.3g]", q.r, q.lo, q.hi);
            else if (isfinite(q.r)) snprintf(rr, sizeof rr, "%.3gx (no CI)", q.r);
            win = q.winner == 2 ? ar_printf(a, "B (%s)", esc_term(a, r[1].machine))
                  : q.winner == 1 ? ar_printf(a, "A (%s)", esc_term(a, r[0].machine))
                  : q.winner == 0 ? (ma->better ? "tie (CI holds 1)" : "-")
                                  : "unknown (no CI)";
            if (marked(d, 1, mb)) win = ar_printf(a, "%s (config differs)", win);
            if (ratio_headline(mb->metric) && isfinite(q.r) && q.r > 0) sp[ns++] = ratio_speed(mb, q.r);
            cmp++;
        }
        table_row(a, &tab, (const char *[]){mb->metric, metric_label(a, mb), va, vb, rr, win});
    }
    table_print(&tab);
    ratio_summary_t s;
    ratio_summarize(sp, ns, &s);
    printf("\nratio CI: delta method on the log scale (each side: the larger of its median's 95%% "
           "CI and the spread across launches)\n");
    if (s.n)
        printf("overall: B (%s) is %.3gx A (%s) in speed: geometric mean of %zu headline ratio(s) "
               "(throughput, busbw_max; larger: B faster)%s\n", r[1].machine, s.gmean,
               r[0].machine, s.n,
               s.n > 1 ? ar_printf(a, ", geometric sd %.3g, range %.3gx to %.3gx", s.gsd, s.min, s.max)
                       : " (one ratio: no spread)");
    else printf("overall: no headline metric (throughput, busbw_max) in common\n");
    if (nref)
        printf("%d row(s) refused: their workload config differs (listed above); "
               "--allow-config-diff compares them anyway, marked\n", nref);
    return cmp ? 0 : 2;
}

static int cmd_compare(int argc, char **argv)
{
    if (wants_help(argc, argv)) return fputs(help_compare, stdout), 0;
    copts_t o;
    int rc = parse(argc, argv, &o);
    if (rc >= 0) return rc;
    arena_t *a = ar_new();
    results_t *r = ar_alloc(a, o.nrun * sizeof *r);
    char err[1024];
    for (size_t i = 0; i < o.nrun; i++)
        if (results_load(a, o.run[i], &r[i], err, sizeof err)) {
            fprintf(stderr, "exadl compare: error: %s\n", err);
            ar_free(a);
            return 2;
        }
    size_t nb = o.nrun - 1;
    for (size_t i = 0; i < nb; i++)
        header(o.nrun == 2 ? "A" : ar_printf(a, "baseline %zu", i + 1), &r[i]);
    header(o.nrun == 2 ? "B" : "new", &r[nb]);
    printf("\n");
    rdiffs_t *d = ar_alloc(a, nb * sizeof *d);
    for (size_t i = 0; i < nb; i++) results_diff(a, &r[i], &r[nb], &d[i]);
    if (nb > 1) printf("(differences of baseline 1 and the new run; every baseline's config is checked)\n");
    results_diff_print(stdout, &d[0]);
    if (!o.procurement && strcmp(r[0].machine, r[nb].machine))
        printf("note: the machines differ (%s, %s): --mode procurement gives B/A ratios\n\n",
               esc_term(a, r[0].machine), esc_term(a, r[nb].machine));
    rc = o.procurement ? procurement(a, &o, r, d) : regression(a, &o, r, o.nrun, d);
    ar_free(a);
    return rc;
}

const command_t command_compare = {
    .name = "compare",
    .run = cmd_compare,
    .help = help_compare,
    .synopsis = "compare RUN_A RUN_B | --baseline RUN... NEW | --mode procurement A B",
    .summary = "differences, then regression verdicts or B/A ratios with CIs",
};
