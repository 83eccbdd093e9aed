/* exadl analyze RUN_DIR: results.yaml and report.md of a run folder rebuilt
 * from whatever it holds (journal.yaml, records, logs), running nothing: the
 * stages of `exadl run --resume`, with the sweep only reading. */
#define _GNU_SOURCE
#include <stdio.h>

#include "benchmarks/common/timer.h"
#include "harness/cli/cmds.h"
#include "harness/cli/run_stages.h"

static const char help_analyze[] =
    "usage: exadl analyze RUN_DIR\n"
    "\n"
    "Rebuild results.yaml and report.md of a run folder from what it holds, running\n"
    "nothing: for a run stopped hard (SIGKILL, a lost node, a time limit without the\n"
    "warning signal) that left records and logs but no results.yaml, or to redo the\n"
    "analysis with a newer exadl.  Each launch is judged by its line in journal.yaml;\n"
    "a launch without one by its record; one without a record but with a log is\n"
    "interrupted (the run stopped during it); the rest were not run.  The suite, the\n"
    "plan and the reference copies come from the folder (suite.yaml, run.yaml).\n"
    "`exadl run --resume RUN_DIR` also runs what is missing.\n"
    "Exit status: as `exadl run` (0 all ok, 1 a launch or check failed, 130 launches\n"
    "interrupted or not run), 2 when RUN_DIR is not a readable run folder or a\n"
    "reference error.\n";

static int cmd_analyze(int argc, char **argv)
{
    if (wants_help(argc, argv)) return fputs(help_analyze, stdout), 0;
    if (argc != 1 || argv[0][0] == '-')
        return usage_error("analyze", "give one run folder (see exadl analyze --help)");
    run_t r = {.started_s = timer_now_s(), .resume = argv[0], .analyze = 1, .preflight = 0};
    return run_pipeline(&r);
}

const command_t command_analyze = {
    .name = "analyze",
    .run = cmd_analyze,
    .help = help_analyze,
    .synopsis = "analyze RUN_DIR",
    .summary = "rebuild a run folder's results.yaml and report.md\n"
               "from its records (nothing runs)",
};
