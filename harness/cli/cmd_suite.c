/* exadl suite [--cpu | --gpu]: the embedded default suite, to copy and edit */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/cli/cmds.h"
#include "harness/suite/suite.h"

static const char help_suite[] =
    "usage: exadl suite [--cpu | --gpu]\n"
    "\n"
    "Print the embedded default suite as fitted to this machine (or as it would be\n"
    "on a machine without or with GPUs), to copy and edit.\n"
    "Exit status: 0 ok, 2 bad usage.\n";

static int cmd_suite(int argc, char **argv)
{
    if (wants_help(argc, argv)) return fputs(help_suite, stdout), 0;
    static const cli_opt_t opts[] = {{"--cpu", 0}, {"--gpu", 0}, {NULL, 0}};
    int want = -1; /* 0 --cpu, 1 --gpu */
    for (int i = 0; i < argc; i++) {
        const char *v;
        int k = cli_option("suite", argc, argv, &i, opts, &v);
        if (k == CLI_BAD) return 2;
        if (k == CLI_OPERAND)
            return usage_error("suite", "takes no file or name ('%s'; see exadl suite --help)",
                               argv[i]);
        if (want >= 0 && want != k) return usage_error("suite", "give --cpu or --gpu, not both");
        want = k;
    }
    machine_t m;
    machine_detect(&m);
    if (want == 1) m.gpus = m.gpus ? m.gpus : 4;
    else if (want == 0) m.gpus = 0;
    arena_t *a = ar_new();
    fputs(suite_default_text(a, &m, geteuid() == 0), stdout);
    ar_free(a);
    return 0;
}

const command_t command_suite = {
    .name = "suite",
    .run = cmd_suite,
    .help = help_suite,
    .synopsis = "suite",
    .summary = "print the embedded default suite",
};
