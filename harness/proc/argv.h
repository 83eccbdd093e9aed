/* argv: a NULL-terminated argument vector built in an arena, and its
 * shell-quoted one-line form (what a plan prints, what a template runs).
 * defines: argv_t, argv_push, argv_pushf, argv_push_list, argv_push_argv,
 * argv_join */
#ifndef EXADL_HARNESS_ARGV_H
#define EXADL_HARNESS_ARGV_H

#include <stddef.h>

#include "harness/util/util.h"

typedef struct {
    char **v; /* NULL-terminated once anything was pushed; NULL before */
    size_t n, cap;
} argv_t;

/* Append a copy of s. */
void argv_push(arena_t *a, argv_t *v, const char *s);
void argv_pushf(arena_t *a, argv_t *v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Append n strings (a suite's launcher_args). */
void argv_push_list(arena_t *a, argv_t *v, const char *const *list, size_t n);
/* Append a NULL-terminated vector (the benchmark's command). */
void argv_push_argv(arena_t *a, argv_t *v, char *const *argv);
/* The vector so far, NULL-terminated (an empty one when nothing was pushed). */
char **argv_done(arena_t *a, argv_t *v);

/* argv as one shell-quoted line. */
char *argv_join(arena_t *a, char *const *argv);

#endif
