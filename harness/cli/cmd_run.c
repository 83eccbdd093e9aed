/* exadl run [SUITE.yaml] [--out DIR] [--reference FILE]... [--dry-run]
 * [--preflight|--no-preflight], exadl run --resume DIR: the stages of
 * run_stages.c, in order, over one run context. */
#define _GNU_SOURCE
#include <stdio.h>

#include "benchmarks/common/timer.h"
#include "harness/cli/cmds.h"
#include "harness/cli/run_stages.h"

static const char help_run[] =
    "usage: exadl run [SUITE.yaml] [--out DIR] [--reference FILE]... [--dry-run]\n"
    "                 [--preflight | --no-preflight] [--remeasure-peak]\n"
    "       exadl run --resume RUN_DIR\n"
    "\n"
    "Run a suite: every benchmark at every scale and repetition, through the suite's\n"
    "launcher, one launch at a time, then analyse, plot, check and report.  Without\n"
    "SUITE the embedded default suite runs (`exadl suite` prints it).\n"
    "\n"
    "  --out DIR         create the run folder in DIR (default: results/ of the project)\n"
    "  --machine NAME    the name compare, history and reports show for this machine\n"
    "                    (instead of the host name; the suite's machine: key also sets it)\n"
    "  --reference FILE  also check against FILE (besides the suite's references)\n"
    "  --dry-run         print the plan (every command) and stop\n"
    "  --preflight       first start a 1-rank job under the launcher (build/bin/mpiprobe)\n"
    "                    and stop with what to set if it fails; the default for srun\n"
    "  --no-preflight    do not\n"
    "  --remeasure-peak  measure the CPU peak again (5 runs of peak_cpu) instead of using\n"
    "                    this machine's cached one (EXADL_PEAK_CACHE, else\n"
    "                    $XDG_CACHE_HOME/exadl/peak-HOST.yaml or ~/.cache/exadl/...)\n"
    "  --resume RUN_DIR  continue an interrupted or hard-stopped run in its folder: its\n"
    "                    finished launches (journal.yaml) are kept, the others run, and\n"
    "                    results.yaml and report.md are written anew\n"
    "\n"
    "Writes DIR/<UTC time>-<host>-<suite>/ with suite.yaml, run.yaml, journal.yaml,\n"
    "records/, logs/, results.yaml, report.md, plots/ and references/; never\n"
    "overwrites a run.  Signals: SIGINT, SIGTERM, SIGHUP ... stop the running launch;\n"
    "SIGUSR1 and SIGUSR2 (Slurm's --signal=B:USR1@T) let it finish; either way no\n"
    "other launch starts and the results of what ran are written.  SIGPIPE is\n"
    "ignored.  Inside a Slurm allocation a launch that fails because the job ended\n"
    "(time limit, scancel) stops the run as interrupted, not failed.\n"
    "Exit status: 0 all launches ok and all checks passed; 1 a launch failed or a\n"
    "check failed (everything else is still written); 2 bad usage, a bad suite or a\n"
    "failed preflight, or a reference error (a check's where selects nothing the\n"
    "run ran; everything is still written); 130 interrupted: a launch stopped or not run (what ran is\n"
    "written; `exadl run --resume RUN_DIR` completes it).\n";

static int cmd_run(int argc, char **argv)
{
    if (wants_help(argc, argv)) return fputs(help_run, stdout), 0;
    run_t r = {.argc = argc, .argv = argv, .started_s = timer_now_s(), .preflight = -1};
    return run_pipeline(&r);
}

const command_t command_run = {
    .name = "run",
    .run = cmd_run,
    .help = help_run,
    .synopsis = "run [SUITE.yaml]",
    .summary = "run a suite (default: the embedded one) and write\n"
               "results/<time>-<host>-<suite>/ with report.md",
};
