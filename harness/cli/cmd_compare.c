/* exadl compare RUN_A RUN_B [--threshold PCT] [--metric NAME]... [--all] */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/ytree.h"
#include "harness/analysis/compare.h"
#include "harness/cli/cmds.h"
#include "harness/report/results.h"

static const char help_compare[] =
    "usage: exadl compare RUN_A RUN_B [--threshold PCT] [--metric NAME]... [--all]\n"
    "\n"
    "Compare two runs (run folders or their results.yaml) metric by metric: A, B,\n"
    "the change in percent, and a verdict.  A change counts when it is larger than\n"
    "the threshold AND the 95% confidence intervals of A and B do not overlap;\n"
    "REGRESSION is such a change for the worse (lower throughput, efficiency,\n"
    "FLOP/s or bandwidth; higher time or latency).\n"
    "\n"
    "  --threshold PCT  smallest change that counts (default 5)\n"
    "  --metric NAME    compare this metric (repeatable; `exadl metrics` lists them)\n"
    "  --all            compare every metric, each collective size included\n"
    "\n"
    "Default metrics: step_time_s, throughput_samples_per_s, efficiency,\n"
    "sustained_flops, sustained_flops_per_device, fraction_of_peak, busbw_max_GBps.\n"
    "Exit status: 0 no regression, 1 a regression, 2 bad input.\n";

static int cmd_compare(int argc, char **argv)
{
    if (wants_help(argc, argv)) return fputs(help_compare, stdout), 0;
    const char *run[2] = {NULL, NULL}, *only[64];
    size_t nrun = 0, nonly = 0;
    int all = 0;
    double threshold = 5;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--threshold")) {
            if (i + 1 >= argc || opt_parse_double(argv[i + 1], &threshold) || threshold < 0)
                return usage_error("compare", "--threshold needs a percentage >= 0");
            i++;
        } else if (!strcmp(argv[i], "--metric")) {
            if (i + 1 >= argc) return usage_error("compare", "--metric needs a name");
            if (!metric_info(argv[i + 1])) {
                const char *s = yt_suggest(argv[i + 1], metric_names());
                return usage_error("compare", "unknown metric '%s'%s%s%s", argv[i + 1],
                                   s ? " (did you mean '" : " (exadl metrics lists them)",
                                   s ? s : "", s ? "'?)" : "");
            }
            if (nonly < 64) only[nonly++] = argv[++i];
        } else if (!strcmp(argv[i], "--all")) {
            all = 1;
        } else if (argv[i][0] == '-') {
            return usage_error("compare", "unknown option '%s' (see exadl compare --help)", argv[i]);
        } else if (nrun < 2) {
            run[nrun++] = argv[i];
        } else {
            return usage_error("compare", "give exactly two runs");
        }
    }
    if (nrun != 2) return usage_error("compare", "give exactly two runs (RUN_A RUN_B)");
    arena_t *a = ar_new();
    results_t r[2];
    char err[1024];
    for (int i = 0; i < 2; i++)
        if (results_load(a, run[i], &r[i], err, sizeof err)) {
            fprintf(stderr, "exadl compare: error: %s\n", err);
            ar_free(a);
            return 2;
        }
    printf("A: %s (suite %s, host %s, %s)\nB: %s (suite %s, host %s, %s)\n\n", r[0].name,
           r[0].suite ? r[0].suite : "?", r[0].host ? r[0].host : "?",
           r[0].started_utc ? r[0].started_utc : "?", r[1].name, r[1].suite ? r[1].suite : "?",
           r[1].host ? r[1].host : "?", r[1].started_utc ? r[1].started_utc : "?");
    size_t n;
    int reg;
    cmp_row_t *rows = compare_tables(a, &r[0].t, &r[1].t, nonly ? only : NULL, nonly, all,
                                     threshold, &n, &reg);
    if (!n) printf("(no metric in common to compare)\n");
    else compare_print(stdout, a, rows, n, threshold);
    size_t onlya = 0, onlyb = 0;
    for (size_t i = 0; i < n; i++) onlya += rows[i].v == V_ONLY_A, onlyb += rows[i].v == V_ONLY_B;
    if (onlya || onlyb)
        printf("%zu metric(s) only in A, %zu only in B (a failed launch or a different suite)\n",
               onlya, onlyb);
    printf("%d regression(s)\n", reg);
    ar_free(a);
    return reg ? 1 : 0;
}

const command_t command_compare = {
    .name = "compare",
    .run = cmd_compare,
    .help = help_compare,
    .synopsis = "compare RUN_A RUN_B",
    .summary = "side by side with % change; exit 1 on a regression",
};
