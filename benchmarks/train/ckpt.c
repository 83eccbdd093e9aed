#define _GNU_SOURCE
#include "benchmarks/train/ckpt.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/crc32.h"
#include "benchmarks/common/fileio.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/common/ytree.h"

#define HDR 64
static const char MAGIC[8] = {'E', 'X', 'A', 'D', 'L', 'C', 'K', '1'};

typedef struct {
    char magic[8];
    uint32_t version, rank;
    int64_t step, params;
    int32_t ranks, has_v;
    /* the network's forward convolution FLOPs per sample (net_facts): a network of the same
     * parameter count with other shapes (another image size) differs here; 0: not known */
    int64_t sample_flops;
    char pad[HDR - 48];
} hdr_t;

static void step_dir(char *buf, size_t len, const char *dir, int step)
{
    snprintf(buf, len, "%s/step-%08d", dir, step);
}

/* all ranks agree on ok; err then holds the first failing rank's reason on
 * every rank (rank 0 prints it) */
static int agree(const comm_t *comm, int ok, char *err, size_t errlen)
{
    if (!comm->mpi) return ok ? 0 : -1;
    int mine = ok ? comm->size : comm->rank, first;
    CHECK_MPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm->world));
    if (first == comm->size) return 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", comm->rank == first ? err : "");
    CHECK_MPI(MPI_Bcast(buf, (int)sizeof buf, MPI_CHAR, first, comm->world));
    snprintf(err, errlen, "rank %d: %s", first, buf);
    return -1;
}

/* weights, m and v of this rank on the host; n floats each (v NULL for Lion) */
static float *host_state(const network_t *net, void *inst, optim_t *opt, const kern_ops *ops,
                         void *ctx, int64_t *n, int *has_v)
{
    float *m, *v;
    *n = optim_state(opt, &m, &v);
    *has_v = v != NULL;
    size_t bytes = (size_t)*n * sizeof(float);
    float *h = XMALLOC(bytes * (*has_v ? 3 : 2), "checkpoint state");
    net->get_params(inst, h);
    ops->d2h(ctx, h + *n, m, bytes);
    if (v) ops->d2h(ctx, h + 2 * *n, v, bytes);
    return h;
}

static int write_rank(const char *path, const hdr_t *h, const float *x, size_t floats, char *err,
                      size_t errlen)
{
    char tmp[PATH_MAX + 128];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    unlink(tmp);
    FILE *f = fopen(tmp, "wxe");
    if (!f) {
        snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
        return -1;
    }
    uint32_t crc = crc32_ieee(crc32_ieee(0, h, sizeof *h), x, floats * sizeof *x);
    int ok = fwrite(h, sizeof *h, 1, f) == 1 && fwrite(x, sizeof *x, floats, f) == floats &&
             fwrite(&crc, sizeof crc, 1, f) == 1 && fflush(f) == 0 && fsync(fileno(f)) == 0;
    if (fclose(f) != 0) ok = 0;
    if (ok && rename(tmp, path) != 0) ok = 0;
    if (!ok) {
        snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno));
        unlink(tmp);
    }
    return ok ? 0 : -1;
}

int ckpt_write(const ckpt_cfg *c, const comm_t *comm, const network_t *net, void *inst,
               optim_t *opt, const kern_ops *ops, void *ctx, int step, int64_t sample_flops,
               ckpt_result *r, char *err, size_t errlen)
{
    char dir[PATH_MAX], path[PATH_MAX + 64];
    step_dir(dir, sizeof dir, c->dir, step);
    int ok = 1;
    if (comm->rank == 0) { /* the folder, and no manifest until every shard is in place */
        snprintf(path, sizeof path, "%s/manifest.yaml", dir);
        if ((mkdir(c->dir, 0755) != 0 && errno != EEXIST) ||
            (mkdir(dir, 0755) != 0 && errno != EEXIST) || (unlink(path) != 0 && errno != ENOENT)) {
            snprintf(err, errlen, "%s: cannot create: %s", dir, strerror(errno));
            ok = 0;
        }
    }
    if (agree(comm, ok, err, errlen)) return -1;
    int64_t n;
    int has_v;
    float *x = host_state(net, inst, opt, ops, ctx, &n, &has_v);
    hdr_t h = {.version = 1, .rank = (uint32_t)comm->rank, .step = step, .params = n,
               .ranks = comm->size, .has_v = has_v, .sample_flops = sample_flops};
    memcpy(h.magic, MAGIC, 8);
    size_t floats = (size_t)n * (has_v ? 3 : 2);
    if (comm->mpi) CHECK_MPI(MPI_Barrier(comm->world));
    double t0 = timer_now_s();
    snprintf(path, sizeof path, "%s/rank-%05d.bin", dir, comm->rank);
    ok = write_rank(path, &h, x, floats, err, errlen) == 0;
    free(x);
    int rc = agree(comm, ok, err, errlen); /* also the barrier that ends the timing */
    double dt = timer_now_s() - t0;
    int64_t mine = (int64_t)(sizeof h + floats * sizeof(float) + 4), all = mine;
    if (comm->mpi) CHECK_MPI(MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_SUM, comm->world));
    if (rc) return -1;
    if (comm->rank == 0) {
        snprintf(path, sizeof path, "%s/manifest.yaml", dir);
        rec_t *w = rec_open(path, err, errlen);
        ok = w != NULL;
        if (w) {
            rec_map_begin(w);
            rec_kv_str(w, "format", "exadl-checkpoint");
            rec_kv_int(w, "version", 1);
            rec_kv_int(w, "step", step);
            rec_kv_int(w, "ranks", comm->size);
            rec_kv_int(w, "bytes", all);
            rec_kv_double(w, "write_s", dt);
            rec_map_end(w);
            ok = rec_close(w, err, errlen) == 0;
        }
    }
    if (agree(comm, ok, err, errlen)) return -1;
    if (r->writes == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        r->step = realloc(r->step, (size_t)r->cap * sizeof *r->step);
        r->write_s = realloc(r->write_s, (size_t)r->cap * sizeof *r->write_s);
        CHECK(r->step && r->write_s, "out of memory (checkpoints)");
    }
    r->step[r->writes] = step, r->write_s[r->writes] = dt, r->writes++;
    r->bytes = all;
    return 0;
}

/* this rank's file into x (n floats each of weights, m, v): checked */
static int read_rank(const char *path, const comm_t *comm, int64_t n, int has_v, int *step,
                     float *x, char *err, size_t errlen)
{
    /* a FIFO or device in the file's place is refused, never waited on */
    struct stat st;
    int fd = fileio_open_regular(path, &st, err, errlen);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
    if (!f) {
        if (fd >= 0) close(fd);
        if (fd >= 0) snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    hdr_t h;
    size_t floats = (size_t)n * (has_v ? 3 : 2);
    uint32_t want = 0;
    int got = fread(&h, sizeof h, 1, f) == 1;
    int same = got && !memcmp(h.magic, MAGIC, 8) && h.version == 1 &&
               h.rank == (uint32_t)comm->rank && h.params == n && h.has_v == has_v &&
               h.ranks == comm->size;
    int whole = same && fread(x, sizeof *x, floats, f) == floats && fread(&want, 4, 1, f) == 1 &&
                fgetc(f) == EOF;
    fclose(f);
    if (!same) {
        snprintf(err, errlen, "%s: not a checkpoint of rank %d of %d with %lld parameters and "
                 "this optimizer", path, comm->rank, comm->size, (long long)n);
        return -1;
    }
    if (!whole) {
        snprintf(err, errlen, "%s: truncated (or longer than its header says)", path);
        return -1;
    }
    uint32_t crc = crc32_ieee(crc32_ieee(0, &h, sizeof h), x, floats * sizeof *x);
    if (crc != want) {
        snprintf(err, errlen, "%s: CRC-32 %08x, the file says %08x (corrupt)", path, crc, want);
        return -1;
    }
    *step = (int)h.step;
    return 0;
}

/* c->restore's manifest is there and is a checkpoint's (a data set's folder
 * has a manifest too): 0, or -1 with err */
static int has_manifest(const ckpt_cfg *c, char *err, size_t errlen)
{
    char path[PATH_MAX + 64];
    struct stat st;
    snprintf(path, sizeof path, "%s/manifest.yaml", c->restore);
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "%s: no manifest: not a checkpoint, or its writer did not finish",
                 path);
        return -1;
    }
    ytdoc *d = yt_load_file(path, err, errlen);
    if (!d) return -1;
    const ytnode *f = d->root && d->root->kind == YT_MAP ? yt_get(d->root, "format") : NULL;
    const char *fmt = NULL;
    int ok = f && yt_string(d, f, &fmt, err, errlen) == 0 && !strcmp(fmt, "exadl-checkpoint");
    yt_free(d);
    if (!ok)
        snprintf(err, errlen, "%s: not a checkpoint's manifest (format exadl-checkpoint)", path);
    return ok ? 0 : -1;
}

/* this rank's header: a checkpoint of this rank of this many ranks and params */
static int check_header(const ckpt_cfg *c, const comm_t *comm, int64_t params,
                        int64_t sample_flops, int *step, char *err, size_t errlen)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/rank-%05d.bin", c->restore, comm->rank);
    struct stat st;
    int fd = fileio_open_regular(path, &st, err, errlen);
    if (fd < 0) return -1;
    hdr_t h;
    ssize_t got = read(fd, &h, sizeof h);
    close(fd);
    if (got != (ssize_t)sizeof h || memcmp(h.magic, MAGIC, 8) || h.version != 1) {
        snprintf(err, errlen, "%s: not an ExaDL checkpoint (no EXADLCK1 header)", path);
        return -1;
    }
    if (h.ranks != comm->size || h.rank != (uint32_t)comm->rank) {
        snprintf(err, errlen, "%s: written by rank %u of a run of %d rank(s); this run has %d "
                 "(restore with the rank count that wrote it)", path, h.rank, h.ranks, comm->size);
        return -1;
    }
    if (h.params != params) {
        snprintf(err, errlen, "%s: a checkpoint of a network of %lld parameters; this one has "
                 "%lld (another preset or configuration)", path, (long long)h.params,
                 (long long)params);
        return -1;
    }
    if (h.sample_flops && sample_flops && h.sample_flops != sample_flops) {
        snprintf(err, errlen, "%s: a checkpoint of a network of %lld forward FLOPs per sample; "
                 "this one has %lld (other shapes: another preset or configuration)", path,
                 (long long)h.sample_flops, (long long)sample_flops);
        return -1;
    }
    *step = (int)h.step;
    return 0;
}

int ckpt_check(const ckpt_cfg *c, const comm_t *comm, int64_t params, int64_t sample_flops,
               int *step, char *err, size_t errlen)
{
    if (agree(comm, has_manifest(c, err, errlen) == 0, err, errlen)) return -1;
    return agree(comm, check_header(c, comm, params, sample_flops, step, err, errlen) == 0, err,
                 errlen);
}

int ckpt_restore(const ckpt_cfg *c, const comm_t *comm, const network_t *net, void *inst,
                 optim_t *opt, const kern_ops *ops, void *ctx, int *step, ckpt_result *r,
                 char *err, size_t errlen)
{
    char path[PATH_MAX + 64];
    double t0 = timer_now_s();
    if (agree(comm, has_manifest(c, err, errlen) == 0, err, errlen)) return -1;
    int ok;
    float *m, *v;
    int64_t n = optim_state(opt, &m, &v);
    size_t bytes = (size_t)n * sizeof(float);
    float *x = XMALLOC(bytes * (v ? 3 : 2), "checkpoint state");
    snprintf(path, sizeof path, "%s/rank-%05d.bin", c->restore, comm->rank);
    ok = read_rank(path, comm, n, v != NULL, step, x, err, errlen) == 0;
    if (ok) {
        net->set_params(inst, x);
        ops->h2d(ctx, m, x + n, bytes);
        if (v) ops->h2d(ctx, v, x + 2 * n, bytes);
    }
    free(x);
    if (agree(comm, ok, err, errlen)) return -1;
    int s0 = *step, mismatch = 0;
    if (comm->mpi) CHECK_MPI(MPI_Bcast(&s0, 1, MPI_INT, 0, comm->world));
    mismatch = s0 != *step;
    if (mismatch)
        snprintf(err, errlen, "%s: its file is of step %d, rank 0's of step %d", c->restore, *step,
                 s0);
    if (agree(comm, !mismatch, err, errlen)) return -1;
    r->restored_step = *step;
    r->restore_s = timer_now_s() - t0;
    int64_t mine = (int64_t)(HDR + bytes * (v ? 3 : 2) + 4), all = mine;
    if (comm->mpi) CHECK_MPI(MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_SUM, comm->world));
    r->restore_bytes = all;
    return 0;
}

void ckpt_write_record(const ckpt_cfg *c, const ckpt_result *r, rec_t *w)
{
    rec_key(w, "checkpoint");
    rec_map_begin(w);
    rec_kv_int(w, "every", c->every);
    rec_kv_int(w, "writes", r->writes);
    rec_kv_int(w, "bytes_per_write", r->bytes);
    int64_t *st = XMALLOC((size_t)r->writes * sizeof *st + 1, "checkpoint steps");
    double sum = 0;
    for (int i = 0; i < r->writes; i++) st[i] = r->step[i], sum += r->write_s[i];
    rec_kv_ints(w, "step", st, (size_t)r->writes);
    rec_kv_doubles(w, "write_s", r->write_s, (size_t)r->writes);
    free(st);
    rec_kv_double(w, "write_GBps", sum > 0 ? (double)r->bytes * r->writes / sum / 1e9 : 0);
    rec_kv_int(w, "restored_step", r->restored_step);
    rec_kv_double(w, "restore_s", r->restore_s);
    rec_kv_int(w, "restore_bytes", r->restore_bytes);
    rec_map_end(w);
}

void ckpt_free(ckpt_result *r)
{
    free(r->step);
    free(r->write_s);
    memset(r, 0, sizeof *r);
}
