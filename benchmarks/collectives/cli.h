/* cli: command-line values for the collectives program.  A bad value is one
 * line "collectives: error: ..." from rank 0 and exit status 2 on every rank
 * (all ranks parse the same arguments, so they all stop at the same place). */
#ifndef EXADL_COLL_CLI_H
#define EXADL_COLL_CLI_H

#include <stddef.h>

void coll_cli_set_rank(int rank);
void coll_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* The value after option argv[*i] ("--opt VALUE" or "--opt=VALUE" given as
 * inline); advances *i. */
const char *coll_arg_value(int argc, char **argv, int *i, const char *inline_val);
long long coll_arg_int(const char *opt, const char *val, long long min, long long max);
size_t coll_arg_size(const char *opt, const char *val);
/* One of choices (NULL-terminated): its index. */
int coll_arg_choice(const char *opt, const char *val, const char *const *choices);
/* "a,b,c" or "all" over choices: sets picked[i]; returns how many. */
int coll_arg_choice_list(const char *opt, const char *val, const char *const *choices, int *picked);

#endif
