/* exadl: the ExaDL harness.  Runs suites of benchmarks at increasing scale
 * through a launcher, analyses their records, plots, checks against reference
 * numbers, reports, and compares runs.  See docs/harness.md. */
#include <stdio.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/ytree.h"
#include "harness/cli/cmds.h"

static const char help_top[] =
    "usage: exadl COMMAND [ARGS]   (exadl COMMAND --help for each)\n"
    "\n"
    "  run [SUITE.yaml]       run a suite (default: the embedded one) and write\n"
    "                         results/<time>-<host>-<suite>/ with report.md\n"
    "  validate [SUITE.yaml]  check a suite without running it; print the plan\n"
    "  check RUN              evaluate reference files: PASS/FAIL per check\n"
    "  compare RUN_A RUN_B    side by side with % change; exit 1 on a regression\n"
    "  history RUN...         one metric across many runs, tabulated and plotted\n"
    "  summary RUN            the summary table of a run\n"
    "  model RUN|--network P  predict step time and efficiency at any GPU count\n"
    "  sysinfo                the system block a record of this machine holds\n"
    "  suite                  print the embedded default suite\n"
    "  metrics                the metric names reference files may use\n"
    "  bind -- CMD            run CMD bound to one GPU by its local rank\n"
    "\n"
    "Documentation: docs/harness.md.  Exit status: 0 ok, 1 something the command\n"
    "checks failed (a launch, a check, a regression), 2 bad usage or bad input.\n";

typedef struct {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} command_t;

static const command_t commands[] = {
    {"run", cmd_run, help_run},           {"validate", cmd_validate, help_validate},
    {"check", cmd_check, help_check},     {"compare", cmd_compare, help_compare},
    {"history", cmd_history, help_history}, {"summary", cmd_summary, help_summary},
    {"sysinfo", cmd_sysinfo, help_sysinfo}, {"suite", cmd_suite, help_suite},
    {"metrics", cmd_metrics, help_metrics}, {"bind", cmd_bind, help_bind},
    {"model", cmd_model, help_model},
    {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
    check_set_program("exadl");
    if (argc < 2) {
        fputs(help_top, stderr);
        return 2;
    }
    const char *c = argv[1];
    if (!strcmp(c, "-h") || !strcmp(c, "--help") || !strcmp(c, "help")) {
        if (argc > 2)
            for (const command_t *k = commands; k->name; k++)
                if (!strcmp(k->name, argv[2])) return fputs(k->help, stdout), 0;
        fputs(help_top, stdout);
        return 0;
    }
    for (const command_t *k = commands; k->name; k++)
        if (!strcmp(k->name, c)) return k->fn(argc - 2, argv + 2);
    const char *names[16];
    int n = 0;
    for (const command_t *k = commands; k->name && n < 15; k++) names[n++] = k->name;
    names[n] = NULL;
    const char *s = yt_suggest(c, names);
    if (s) fprintf(stderr, "exadl: error: unknown command '%s' (did you mean '%s'?)\n", c, s);
    else fprintf(stderr, "exadl: error: unknown command '%s' (exadl --help lists them)\n", c);
    return 2;
}
