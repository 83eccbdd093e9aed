/* exadl run [SUITE.yaml] [--out DIR] [--reference FILE]... [--dry-run]
 * [--preflight|--no-preflight], exadl run --resume DIR: the stages of
 * run_stages.c, in order, over one run context. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/timer.h"
#include "harness/cli/cmds.h"
#include "harness/cli/run_stages.h"
#include "harness/proc/launch.h"

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
    "written; `exadl run --resume RUN_DIR` completes it).\n"
    "Before the run folder is made each benchmark program checks its configuration\n"
    "(PROGRAM ... --check-config, as exadl validate does): a refusal is exit 2.\n"
    "As root with Open MPI's mpirun (launcher mpirun or netns) it refuses to start\n"
    "(exit 2) unless OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1\n"
    "are exported or in the suite's env: (or launcher_args has --allow-run-as-root).\n";

/* a variable as a launch of b sees it: b's env (the suite's merged in; value
 * NULL: unset there) over exadl's own */
static const char *launch_env(const bench_spec_t *b, const char *name)
{
    for (size_t e = b->nenv; e-- > 0;)
        if (!strcmp(b->env[e].key, name)) return b->env[e].value;
    return getenv(name);
}

/* whether prog is Open MPI's mpirun ("mpirun (Open MPI) 4.1.4"); unknown
 * (it does not start) counts as no: its launches then fail with their own words */
static int is_open_mpi(const char *prog)
{
    char *argv[] = {(char *)prog, "--version", NULL};
    char *out = spawn_capture(argv, 20, NULL, 0);
    int yes = out && (strstr(out, "Open MPI") || strstr(out, "OpenRTE"));
    free(out);
    return yes;
}

const char *run_root_refusal(arena_t *a, const suite_t *s)
{
    if (geteuid() != 0) return NULL;
    int netns = !strcmp(s->launcher->name, "netns");
    if (strcmp(s->launcher->name, "mpirun") && !netns) return NULL;
    for (size_t i = 0; i < s->nlauncher_args; i++)
        if (!strcmp(s->launcher_args[i], "--allow-run-as-root")) return NULL;
    const char *bad = NULL;
    for (size_t i = 0; i < s->nbench && !bad; i++) {
        const char *r1 = launch_env(&s->bench[i], "OMPI_ALLOW_RUN_AS_ROOT");
        const char *r2 = launch_env(&s->bench[i], "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM");
        /* mpirun accepts exactly "1" in both */
        if (!r1 || !r2 || strcmp(r1, "1") || strcmp(r2, "1")) bad = s->bench[i].name;
    }
    if (!bad) return NULL;
    const char *env = getenv("EXADL_MPIRUN");
    const char *prog = s->launcher_command && !netns ? s->launcher_command
                       : env && *env                  ? env
                                                      : "mpirun";
    if (!is_open_mpi(prog)) return NULL;
    return ar_printf(a, "exadl runs as root and Open MPI's mpirun (%s) refuses root: every launch "
                        "of %s would fail at once; export OMPI_ALLOW_RUN_AS_ROOT=1 and "
                        "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 (or set both to \"1\" in the suite's "
                        "env:), or run exadl as a user", prog, bad);
}

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
