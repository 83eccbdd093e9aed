/* mpiopt: command-line values of the MPI benchmark programs (collectives,
 * orchestration): "--opt VALUE" or "--opt=VALUE", integers, sizes, choices
 * and comma-separated choice lists.  A bad value is one line
 * "PROGRAM: error: ... (see PROGRAM --help)" from rank 0 and exit status 2 on
 * every rank after MPI_Finalize: all ranks parse the same arguments, so they
 * all stop at the same place and mpirun reports no aborted job.
 * defines: mpiopt_init, mpiopt_usage_error, mpiopt_option, mpiopt_value, mpiopt_int,
 * mpiopt_size, mpiopt_choice, mpiopt_choice_list */
#ifndef EXADL_MPIOPT_H
#define EXADL_MPIOPT_H

#include <stddef.h>

/* The program named in messages, and this process's rank (only rank 0 prints). */
void mpiopt_init(const char *program, int rank);
void mpiopt_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* The option named by arg: arg itself, or for "--opt=VALUE" its "--opt"
 * copied into name (namelen bytes); *inline_val is VALUE there, else NULL
 * (what mpiopt_value takes).  --help and -h call usage and exit 0. */
const char *mpiopt_option(const char *arg, void (*usage)(void), char *name, size_t namelen,
                          const char **inline_val);
/* The value after option argv[*i] ("--opt VALUE" or "--opt=VALUE" given as
 * inline); advances *i. */
const char *mpiopt_value(int argc, char **argv, int *i, const char *inline_val);
long long mpiopt_int(const char *opt, const char *val, long long min, long long max);
/* A size in bytes with an optional K, M or G suffix (opt_parse_size). */
size_t mpiopt_size(const char *opt, const char *val);
/* One of choices (NULL-terminated): its index. */
int mpiopt_choice(const char *opt, const char *val, const char *const *choices);
/* "a,b,c" or "all" over choices: sets picked[i]; returns how many. */
int mpiopt_choice_list(const char *opt, const char *val, const char *const *choices, int *picked);

#endif
