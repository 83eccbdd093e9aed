/* What every command shares (cmds.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "harness/cli/cmds.h"

int wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--")) return 0;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return 1;
    }
    return 0;
}

int usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "exadl %s: error: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

static int cli_find(const cli_opt_t *opts, const char *name)
{
    for (int k = 0; opts[k].name; k++)
        if (!strcmp(opts[k].name, name)) return k;
    return -1;
}

int cli_option(const char *cmd, int argc, char **argv, int *i, const cli_opt_t *opts,
               const char **value)
{
    const char *a = argv[*i];
    *value = NULL;
    if (a[0] != '-' || !a[1]) return CLI_OPERAND;
    int k = cli_find(opts, a);
    if (k < 0) {
        usage_error(cmd, "unknown option '%s' (see exadl %s --help)", a, cmd);
        return CLI_BAD;
    }
    if (!opts[k].takes_value) return k;
    /* `--out --dry-run` is a forgotten value, not a folder named --dry-run */
    if (*i + 1 >= argc || cli_find(opts, argv[*i + 1]) >= 0) {
        usage_error(cmd, "%s needs a value (see exadl %s --help)", a, cmd);
        return CLI_BAD;
    }
    *value = argv[++*i];
    return k;
}
