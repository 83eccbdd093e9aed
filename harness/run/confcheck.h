/* confcheck: before anything runs, each benchmark program of a suite checks
 * its own configuration: the options of its first launch plus its workload's
 * check option (workload.h check_config, benchmarks/common/opt.h), started
 * here by harness/proc/ask.h (never through the launcher: the answer does not
 * depend on the node).  `exadl validate` and `exadl run` ask it, so that a
 * typo (`preset: tinyy`, `kernel: fast`) stops with the program's own words
 * instead of failing every launch.
 * defines: confcheck_suite */
#ifndef EXADL_HARNESS_CONFCHECK_H
#define EXADL_HARNESS_CONFCHECK_H

#include "harness/suite/suite.h"

/* Every benchmark of s whose program was found and whose workload has a check
 * option, but those named in skip (nskip of them).  0: each answered or could
 * not answer; said (may be NULL) gets one line per benchmark, "  NAME:
 * configuration valid (PROGRAM --check-config)" or "  warning: NAME: ..." for
 * a program that could not answer (not 0 or 2: it did not start, crashed).
 * -1: a program refused its configuration (exit 2); err holds "SUITE:LINE:
 * benchmark NAME: its words (PROGRAM --check-config)". */
int confcheck_suite(arena_t *a, const suite_t *s, const char *const *skip, size_t nskip, sb_t *said,
                    char *err, size_t errlen);

#endif
