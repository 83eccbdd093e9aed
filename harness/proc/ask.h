/* ask: start a program to ask it about its input (`stemdl --check-config`,
 * `stemdl --describe --preset X`) and keep, when it refuses, its own words:
 * the last line it printed on stderr ("stemdl: error: unknown preset
 * 'tinyy' (choose gb2019, ...)"), which spawn_capture drops.  Here, never
 * through a launcher: the answer does not depend on the node.
 * defines: ask_program */
#ifndef EXADL_HARNESS_ASK_H
#define EXADL_HARNESS_ASK_H

#include <stddef.h>

#include "harness/util/util.h"

/* Run argv (argv[0] searched on PATH) with env set in the child (value NULL:
 * unset; nenv 0: exadl's own environment), at most timeout_s seconds; its
 * stdout (malloc'ed, at most 4 MiB) when it exits 0, else NULL with why: its
 * own last stderr line where it exited and printed one, else how it ended.
 * *code is its exit status (-1: it did not exit: not started, killed, timed
 * out). */
char *ask_program(char *const *argv, const kv_t *env, size_t nenv, double timeout_s, int *code,
                  char *why, size_t whylen);

#endif
