/* exadl metrics: the metric names results.yaml holds and reference files may check */
#define _GNU_SOURCE
#include <stdio.h>

#include "harness/analysis/metrics.h"
#include "harness/cli/cmds.h"

static const char help_metrics[] =
    "usage: exadl metrics\n\nList the metric names results.yaml holds and reference files may "
    "check.\n"
    "Exit status: 0 ok, 2 bad usage.\n";

static int cmd_metrics(int argc, char **argv)
{
    if (wants_help(argc, argv)) return fputs(help_metrics, stdout), 0;
    static const cli_opt_t none[] = {{NULL, 0}};
    for (int i = 0; i < argc; i++) {
        const char *v;
        if (cli_option("metrics", argc, argv, &i, none, &v) == CLI_BAD) return 2;
        return usage_error("metrics", "takes no arguments ('%s'; see exadl metrics --help)", argv[i]);
    }
    printf("%-38s %-10s %-7s %s\n", "metric", "unit", "better", "meaning");
    for (const metric_info_t *m = metric_catalog(); m->name; m++)
        printf("%-38s %-10s %-7s %s%s\n", m->name, *m->unit ? m->unit : "-",
               m->better > 0 ? "higher" : m->better < 0 ? "lower" : "-", m->what,
               m->per_scale ? "" : " (per configuration, not per scale)");
    return 0;
}

const command_t command_metrics = {
    .name = "metrics",
    .run = cmd_metrics,
    .help = help_metrics,
    .synopsis = "metrics",
    .summary = "the metric names reference files may use",
};
