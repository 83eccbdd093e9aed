/* exadl run [SUITE.yaml] [--out DIR] [--reference FILE]... [--dry-run]: the
 * stages of run_stages.c, in order, over one run context. */
#define _GNU_SOURCE
#include <stdio.h>

#include "benchmarks/common/timer.h"
#include "harness/cli/cmds.h"
#include "harness/cli/run_stages.h"
#include "harness/run/launch.h"

static const char help_run[] =
    "usage: exadl run [SUITE.yaml] [--out DIR] [--reference FILE]... [--dry-run]\n"
    "\n"
    "Run a suite: every benchmark at every scale and repetition, through the suite's\n"
    "launcher, one launch at a time, then analyse, plot, check and report.  Without\n"
    "SUITE the embedded default suite runs (`exadl suite` prints it).\n"
    "\n"
    "  --out DIR         create the run folder in DIR (default: results/ of the project)\n"
    "  --reference FILE  also check against FILE (besides the suite's references)\n"
    "  --dry-run         print the plan (every command) and stop\n"
    "\n"
    "Writes DIR/<UTC time>-<host>-<suite>/ with suite.yaml, records/, logs/,\n"
    "results.yaml, report.md, plots/ and references/; never overwrites a run.\n"
    "Exit status: 0 all launches ok and all checks passed; 1 a launch failed or a\n"
    "check failed (everything else is still written); 2 bad usage or a bad suite;\n"
    "130 interrupted (what ran is written).\n";

static int cmd_run(int argc, char **argv)
{
    if (wants_help(argc, argv)) return fputs(help_run, stdout), 0;
    run_t r = {.argc = argc, .argv = argv, .started_s = timer_now_s()};
    r.c.a = ar_new();
    const stage_t *st = run_stages;
    for (; st->name; st++) {
        double t = timer_now_s();
        int stopped = st->run(&r);
        if (st->time_field != STAGE_UNTIMED)
            *(double *)((char *)&r.c.ri + st->time_field) += timer_now_s() - t;
        if (stopped) break;
    }
    int status = st->name ? r.status : r.c.ri.exit_status;
    launch_set_probe_env(NULL, 0);
    ar_free(r.c.a);
    return status;
}

const command_t command_run = {
    .name = "run",
    .run = cmd_run,
    .help = help_run,
    .synopsis = "run [SUITE.yaml]",
    .summary = "run a suite (default: the embedded one) and write\n"
               "results/<time>-<host>-<suite>/ with report.md",
};
