/* exadl summary RUN: the summary table of a finished run */
#define _GNU_SOURCE
#include <stdio.h>

#include "harness/cli/cmds.h"
#include "harness/report/results.h"
#include "harness/report/summary.h"

static const char help_summary[] =
    "usage: exadl summary RUN\n\nPrint the summary table of a finished run (a run folder or its "
    "results.yaml).\n"
    "Exit status: 0 ok, 2 bad usage or a run folder that cannot be read.\n";

static int cmd_summary(int argc, char **argv)
{
    if (wants_help(argc, argv)) return fputs(help_summary, stdout), 0;
    if (argc != 1) return usage_error("summary", "give one run folder");
    arena_t *a = ar_new();
    results_t r;
    char err[1024];
    if (results_load(a, argv[0], &r, err, sizeof err)) {
        fprintf(stderr, "exadl summary: error: %s\n", err);
        ar_free(a);
        return 2;
    }
    printf("run %s (suite %s, %s, status %s)\n\n", r.name, r.suite ? r.suite : "?",
           r.started_utc ? r.started_utc : "?", r.status ? r.status : "?");
    summary_print(stdout, &r.t, &r.checks, 0);
    printf("report: %s/report.md\n", r.dir);
    ar_free(a);
    return 0;
}

const command_t command_summary = {
    .name = "summary",
    .run = cmd_summary,
    .help = help_summary,
    .synopsis = "summary RUN",
    .summary = "the summary table of a run",
};
