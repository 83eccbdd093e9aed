#define _GNU_SOURCE
#include "benchmarks/datadist/dd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/fileio.h"
#include "benchmarks/common/timer.h"

const char *const dd_names[] = {"scatter", "bcast", "pipeline", "shard", "mpiio", NULL};

/* MPI counts are int: whole-file calls go in pieces of 1 GiB */
#define DD_PIECE ((size_t)1 << 30)

int dd_generate(const dd_cfg *c, char *err, size_t errlen)
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp%d", c->file, (int)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) return snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(errno)), -1;
    enum { W = 1 << 16 };
    uint64_t *w = XMALLOC(W * sizeof *w, "file words");
    int ok = 1;
    for (size_t i = 0; ok && i < c->bytes / 8; i += W) {
        size_t n = c->bytes / 8 - i < W ? c->bytes / 8 - i : W;
        for (size_t k = 0; k < n; k++) w[k] = dd_word(c->seed, i + k);
        ok = fwrite(w, 8, n, f) == n;
    }
    free(w);
    if (fclose(f) != 0) ok = 0;
    if (!ok || rename(tmp, c->file) != 0) {
        unlink(tmp);
        return snprintf(err, errlen, "%s: cannot write: %s", c->file, strerror(errno)), -1;
    }
    return 0;
}

static int open_file(const dd_cfg *c)
{
    /* a FIFO or device given as the data set is refused, never waited on */
    struct stat st;
    char err[512];
    int fd = fileio_open_regular(c->file, &st, err, sizeof err);
    CHECK(fd >= 0, "%s", err);
    /* the page cache would turn a file-system benchmark into a memcpy */
    if (!c->keep_cache) (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    return fd;
}

/* Read [off, off + n) of the file into p; *first_s when the first chunk is in. */
static void read_range(const dd_cfg *c, int fd, unsigned char *p, size_t off, size_t n, double t0,
                       double *first_s)
{
    for (size_t done = 0; done < n;) {
        size_t want = n - done < c->chunk_bytes ? n - done : c->chunk_bytes;
        ssize_t got = pread(fd, p + done, want, (off_t)(off + done));
        CHECK(got > 0, "%s: read at %zu: %s", c->file, off + done,
              got == 0 ? "end of file (the file is shorter than --bytes)" : strerror(errno));
        done += (size_t)got;
        if (first_s && *first_s < 0 && done >= want) *first_s = timer_now_s() - t0;
    }
}

static void bcast_all(unsigned char *p, size_t n, int root, MPI_Comm comm)
{
    for (size_t off = 0; off < n; off += DD_PIECE)
        CHECK_MPI(MPI_Bcast(p + off, (int)(n - off < DD_PIECE ? n - off : DD_PIECE), MPI_BYTE, root,
                            comm));
}

static void pipeline(const dd_cfg *c, const comm_t *comm, unsigned char *buf, double t0,
                     dd_outcome *o)
{
    int fd = comm->rank < c->readers ? open_file(c) : -1;
    size_t nchunks = (c->bytes + c->chunk_bytes - 1) / c->chunk_bytes;
    MPI_Request prev = MPI_REQUEST_NULL;
    for (size_t i = 0; i < nchunks; i++) {
        size_t off = i * c->chunk_bytes;
        size_t n = c->bytes - off < c->chunk_bytes ? c->bytes - off : c->chunk_bytes;
        int root = (int)(i % (size_t)c->readers);
        /* the read of chunk i overlaps the broadcast of chunk i - 1 */
        if (comm->rank == root) read_range(c, fd, buf + off, off, n, t0, NULL);
        MPI_Request r;
        CHECK_MPI(MPI_Ibcast(buf + off, (int)n, MPI_BYTE, root, comm->world, &r));
        if (i > 0) {
            CHECK_MPI(MPI_Wait(&prev, MPI_STATUS_IGNORE));
            if (i == 1) o->first_s = timer_now_s() - t0;
        }
        prev = r;
    }
    CHECK_MPI(MPI_Wait(&prev, MPI_STATUS_IGNORE));
    if (o->first_s < 0) o->first_s = timer_now_s() - t0;
    if (fd >= 0) close(fd);
}

static void mpiio(const dd_cfg *c, const comm_t *comm, unsigned char *buf, double t0, dd_outcome *o)
{
    MPI_File fh;
    CHECK_MPI(MPI_File_open(comm->world, c->file, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    size_t shard = o->held_bytes;
    for (size_t done = 0; done < shard; done += c->chunk_bytes) {
        int n = (int)(shard - done < c->chunk_bytes ? shard - done : c->chunk_bytes);
        MPI_Status st;
        CHECK_MPI(MPI_File_read_at_all(fh, (MPI_Offset)(o->offset + done), buf + done, n, MPI_BYTE,
                                       &st));
        int got;
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &got));
        CHECK(got == n, "%s: MPI-IO read %d of %d bytes at %zu (the file is shorter than --bytes)",
              c->file, got, n, o->offset + done);
        if (o->first_s < 0) o->first_s = timer_now_s() - t0;
    }
    CHECK_MPI(MPI_File_close(&fh));
}

void dd_run(const dd_cfg *c, const comm_t *comm, int s, unsigned char *buf, dd_outcome *o)
{
    size_t shard = c->bytes / (size_t)comm->size;
    int whole = s == DD_BCAST || s == DD_PIPELINE;
    *o = (dd_outcome){.first_s = -1, .held_bytes = whole ? c->bytes : shard,
                      .offset = whole ? 0 : shard * (size_t)comm->rank};
    /* the cache is dropped before the clock starts, on every rank that reads */
    int fd = -1;
    if ((s == DD_SCATTER || s == DD_BCAST) && comm->rank == 0) fd = open_file(c);
    if (s == DD_SHARD) fd = open_file(c);
    if (s == DD_MPIIO && !c->keep_cache) close(open_file(c));
    CHECK_MPI(MPI_Barrier(comm->world));
    double t0 = timer_now_s();
    switch (s) {
    case DD_SCATTER:
        if (comm->rank == 0) read_range(c, fd, buf, 0, c->bytes, t0, NULL);
        CHECK_MPI(MPI_Scatter(buf, (int)shard, MPI_BYTE, comm->rank ? buf : MPI_IN_PLACE,
                              (int)shard, MPI_BYTE, 0, comm->world));
        break;
    case DD_BCAST:
        if (comm->rank == 0) read_range(c, fd, buf, 0, c->bytes, t0, NULL);
        bcast_all(buf, c->bytes, 0, comm->world);
        break;
    case DD_PIPELINE: pipeline(c, comm, buf, t0, o); break;
    case DD_SHARD: read_range(c, fd, buf, o->offset, shard, t0, &o->first_s); break;
    case DD_MPIIO: mpiio(c, comm, buf, t0, o); break;
    default: CHECK(0, "unknown strategy %d", s);
    }
    o->end_s = timer_now_s() - t0;
    /* scatter and bcast deliver all at once: the first batch comes with the rest */
    if (o->first_s < 0) o->first_s = o->end_s;
    if (fd >= 0) close(fd);
}

int64_t dd_check(const dd_cfg *c, const unsigned char *buf, const dd_outcome *o, int64_t *first_bad)
{
    int64_t bad = 0;
    *first_bad = -1;
    size_t w0 = o->offset / 8;
    for (size_t k = 0; k < o->held_bytes / 8; k++) {
        uint64_t v;
        memcpy(&v, buf + 8 * k, 8);
        if (v == dd_word(c->seed, w0 + k)) continue;
        if (*first_bad < 0) *first_bad = (int64_t)(o->offset + 8 * k);
        bad++;
    }
    return bad;
}
