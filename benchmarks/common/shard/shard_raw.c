/* The raw encoding of a shard (shard.h): header, samples, CRC index. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/fileio.h"
#include "benchmarks/common/shard/shard_fmt.h"
#include "benchmarks/common/timer.h"

#define RAW_HEADER_BYTES 64
static const char RAW_MAGIC[8] = {'E', 'X', 'A', 'D', 'L', 'S', 'H', '1'};

static int64_t sample_bytes(const shard_shape *sh)
{
    return (shard_input_floats(sh) + sh->targets) * (int64_t)sizeof(float);
}

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        c += w, n -= (size_t)w;
    }
    return 0;
}

int shard_raw_write(const char *path, const shard_shape *sh, const char *split, int64_t first,
                    int64_t n, shard_gen_fn gen, void *user, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    unsigned char hdr[RAW_HEADER_BYTES] = {0};
    memcpy(hdr, RAW_MAGIC, 8);
    uint32_t v[6] = {1, (uint32_t)sh->dims[0], (uint32_t)sh->dims[1], (uint32_t)sh->dims[2],
                     (uint32_t)sh->dims[3], (uint32_t)sh->targets};
    memcpy(hdr + 8, v, sizeof v);
    int64_t q[2] = {n, sample_bytes(sh)};
    memcpy(hdr + 32, q, sizeof q);
    size_t nin = (size_t)shard_input_floats(sh);
    float *in = XMALLOC(nin * sizeof *in, "a sample's input");
    float *tg = XMALLOC((size_t)sh->targets * sizeof *tg + 1, "a sample's targets");
    uint32_t *crc = XMALLOC((size_t)n * sizeof *crc + 1, "the CRC index");
    int ok = write_all(fd, hdr, sizeof hdr) == 0;
    for (int64_t i = 0; ok && i < n; i++) {
        gen(user, split, first + i, in, tg);
        crc[i] = shard_crc32(shard_crc32(0, in, nin * sizeof *in), tg,
                             (size_t)sh->targets * sizeof *tg);
        ok = write_all(fd, in, nin * sizeof *in) == 0 &&
             write_all(fd, tg, (size_t)sh->targets * sizeof *tg) == 0;
    }
    if (ok) ok = write_all(fd, crc, (size_t)n * sizeof *crc) == 0;
    if (ok) ok = fsync(fd) == 0;
    if (close(fd) != 0) ok = 0;
    if (!ok) snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno));
    free(in);
    free(tg);
    free(crc);
    return ok ? 0 : -1;
}

/* n bytes at off, or -1 with the file and sample named */
static int read_at(shard_file *f, int64_t sample, void *buf, size_t n, int64_t off,
                   shard_io *io, char *err, size_t errlen)
{
    size_t got = 0;
    double t0 = timer_now_s();
    while (got < n) {
        ssize_t r = pread(f->fd, (char *)buf + got, n - got, (off_t)(off + (int64_t)got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            snprintf(err, errlen, "%s: sample %lld: %s at byte %lld", f->path, (long long)sample,
                     r < 0 ? strerror(errno) : "the file ends (truncated)",
                     (long long)(off + (int64_t)got));
            return -1;
        }
        got += (size_t)r;
    }
    if (io) io->bytes += (int64_t)n, io->seconds += timer_now_s() - t0;
    return 0;
}

/* a sample's input and targets, adjacent in the file, in one preadv (one
 * system call, one request for the kernel to gather) into their two
 * buffers; what a short read left, through read_at (which names a failure) */
static int read_pair_at(shard_file *f, int64_t sample, void *a, size_t na, void *b, size_t nb,
                        int64_t off, shard_io *io, char *err, size_t errlen)
{
    double t0 = timer_now_s();
    struct iovec v[2] = {{a, na}, {b, nb}};
    ssize_t r;
    do r = preadv(f->fd, v, 2, (off_t)off);
    while (r < 0 && errno == EINTR);
    size_t got = r > 0 ? (size_t)r : 0;
    if (io) io->bytes += (int64_t)got, io->seconds += timer_now_s() - t0;
    if (got == na + nb) return 0;
    if (got < na)
        return read_at(f, sample, (char *)a + got, na - got, off + (int64_t)got, io, err, errlen) ||
                       read_at(f, sample, b, nb, off + (int64_t)na, io, err, errlen)
                   ? -1
                   : 0;
    return read_at(f, sample, (char *)b + (got - na), nb - (got - na), off + (int64_t)got, io, err,
                   errlen);
}

static int open_raw(shard_file *f, const shard_shape *sh, char *err, size_t errlen)
{
    /* a FIFO or device put in a shard's place is refused, never waited on */
    struct stat st;
    f->fd = fileio_open_regular(f->path, &st, err, errlen);
    if (f->fd < 0) return -1;
    unsigned char hdr[RAW_HEADER_BYTES];
    if (read_at(f, 0, hdr, sizeof hdr, 0, NULL, err, errlen)) return -1;
    uint32_t v[6];
    int64_t q[2];
    memcpy(v, hdr + 8, sizeof v);
    memcpy(q, hdr + 32, sizeof q);
    int same = !memcmp(hdr, RAW_MAGIC, 8) && v[0] == 1 && q[0] == f->samples &&
               q[1] == sample_bytes(sh) && (int)v[5] == sh->targets;
    for (int a = 0; a < 4; a++) same &= (int)v[1 + a] == sh->dims[a];
    if (!same) {
        snprintf(err, errlen, "%s: the header is not that of a raw shard of %lld samples of "
                 "the manifest's shape", f->path, (long long)f->samples);
        close(f->fd);
        f->fd = -1;
        return -1;
    }
    return 0;
}

int shard_raw_read(shard_file *f, const shard_shape *sh, int64_t i, const int o[3], const int e[3],
                   float *input, float *target, shard_io *io, char *err, size_t errlen)
{
    if (f->fd < 0 && open_raw(f, sh, err, errlen)) return -1;
    int64_t sb = sample_bytes(sh), base = RAW_HEADER_BYTES + i * sb, C = sh->dims[3];
    int64_t inb = shard_input_floats(sh) * (int64_t)sizeof(float);
    size_t tb = (size_t)sh->targets * sizeof(float);
    if (!o && !f->verify) {
        if (read_pair_at(f, i, input, (size_t)inb, target, tb, base, io, err, errlen)) return -1;
    } else if (!o) {
        uint32_t want;
        if (read_pair_at(f, i, input, (size_t)inb, target, tb, base, io, err, errlen) ||
            read_at(f, i, &want, sizeof want, RAW_HEADER_BYTES + f->samples * sb + i * 4, io, err,
                    errlen))
            return -1;
        uint32_t got = shard_crc32(shard_crc32(0, input, (size_t)inb), target, tb);
        if (got != want) {
            snprintf(err, errlen, "%s: sample %lld: CRC-32 %08x, the index says %08x (corrupt)",
                     f->path, (long long)i, got, want);
            return -1;
        }
    } else {
        size_t rowb = (size_t)e[2] * C * sizeof(float);
        for (int z = 0; z < e[0]; z++)
            for (int y = 0; y < e[1]; y++) {
                int64_t off = (((int64_t)(o[0] + z) * sh->dims[1] + (o[1] + y)) * sh->dims[2] + o[2]) *
                              C * (int64_t)sizeof(float);
                if (read_at(f, i, input + ((size_t)z * e[1] + y) * e[2] * C, rowb, base + off, io,
                            err, errlen))
                    return -1;
            }
        if (read_at(f, i, target, tb, base + inb, io, err, errlen)) return -1;
    }
    if (io) io->samples++;
    return 0;
}

void shard_raw_hint(shard_file *f, const shard_shape *sh, int64_t i, const int o[3],
                    const int e[3])
{
    /* a file that cannot be opened is left to the read, which names the problem */
    (void)e;
    char err[8];
    if (f->fd < 0 && open_raw(f, sh, err, sizeof err)) return;
    int64_t sb = sample_bytes(sh), base = RAW_HEADER_BYTES + i * sb, len = sb;
    if (o) { /* the span from the box's first row to the targets: one range */
        int64_t row = (int64_t)sh->dims[2] * sh->dims[3] * (int64_t)sizeof(float);
        int64_t plane = row * sh->dims[1];
        int64_t skip = o[0] * plane + o[1] * row;
        base += skip, len -= skip;
    }
    /* advice only: its failure changes nothing the read does */
    (void)posix_fadvise(f->fd, (off_t)base, (off_t)len, POSIX_FADV_WILLNEED);
    if (!o && f->verify) /* the CRC index's page */
        (void)posix_fadvise(f->fd, (off_t)(RAW_HEADER_BYTES + f->samples * sb + i * 4), 4,
                            POSIX_FADV_WILLNEED);
}

void shard_raw_close(shard_file *f)
{
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
}
