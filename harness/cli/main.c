/* exadl: the ExaDL harness.  Runs suites of benchmarks at increasing scale
 * through a launcher, analyses their records, plots, checks against reference
 * numbers, reports, and compares runs.  See docs/harness.md.
 * The commands are the table below, built from EXADL_COMMANDS (cmds.h):
 * `exadl --help`, `exadl help NAME` and the dispatch loop over it. */
#include <stdio.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/ytree.h"
#include "harness/cli/cmds.h"

#define EXADL_COMMAND_ENTRY(verb) &command_##verb,
static const command_t *const commands[] = {EXADL_COMMANDS(EXADL_COMMAND_ENTRY) NULL};
#undef EXADL_COMMAND_ENTRY

enum { SYNOPSIS_WIDTH = 21 }; /* "  run [SUITE.yaml]       run a suite ..." */

static void print_top_help(FILE *f)
{
    fputs("usage: exadl COMMAND [ARGS]   (exadl COMMAND --help for each)\n\n", f);
    for (const command_t *const *k = commands; *k; k++) {
        fprintf(f, "  %-*s  ", SYNOPSIS_WIDTH, (*k)->synopsis);
        for (const char *s = (*k)->summary; *s;) {
            size_t l = strcspn(s, "\n");
            fprintf(f, "%.*s\n", (int)l, s);
            s += l;
            if (*s == '\n' && *++s) fprintf(f, "  %-*s  ", SYNOPSIS_WIDTH, "");
        }
    }
    fputs("\nDocumentation: docs/harness.md.  Exit status: 0 ok, 1 something the command\n"
          "checks failed (a launch, a check, a regression), 2 bad usage or bad input.\n",
          f);
}

static const command_t *find(const char *name)
{
    for (const command_t *const *k = commands; *k; k++)
        if (!strcmp((*k)->name, name)) return *k;
    return NULL;
}

int main(int argc, char **argv)
{
    check_set_program("exadl");
    if (argc < 2) {
        print_top_help(stderr);
        return 2;
    }
    const char *c = argv[1];
    if (!strcmp(c, "-h") || !strcmp(c, "--help") || !strcmp(c, "help")) {
        const command_t *k = argc > 2 ? find(argv[2]) : NULL;
        /* the command answers its own --help: one text whichever way it is asked */
        char *hv[] = {"--help", NULL};
        if (k) return k->run(1, hv);
        print_top_help(stdout);
        return 0;
    }
    const command_t *k = find(c);
    if (k) return k->run(argc - 2, argv + 2);
    const char *names[sizeof commands / sizeof *commands];
    size_t n = 0;
    for (const command_t *const *x = commands; *x; x++) names[n++] = (*x)->name;
    names[n] = NULL;
    const char *s = yt_suggest(c, names);
    if (s) fprintf(stderr, "exadl: error: unknown command '%s' (did you mean '%s'?)\n", c, s);
    else fprintf(stderr, "exadl: error: unknown command '%s' (exadl --help lists them)\n", c);
    return 2;
}
