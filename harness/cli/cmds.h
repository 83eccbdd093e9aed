/* cmds: the exadl subcommands, one cmd_<verb>.c each, listed once in
 * EXADL_COMMANDS (main.c's dispatch, `exadl --help` and the unknown-command
 * suggestion all loop over it).  A command takes the arguments after its name
 * and returns the exit status: 0 success, 1 a failure the command found (a
 * launch, a check, a regression), 2 bad usage or bad input.
 * defines: command_t, EXADL_COMMANDS, wants_help, usage_error, cli_opt_t, cli_option */
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

/* One option of a command: its name and whether a value follows it.  Every
 * command reads its arguments through cli_option with a table of these, so
 * that a missing value and an unknown option get the same words everywhere. */
typedef struct {
    const char *name;
    int takes_value;
} cli_opt_t;

enum { CLI_OPERAND = -1, CLI_BAD = -2 };

/* argv[*i] against opts (ending with a NULL name): its index in opts, with
 * *value its value and *i moved onto it when it takes one; CLI_OPERAND for an
 * argument that is not an option ("-" alone included); CLI_BAD after one line
 * "exadl CMD: error: unknown option 'X' (see exadl CMD --help)" or "X needs a
 * value" (nothing follows, or another option of the table stands in its
 * place).  The caller returns 2 on CLI_BAD. */
int cli_option(const char *cmd, int argc, char **argv, int *i, const cli_opt_t *opts,
               const char **value);

#endif
