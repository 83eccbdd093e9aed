/* fileio: whole files in and out: read with a size cap, written atomically
 * (to PATH.tmp.PID, fsync'ed, renamed), so a reader never sees half a file
 * and an earlier file survives a failed write. */
#ifndef EXADL_FILEIO_H
#define EXADL_FILEIO_H

#include <stddef.h>
#include <sys/stat.h>

/* The file's bytes, NUL-terminated (len, when not NULL, excludes the NUL);
 * NULL with "PATH: problem" in err when it cannot be opened or read, is
 * larger than max bytes, or is not a regular file ("PATH: not a regular file
 * (a FIFO)": a FIFO, device or directory is refused before any read, so a
 * FIFO nobody writes to cannot block the reader). */
char *fileio_read(const char *path, size_t *len, size_t max, char *err, size_t errlen);
/* path opened read-only without waiting on a FIFO, refused ("PATH: not a
 * regular file (a FIFO)") unless it is a regular file; *st its stat.  The fd
 * (blocking again), or -1 with err. */
int fileio_open_regular(const char *path, struct stat *st, char *err, size_t errlen);
/* Write len bytes to path atomically; 0, or -1 with err. */
int fileio_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen);

#endif
