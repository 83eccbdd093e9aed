/* rundir: the folder of one run, results/<UTC time>-<host>-<suite>/, created
 * exclusively (an existing name gets a -2, -3, ... suffix, so an earlier run
 * is never overwritten), with records/, logs/, plots/ and references/. */
#ifndef EXADL_HARNESS_RUNDIR_H
#define EXADL_HARNESS_RUNDIR_H

#include "harness/util/util.h"

/* Create parent (and its parents) if needed, then the run folder (named by
 * the time, host and suite) and its subfolders.  Returns the absolute path,
 * or NULL with err. */
char *rundir_create(arena_t *a, const char *parent, const char *suite, const char *host,
                    char *err, size_t errlen);

/* Copy a file into dir (whole or not at all); returns the copy's base name
 * (made unique within dir), or NULL with err. */
char *rundir_copy(arena_t *a, const char *src, const char *dir, char *err, size_t errlen);

/* "20261122T101500Z" of now. */
void utc_stamp(char *buf, size_t len);

#endif
