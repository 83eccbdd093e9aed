#define _GNU_SOURCE
#include "benchmarks/common/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchmarks/common/check.h"

int fileio_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp) {
        snprintf(err, errlen, "%s: path too long", path);
        return -1;
    }
    /* a fresh file: never through a link planted at the temporary name */
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
        return -1;
    }
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            snprintf(err, errlen, "%s: write failed: %s", tmp, strerror(errno));
            close(fd);
            unlink(tmp);
            return -1;
        }
        off += (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        snprintf(err, errlen, "%s: cannot flush: %s", tmp, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "rename %s -> %s: %s", tmp, path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* what a path that is not a regular file is, for the message */
static const char *kind_of(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device"
           : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a plain file";
}

int fileio_open_regular(const char *path, struct stat *st, char *err, size_t errlen)
{
    /* O_NONBLOCK: opening a FIFO for reading waits for a writer, forever when
     * none comes; open without waiting, look, refuse what is not a file */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, st) != 0) {
        snprintf(err, errlen, "%s: cannot stat: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        snprintf(err, errlen, "%s: not a regular file (%s)", path, kind_of(st->st_mode));
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

char *fileio_read(const char *path, size_t *len, size_t max, char *err, size_t errlen)
{
    struct stat st;
    int fd = fileio_open_regular(path, &st, err, errlen);
    if (fd < 0) return NULL;
    if (st.st_size < 0 || (unsigned long long)st.st_size > max || max > SIZE_MAX - 2) {
        snprintf(err, errlen, "%s: larger than %zu bytes", path, max);
        close(fd);
        return NULL;
    }
    /* a file of exactly max bytes is read; one that grew past max since the
     * fstat is refused: room for max + 1 bytes tells them apart */
    size_t cap = (size_t)st.st_size + 2 < 4096 ? 4096 : (size_t)st.st_size + 2, n = 0;
    if (cap > max + 2) cap = max + 2;
    char *buf = XMALLOC(cap, "file contents");
    for (;;) {
        if (n == cap - 1) {
            if (n > max) {
                close(fd);
                free(buf);
                snprintf(err, errlen, "%s: larger than %zu bytes", path, max);
                return NULL;
            }
            cap = cap > (max + 2) / 2 ? max + 2 : 2 * cap;
            buf = realloc(buf, cap);
            CHECK(buf != NULL, "cannot grow the buffer for %s", path);
        }
        ssize_t got = read(fd, buf + n, cap - 1 - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
            close(fd);
            free(buf);
            return NULL;
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    close(fd);
    buf[n] = 0;
    if (len) *len = n;
    return buf;
}
