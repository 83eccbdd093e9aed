/* suite_vars: the placeholders a benchmark's `args` and `config` values may
 * hold, filled in when each launch's command is built (launchplan.c):
 * {run_dir} (the run folder) and {launch_dir} (the launch's own folder,
 * RUN/launches/<id>/, made before it starts).  Filled in literally: the
 * command stays an argv, no shell sees a value.  A literal brace is written
 * twice ({{ and }}); every other brace must open or close a known
 * placeholder, so an argument never changes meaning silently: an unknown
 * name or an unbalanced brace is refused when the suite is read
 * (docs/harness.md "Placeholders"). */
#ifndef EXADL_HARNESS_SUITE_VARS_H
#define EXADL_HARNESS_SUITE_VARS_H

#include <stddef.h>

#include "harness/util/util.h"

typedef struct {
    const char *run_dir;    /* {run_dir} */
    const char *launch_dir; /* {launch_dir} */
} suite_vars_t;

/* The names, for messages and --help: "{run_dir}, {launch_dir}". */
extern const char suite_vars_names[];

/* 0 when every brace of text belongs to a known placeholder or is doubled;
 * else -1 with *at the byte offset of the offending brace and why the
 * problem in words. */
int suite_vars_check(const char *text, size_t *at, char *why, size_t whylen);

/* text with its placeholders filled in from v and {{ }} made single (text
 * itself when it holds no brace).  text must have passed suite_vars_check. */
const char *suite_vars_expand(arena_t *a, const char *text, const suite_vars_t *v);

/* 1 when text (checked) names {launch_dir}: its folder must exist. */
int suite_vars_uses_launch_dir(const char *text);

#endif
