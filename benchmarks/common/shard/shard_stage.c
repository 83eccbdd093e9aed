/* shard: staging a set to node-local storage (shard_stage, shard.h). */
#define _GNU_SOURCE
#include "benchmarks/common/shard/shard.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/fileio.h"
#include "benchmarks/common/shard/shard_fmt.h"

/* src to dst (a new file, then renamed): 0, or -1 with err */
static int copy_file(const char *src, const char *dst, int64_t *bytes, char *err, size_t errlen)
{
    char tmp[PATH_MAX + 64];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", dst, (long)getpid());
    struct stat st;
    int in = fileio_open_regular(src, &st, err, errlen);
    if (in < 0) return -1;
    unlink(tmp);
    int out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (out < 0) {
        snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
        close(in);
        return -1;
    }
    enum { BUF = 4 << 20 };
    char *buf = XMALLOC(BUF, "a copy buffer");
    ssize_t r;
    int ok = 1;
    while (ok && ((r = read(in, buf, BUF)) > 0 || (r < 0 && errno == EINTR))) {
        for (ssize_t off = 0; ok && r > 0 && off < r;) {
            ssize_t w = write(out, buf + off, (size_t)(r - off));
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) ok = 0;
            else off += w, *bytes += w;
        }
    }
    if (r < 0) ok = 0;
    free(buf);
    close(in);
    if (fsync(out) != 0) ok = 0;
    if (close(out) != 0) ok = 0;
    if (ok && rename(tmp, dst) != 0) ok = 0;
    if (!ok) {
        snprintf(err, errlen, "copying %s to %s: %s", src, dst, strerror(errno));
        unlink(tmp);
    }
    return ok ? 0 : -1;
}

int shard_stage(const char *src, const char *dst, int64_t *bytes, char *err, size_t errlen)
{
    *bytes = 0;
    shard_set *s = shard_set_open(src, err, errlen);
    if (!s) return -1;
    char a[PATH_MAX + 32], b[PATH_MAX + 32];
    snprintf(b, sizeof b, "%s/" SHARD_MANIFEST, dst);
    int rc = 0;
    if ((mkdir(dst, 0755) != 0 && errno != EEXIST) || (unlink(b) != 0 && errno != ENOENT)) {
        snprintf(err, errlen, "%s: cannot create: %s", dst, strerror(errno));
        rc = -1;
    }
    for (int i = 0; i < s->nshards && !rc; i++) {
        const char *name = strrchr(s->f[i].path, '/') + 1; /* a plain name (read_shard) */
        snprintf(b, sizeof b, "%s/%s", dst, name);
        rc = copy_file(s->f[i].path, b, bytes, err, errlen);
    }
    shard_set_close(s);
    if (rc) return -1;
    snprintf(a, sizeof a, "%s/" SHARD_MANIFEST, src);
    snprintf(b, sizeof b, "%s/" SHARD_MANIFEST, dst);
    return copy_file(a, b, bytes, err, errlen);
}
