/* exadl compare: regression (A or a pool of baselines against a new run) and
 * procurement (B / A with a CI, a winner per row, the overall geometric mean),
 * after listing every difference in versions, machine, system and config;
 * rows whose workload config differs are refused (or marked).  Procurement
 * mode is cmd_compare_proc.c; this file parses, loads, lists the differences
 * and runs regression mode. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/ytree.h"
#include "harness/analysis/compare.h"
#include "harness/analysis/verdict.h"
#include "harness/cli/cmd_compare_proc.h"
#include "harness/cli/cmds.h"
#include "harness/cli/text_table.h"
#include "harness/report/results.h"
#include "harness/report/results_diff.h"
#include "harness/report/results_pool.h"
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
    "baseline pool (A, or every --baseline run).  The statistic: the ratio of medians\n"
    "new / baseline of the pooled samples of each side (the timed steps of every launch\n"
    "where RUN/records/ keeps them and agrees with results.yaml, else each launch's\n"
    "median, else one value per run) with its 95% CI by a staged percentile\n"
    "bootstrap (Efron & Tibshirani, An Introduction to the Bootstrap, 1993): each of\n"
    "4000 resamples draws each side's launches with replacement, then the steps within\n"
    "each drawn launch, so the variation across launches counts; a pool of two or more\n"
    "baseline runs is drawn by runs first, and the new run takes on their run-to-run\n"
    "drift; fixed seed, so the same runs always give the same numbers.  One baseline\n"
    "run cannot show how runs differ: give two or more where runs drift.\n"
    "With the threshold T (--threshold, else\n"
    "the new run's suite key regression_threshold_pct, else 5%):\n"
    "  REGRESSION    the whole CI beyond 1+T/100 on the worse side\n"
    "  improvement   the whole CI beyond it on the better side\n"
    "  no change     the whole CI within [1/(1+T/100), 1+T/100]\n"
    "  inconclusive  otherwise, with the launches per side that would narrow the CI\n"
    "                enough to decide (computed from its width, if the spread stays)\n"
    "Interference (a launch's `interference: {verdict: busy}` in results.yaml) only\n"
    "slows a run down: a slower new run measured while the machine was busy, or a\n"
    "faster one against a busy baseline, is inconclusive; every busy side is named.\n"
    "\n"
    "Procurement: per metric and scale the ratio B/A with its 95% CI (delta method on the\n"
    "log scale: the half-widths of log A and log B, each the larger of its median's CI and\n"
    "of the spread across launches, add in quadrature), the winner (the side the CI points\n"
    "to; a CI holding 1 is a tie), and the geometric mean of the speed ratios (larger: B\n"
    "faster) over the headline metrics (throughput, busbw_max) with its geometric sd\n"
    "and its 95% CI (the rows' log half-widths averaged: never narrower than the rows\n"
    "allow); a tie where that CI holds 1; the tags of its rows (busy, config differs).\n"
    "\n"
    "  --baseline RUN...    baseline runs (every run given but the last)\n"
    "  --mode regression|procurement\n"
    "  --threshold PCT      smallest change that counts in regression mode (default: the\n"
    "                       suite's regression_threshold_pct, else 5)\n"
    "  --metric NAME        compare this metric (repeatable; `exadl metrics` lists them)\n"
    "  --all                compare every metric, each collective size included\n"
    "  --allow-config-diff  compare rows whose workload config differs, marked '(config differs)'\n"
    "  --ignore-interference  decide as if no launch was busy (the busy tags stay): for\n"
    "                       runs known to share the machine alike\n"
    "\n"
    "Default metrics: step_time_s, throughput_samples_per_s, efficiency,\n"
    "sustained_flops, sustained_flops_per_device, fraction_of_peak, busbw_max_GBps,\n"
    "energy_j_per_sample, energy_flops_per_w (where the runs measured energy).\n"
    "Machines are shown by their name (suite `machine:` or `exadl run --machine`).\n"
    "Exit status: 0 no regression (procurement: 0), 1 a regression, 2 bad usage or input\n"
    "(a damaged run folder or record) or nothing comparable.\n";

static int parse(int argc, char **argv, copts_t *o)
{
    memset(o, 0, sizeof *o);
    o->threshold = NAN;
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "--threshold")) {
            if (i + 1 >= argc || opt_parse_double(argv[i + 1], &o->threshold) ||
                !(o->threshold >= 0 && o->threshold <= 1000))
                return usage_error("compare", "--threshold needs a percentage in [0, 1000]");
            o->threshold_from = " (--threshold)";
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
        } else if (!strcmp(s, "--ignore-interference")) {
            o->ignore_intf = 1;
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

/* "2/3" busy launches, or NULL when none was busy */
static const char *busy_tag(arena_t *a, const pinter_t *p)
{
    return p->busy ? ar_printf(a, "%zu/%zu", p->busy, p->launches) : NULL;
}

static const char *verdict_text(arena_t *a, const vjudge_t *j, const rpool_t *p)
{
    const char *unit = p->level == PL_RUNS ? "runs" : "launches";
    switch (j->v == RV_INCONCLUSIVE ? j->why : RW_NONE) {
    case RW_WIDE:
        if (!j->need_base)
            return ar_printf(a, "inconclusive: the CI (+-%.3g%%) holds the threshold and the change "
                             "sits on it: more %s would not decide", j->half_pct, unit);
        return ar_printf(a, "inconclusive: CI +-%.3g%% holds the threshold; ~%zu/%zu %s (now "
                         "%zu/%zu) would narrow it to +-%.3g%%", j->half_pct, j->need_base,
                         j->need_new, unit, j->nbase, j->nnew, j->need_pct);
    case RW_ONE_EACH:
        return ar_printf(a, "inconclusive: one value a side, no spread to judge by (%s)",
                         p->level == PL_RUNS ? "give 2 or more baseline runs"
                                             : "repetitions: 2 or more");
    case RW_NO_RATIO: return "inconclusive: no ratio (a median is 0 or missing)";
    case RW_BUSY_NEW:
        return ar_printf(a, "inconclusive: slower, but the new run was measured while the machine "
                         "was busy (%zu/%zu launches)", p->in.busy, p->in.launches);
    case RW_BUSY_BASE:
        return ar_printf(a, "inconclusive: faster, but the baseline was measured while the machine "
                         "was busy (%zu/%zu launches)", p->ib.busy, p->ib.launches);
    case RW_NONE: break;
    }
    return rverdict_name(j->v);
}

/* one line per side that was measured under interference, or whose
 * interference was not recorded (an older run) */
static void interference_lines(arena_t *a, results_t *r, size_t nr)
{
    size_t unknown = 0;
    for (size_t i = 0; i < nr; i++) {
        pinter_t p;
        results_interference(&r[i], NULL, 0, &p);
        const char *who = i + 1 == nr ? "the new run" : nr == 2 ? "the baseline" : ar_printf(a, "baseline %zu", i + 1);
        if (p.busy)
            printf("interference: %s: %zu of %zu launches measured while the machine was busy "
                   "(%s)\n", who, p.busy, p.launches,
                   i + 1 == nr ? "slower than the baseline is no regression then"
                               : "faster than it is no improvement then");
        unknown += p.launches && p.busy + p.quiet < p.launches;
    }
    if (unknown)
        printf("interference: not recorded for every launch of %zu run(s) (taken as not busy)\n", unknown);
}

static int regression(arena_t *a, const copts_t *o, results_t *r, size_t nr, rdiffs_t *d)
{
    const results_t *nw = &r[nr - 1];
    size_t nb = nr - 1;
    table_t tab = {.ncol = 7};
    table_row(a, &tab, (const char *[]){"metric", "benchmark", "baseline", "new", "new/baseline [95% CI]",
                                        "n b/new", "verdict"});
    int reg = 0, cmp = 0, nref = 0, ninc = 0;
    char err[1024];
    const results_t **runs = ar_alloc(a, (nb + 1) * sizeof *runs);
    const metric_t **rows = ar_alloc(a, (nb + 1) * sizeof *rows);
    for (size_t i = 0; i < nw->t.n; i++) {
        const metric_t *m = &nw->t.m[i];
        if (!compare_wanted(m, o->nonly ? o->only : NULL, o->nonly, o->all)) continue;
        size_t np = 0;
        for (size_t b = 0; b < nb; b++)
            for (size_t j = 0; j < r[b].t.n; j++)
                if (compare_same_row(&r[b].t.m[j], m)) {
                    runs[np] = &r[b], rows[np++] = &r[b].t.m[j];
                    break;
                }
        char vb[96] = "-", vn[96], rr[64] = "-", nn[32] = "-";
        const char *verdict;
        compare_fmt_ci(vn, sizeof vn, m->value, NAN, NAN, m->unit);
        if (!np) {
            verdict = "only in the new run";
        } else if (copts_refused(o, d, nb, m)) {
            verdict = "refused: config differs";
            nref++;
        } else {
            rpool_t p;
            if (results_pool(a, runs, rows, np, nw, m, &p, err, sizeof err)) {
                fprintf(stderr, "exadl compare: error: %s\n", err);
                return 2;
            }
            vjudge_t j;
            verdict_judge(&p.base, &p.nw, m->better, o->threshold, !o->ignore_intf && p.ib.busy > 0,
                          !o->ignore_intf && p.in.busy > 0, &j);
            compare_fmt_ci(vb, sizeof vb, j.base, NAN, NAN, m->unit);
            compare_fmt_ci(vn, sizeof vn, j.nw, NAN, NAN, m->unit);
            if (isfinite(j.lo)) snprintf(rr, sizeof rr, "%.3gx [%.3g, %.3g] %+.1f%%", j.r, j.lo, j.hi, j.change_pct);
            else if (isfinite(j.r)) snprintf(rr, sizeof rr, "%.3gx (no CI) %+.1f%%", j.r, j.change_pct);
            snprintf(nn, sizeof nn, "%zu/%zu %s", p.base.ngroup, p.nw.ngroup,
                     p.level == PL_RUNS ? "runs" : "launches");
            verdict = verdict_text(a, &j, &p);
            const char *bb = busy_tag(a, &p.ib), *bn = busy_tag(a, &p.in);
            if (bb) verdict = ar_printf(a, "%s [baseline busy %s]", verdict, bb);
            if (bn) verdict = ar_printf(a, "%s [new busy %s]", verdict, bn);
            if (copts_marked(d, nb, m)) verdict = ar_printf(a, "%s (config differs)", verdict);
            reg += j.v == RV_REGRESSION, ninc += j.v == RV_INCONCLUSIVE, cmp++;
        }
        table_row(a, &tab, (const char *[]){m->metric, metric_label(a, m), vb, vn, rr, nn, verdict});
    }
    table_print(&tab);
    printf("\nbaseline: %zu run(s), pooled.  new/baseline: the ratio of the medians of the pooled "
           "samples (each launch's timed steps where the records keep them, else each launch's "
           "median, else one value per run); 95%% CI: percentile bootstrap in stages (baseline "
           "runs, launches, steps within each; %d resamples, fixed seed; Efron & Tibshirani 1993).  Threshold "
           "%.3g%%%s: a verdict where the whole CI lies beyond %.4gx on one side, or within "
           "[%.4g, %.4g] (no change)\n", nb, BOOT_RESAMPLES, o->threshold,
           o->threshold_from, 1 + o->threshold / 100, 1 / (1 + o->threshold / 100), 1 + o->threshold / 100);
    if (nb == 1)
        printf("one baseline run: the CI holds the variation between its launches, not between "
               "runs (which a run's launches cannot show); with two or more (--baseline) the runs "
               "are a stage of the bootstrap and the new run takes on their drift\n");
    interference_lines(a, r, nr);
    if (nref)
        printf("%d row(s) refused: their workload config differs (listed above); "
               "--allow-config-diff compares them anyway, marked\n", nref);
    printf("%d compared: %d regression(s), %d inconclusive\n", cmp, reg, ninc);
    if (!cmp) return 2;
    return reg ? 1 : 0;
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
    if (isnan(o.threshold)) { /* the new run's suite, else 5% */
        if (results_threshold(a, &r[o.nrun - 1], &o.threshold, err, sizeof err)) {
            fprintf(stderr, "exadl compare: error: %s\n", err);
            ar_free(a);
            return 2;
        }
        o.threshold_from = isnan(o.threshold) ? " (the default)" : " (the suite's regression_threshold_pct)";
        if (isnan(o.threshold)) o.threshold = 5;
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
    rc = o.procurement ? cproc_run(a, &o, r, d) : regression(a, &o, r, o.nrun, d);
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
