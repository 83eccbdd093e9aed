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
    machine_t m;
    machine_detect(&m);
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--gpu")) m.gpus = m.gpus ? m.gpus : 4;
        else if (!strcmp(argv[i], "--cpu")) m.gpus = 0;
        else return usage_error("suite", "unknown option '%s'", argv[i]);
    }
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
