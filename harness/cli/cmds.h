/* cmds: the exadl subcommands, one cmd_<verb>.c each, listed once in
 * EXADL_COMMANDS (main.c's dispatch, `exadl --help` and the unknown-command
 * suggestion all loop over it).  A command takes the arguments after its name
 * and returns the exit status: 0 success, 1 a failure the command found (a
 * launch, a check, a regression), 2 bad usage or bad input.
 * defines: command_t, EXADL_COMMANDS, wants_help, usage_error */
#ifndef EXADL_HARNESS_CMDS_H
#define EXADL_HARNESS_CMDS_H

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;     /* `exadl NAME --help` */
    const char *synopsis; /* left column of `exadl --help`: "run [SUITE.yaml]" */
    const char *summary;  /* right column; "\n" continues it on the next line */
} command_t;

/* Every command, in the order `exadl --help` lists them: X(verb) names the
 * command_t command_<verb> its cmd_<verb>.c defines.  A new command is one
 * file and one entry here. */
#define EXADL_COMMANDS(X)                                                                        \
    X(run) X(analyze) X(validate) X(check) X(compare) X(history) X(summary) X(model) X(sysinfo) X(suite)   \
    X(metrics) X(bind)

#define EXADL_COMMAND_DECLARE(verb) extern const command_t command_##verb;
EXADL_COMMANDS(EXADL_COMMAND_DECLARE)
#undef EXADL_COMMAND_DECLARE

/* "-h" or "--help" among the arguments (before a "--"). */
int wants_help(int argc, char **argv);
/* One line "exadl COMMAND: error: ..." to stderr; returns 2. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
