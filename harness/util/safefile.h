/* safefile: writing inside a folder that may come from someone else (a run
 * folder copied from another machine, one a hostile user prepared).  A run
 * folder is checked once before anything is written into it: no entry that
 * exadl writes may be a symbolic link or anything but a file or a folder, so
 * a planted RUN/plots -> /etc cannot turn `exadl analyze` into a writer of
 * /etc.  Files are then replaced by rename within their folder (a link at the
 * name is replaced, never followed), appended to with O_NOFOLLOW, and one
 * writer at a time holds the folder's lock (docs/harness.md "Security and
 * trust"). */
#ifndef EXADL_HARNESS_SAFEFILE_H
#define EXADL_HARNESS_SAFEFILE_H

#include <stddef.h>

/* 0 when dir, its entries and the entries of its subfolders records, logs,
 * plots, references, model and launches are no symbolic links (nor FIFOs, devices or
 * sockets) and those subfolders are folders; else -1 with err naming the
 * first offending path. */
int sf_check_rundir(const char *dir, char *err, size_t errlen);

/* mkdir path, or accept an existing folder that is not a symbolic link;
 * -1 with err otherwise. */
int sf_mkdir(const char *path, char *err, size_t errlen);

/* Append data to path (created 0644 when missing), never through a link at
 * path and only to a regular file; fsync'ed.  -1 with err. */
int sf_append(const char *path, const char *data, size_t len, char *err, size_t errlen);

/* Move path aside to path.SUFFIX-N (the first N free), keeping it whole:
 * the new name in *aside (of asidelen bytes).  -1 with err. */
int sf_move_aside(const char *path, const char *suffix, char *aside, size_t asidelen, char *err,
                  size_t errlen);

/* The folder's writer lock (flock on dir/exadl.lock, held until exit and
 * the file then removed; it names the holder's PID, host and command).  0 held; -1 with err
 * ("... is being written by exadl PID 123 on host (exadl run --resume ...)")
 * when another process holds it or the lock file cannot be made. */
int sf_lock_dir(const char *dir, const char *command, char *err, size_t errlen);

#endif
