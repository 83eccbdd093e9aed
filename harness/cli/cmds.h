/* cmds: the exadl subcommands.  Each takes the arguments after its name and
 * returns the exit status: 0 success, 1 a failure the command found (a
 * launch, a check, a regression), 2 bad usage or bad input. */
#ifndef EXADL_HARNESS_CMDS_H
#define EXADL_HARNESS_CMDS_H

int cmd_run(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_sysinfo(int argc, char **argv);
int cmd_suite(int argc, char **argv);
int cmd_bind(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_model(int argc, char **argv);

/* "-h" or "--help" among the arguments. */
int wants_help(int argc, char **argv);
/* One line "exadl COMMAND: error: ..." to stderr; returns 2. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The per-command help texts (main.c prints them). */
extern const char help_run[], help_validate[], help_check[], help_compare[], help_history[],
    help_summary[], help_sysinfo[], help_suite[], help_bind[], help_metrics[], help_model[];

#endif
