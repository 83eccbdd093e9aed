/* opt: command-line values checked with messages that name the option. */
#ifndef EXADL_OPT_H
#define EXADL_OPT_H

#include <stddef.h>

/* Parse val as an integer in [min, max]; on failure one clear line and exit 2. */
long long opt_int(const char *opt, const char *val, long long min, long long max);
double opt_double(const char *opt, const char *val, double min, double max);
/* "1,2,4" -> out[0..n); returns n; at most cap values, each in [min, max]. */
int opt_int_list(const char *opt, const char *val, int *out, int cap, int min, int max);
/* val must be one of choices (NULL-terminated); returns its index. */
int opt_choice(const char *opt, const char *val, const char *const *choices);

/* Like opt_int/opt_double but returning -1 with a message instead of exiting,
 * for callers that must report file:line themselves. */
int opt_parse_int(const char *val, long long *out);
int opt_parse_double(const char *val, double *out);
/* A size in bytes: "4", "64K", "16M", "1G" (binary multiples; an optional
 * trailing B or iB).  0, or -1 when the text is not a size. */
int opt_parse_size(const char *val, size_t *out);

/* --check-config, which every benchmark program takes (exadl validate asks
 * each): the program reads its command line and configuration as a run would
 * (what depends on the rank count aside: it starts no MPI) and exits 0 after
 * one line "PROGRAM: --check-config: the configuration is valid", or 2 with
 * its own one-line error.  opt_take_check_config removes every
 * "--check-config" from argv (argc shrinks, argv[argc] stays NULL) and
 * returns 1 when there was one; opt_config_valid prints the line (PROGRAM:
 * check_set_program's name) and returns 0, the exit status. */
#define OPT_CHECK_CONFIG "--check-config"
int opt_take_check_config(int *argc, char **argv);
int opt_config_valid(void);

#endif
