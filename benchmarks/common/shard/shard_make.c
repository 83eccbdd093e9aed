/* shard: writing a set (shard_make, shard.h): the shards, then the manifest. */
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
#include "benchmarks/common/record/record.h"
#include "benchmarks/common/shard/shard_fmt.h"
#include "benchmarks/common/timer.h"

static const char *ext_of(const char *encoding) { return strcmp(encoding, "hdf5") ? "raw" : "h5"; }

/* the CRC-32 and size of a whole file */
static int file_crc(const char *path, uint32_t *crc, int64_t *bytes, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    enum { BUF = 1 << 20 };
    char *buf = XMALLOC(BUF, "a read buffer");
    uint32_t c = 0;
    int64_t total = 0;
    ssize_t r;
    while ((r = read(fd, buf, BUF)) > 0 || (r < 0 && errno == EINTR))
        if (r > 0) c = shard_crc32(c, buf, (size_t)r), total += r;
    if (r < 0) snprintf(err, errlen, "%s: read failed: %s", path, strerror(errno));
    close(fd);
    free(buf);
    *crc = c;
    *bytes = total;
    return r < 0 ? -1 : 0;
}

static void manifest_shard(rec_t *w, const shard_file *f)
{
    const char *name = strrchr(f->path, '/');
    rec_flow_map_begin(w);
    rec_kv_str(w, "file", name ? name + 1 : f->path);
    rec_kv_str(w, "split", f->split);
    rec_kv_int(w, "first", f->first);
    rec_kv_int(w, "samples", f->samples);
    rec_kv_int(w, "bytes", f->bytes);
    rec_kv_int(w, "crc32", f->crc);
    rec_map_end(w);
}

int shard_make(const shard_make_cfg *c, shard_gen_fn gen, void *user, shard_make_stats *st,
               char *err, size_t errlen)
{
    double t0 = timer_now_s();
    memset(st, 0, sizeof *st);
    if (strcmp(c->encoding, "raw") && strcmp(c->encoding, "hdf5")) {
        snprintf(err, errlen, "encoding '%s': raw or hdf5", c->encoding);
        return -1;
    }
    if (c->per_shard < 1 || c->train < 1 || c->val < 0) {
        snprintf(err, errlen, "a set needs train samples >= 1, val >= 0, samples per shard >= 1");
        return -1;
    }
    if (mkdir(c->dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: cannot create: %s", c->dir, strerror(errno));
        return -1;
    }
    char path[PATH_MAX + 32], tmp[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/" SHARD_MANIFEST, c->dir);
    /* no manifest until every shard is in place: a killed writer leaves no set */
    if (unlink(path) != 0 && errno != ENOENT) {
        snprintf(err, errlen, "%s: cannot remove the old manifest: %s", path, strerror(errno));
        return -1;
    }
    const char *splits[2] = {"train", "val"};
    int64_t counts[2] = {c->train, c->val};
    int nsh = (int)((c->train + c->per_shard - 1) / c->per_shard +
                    (c->val + c->per_shard - 1) / c->per_shard);
    shard_file *sh = XCALLOC((size_t)nsh + 1, sizeof *sh, "the shard list");
    int k = 0, rc = 0;
    for (int s = 0; s < 2 && !rc; s++)
        for (int64_t first = 0, j = 0; first < counts[s] && !rc; first += c->per_shard, j++) {
            shard_file *f = &sh[k++];
            int64_t n = counts[s] - first < c->per_shard ? counts[s] - first : c->per_shard;
            snprintf(f->path, sizeof f->path, "%s/%s-%05lld.%s", c->dir, splits[s], (long long)j,
                     ext_of(c->encoding));
            snprintf(f->split, sizeof f->split, "%s", splits[s]);
            f->first = first, f->samples = n;
            snprintf(tmp, sizeof tmp, "%s/.%s-%05lld.tmp.%ld", c->dir, splits[s], (long long)j,
                     (long)getpid());
            unlink(tmp);
            rc = !strcmp(c->encoding, "raw")
                     ? shard_raw_write(tmp, &c->shape, splits[s], first, n, gen, user, err, errlen)
                     : shard_h5_write(tmp, &c->shape, splits[s], first, n, gen, user, err, errlen);
            if (!rc) rc = file_crc(tmp, &f->crc, &f->bytes, err, errlen);
            if (!rc && rename(tmp, f->path) != 0) {
                snprintf(err, errlen, "rename %s -> %s: %s", tmp, f->path, strerror(errno));
                rc = -1;
            }
            if (rc) unlink(tmp);
            st->bytes += f->bytes;
        }
    if (!rc) {
        rec_t *w = rec_open(path, err, errlen);
        if (!w) rc = -1;
        if (w) {
            rec_map_begin(w);
            rec_kv_str(w, "format", "exadl-shards");
            rec_kv_int(w, "version", 1);
            rec_kv_str(w, "dataset", c->dataset);
            rec_kv_str(w, "encoding", c->encoding);
            rec_kv_int(w, "seed", (int64_t)c->seed);
            rec_key(w, "shape");
            rec_flow_seq_begin(w);
            for (int a = 0; a < 4; a++) rec_int(w, c->shape.dims[a]);
            rec_seq_end(w);
            rec_kv_int(w, "targets", c->shape.targets);
            rec_kv_str(w, "layout", "float32 little endian; input [d][h][w][c], then targets");
            rec_kv_int(w, "train_samples", c->train);
            rec_kv_int(w, "val_samples", c->val);
            rec_kv_int(w, "per_shard", c->per_shard);
            rec_key(w, "shards");
            rec_seq_begin(w);
            for (int i = 0; i < k; i++) manifest_shard(w, &sh[i]);
            rec_seq_end(w);
            rec_map_end(w);
            rc = rec_close(w, err, errlen);
            struct stat ms;
            if (!rc && stat(path, &ms) == 0) st->bytes += ms.st_size;
        }
    }
    free(sh);
    st->shards = k;
    st->seconds = timer_now_s() - t0;
    return rc;
}
