/* shard: a data set as files; the set, its manifest and the encodings'
 * dispatch (shard.h, docs/data.md). */
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
#include "benchmarks/common/crc32.h"
#include "benchmarks/common/fileio.h"
#include "benchmarks/common/record/record.h"
#include "benchmarks/common/shard/shard_fmt.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/common/ytree.h"

#define MANIFEST "manifest.yaml"
#define MAX_SHARDS (1 << 24)

uint32_t shard_crc32(uint32_t crc, const void *p, size_t n) { return crc32_ieee(crc, p, n); }

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
    snprintf(path, sizeof path, "%s/" MANIFEST, c->dir);
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

/* ---- reading ------------------------------------------------------------------- */

struct shard_set {
    char dir[PATH_MAX];
    char encoding[8];
    uint64_t seed;
    shard_shape shape;
    int64_t train, val;
    int nshards;
    shard_file *f;
};

const shard_shape *shard_set_shape(const shard_set *s) { return &s->shape; }
const char *shard_set_encoding(const shard_set *s) { return s->encoding; }
uint64_t shard_set_seed(const shard_set *s) { return s->seed; }

int64_t shard_set_samples(const shard_set *s, const char *split)
{
    return !strcmp(split, "train") ? s->train : !strcmp(split, "val") ? s->val : 0;
}

static int want_int(const ytdoc *d, const ytnode *map, const char *key, long long lo,
                    long long hi, long long *out, char *err, size_t errlen)
{
    const ytnode *n = map ? yt_get(map, key) : NULL;
    if (!n) return yt_err(err, errlen, d, map, "the manifest has no '%s'", key);
    if (yt_int(d, n, out, err, errlen)) return -1;
    if (*out < lo || *out > hi)
        return yt_err(err, errlen, d, n, "'%s' is %lld, not in [%lld, %lld]", key, *out, lo, hi);
    return 0;
}

static int want_str(const ytdoc *d, const ytnode *map, const char *key, const char **out,
                    char *err, size_t errlen)
{
    const ytnode *n = yt_get(map, key);
    if (!n) return yt_err(err, errlen, d, map, "the manifest has no '%s'", key);
    return yt_string(d, n, out, err, errlen);
}

/* one shard of the list: its name a plain file name in the folder, its
 * samples following the split's previous ones, its size on disk as listed */
static int read_shard(shard_set *s, const ytdoc *d, const ytnode *m, int64_t *next,
                      shard_file *f, char *err, size_t errlen)
{
    const char *file, *split;
    long long first, n, bytes, crc;
    if (yt_expect(d, m, YT_MAP, "a shard", err, errlen) ||
        want_str(d, m, "file", &file, err, errlen) || want_str(d, m, "split", &split, err, errlen) ||
        want_int(d, m, "first", 0, 1LL << 50, &first, err, errlen) ||
        want_int(d, m, "samples", 1, 1LL << 40, &n, err, errlen) ||
        want_int(d, m, "bytes", 1, 1LL << 60, &bytes, err, errlen) ||
        want_int(d, m, "crc32", 0, 0xFFFFFFFFLL, &crc, err, errlen))
        return -1;
    int si = !strcmp(split, "train") ? 0 : !strcmp(split, "val") ? 1 : -1;
    if (si < 0) return yt_err(err, errlen, d, m, "split '%s': train or val", split);
    if (!file[0] || strchr(file, '/') || file[0] == '.')
        return yt_err(err, errlen, d, m, "shard file '%s' is not a plain name in the folder", file);
    if (first != next[si])
        return yt_err(err, errlen, d, m, "shard %s starts at sample %lld; the %s split's "
                      "shards so far end at %lld", file, first, split, (long long)next[si]);
    next[si] += n;
    if (snprintf(f->path, sizeof f->path, "%s/%s", s->dir, file) >= (int)sizeof f->path)
        return yt_err(err, errlen, d, m, "shard path too long");
    snprintf(f->split, sizeof f->split, "%s", split);
    f->first = first, f->samples = n, f->bytes = bytes, f->crc = (uint32_t)crc;
    f->fd = -1, f->h5 = -1, f->verify = 1;
    struct stat st;
    if (lstat(f->path, &st) != 0) {
        snprintf(err, errlen, "%s: %s (the manifest lists it)", f->path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", f->path);
        return -1;
    }
    if (st.st_size != bytes) {
        snprintf(err, errlen, "%s: %lld bytes, the manifest says %lld (%s)", f->path,
                 (long long)st.st_size, bytes, st.st_size < bytes ? "truncated" : "grown");
        return -1;
    }
    return 0;
}

static int read_manifest(shard_set *s, const ytdoc *d, char *err, size_t errlen)
{
    const ytnode *r = d->root;
    const char *fmt, *enc;
    long long v, x;
    if (!r || r->kind != YT_MAP)
        return yt_err(err, errlen, d, r, "a manifest is a mapping (docs/data.md)");
    if (want_str(d, r, "format", &fmt, err, errlen) || want_int(d, r, "version", 1, 1, &v, err, errlen) ||
        want_str(d, r, "encoding", &enc, err, errlen))
        return -1;
    if (strcmp(fmt, "exadl-shards"))
        return yt_err(err, errlen, d, r, "format '%s' is not exadl-shards", fmt);
    if (strcmp(enc, "raw") && strcmp(enc, "hdf5"))
        return yt_err(err, errlen, d, r, "encoding '%s': raw or hdf5", enc);
    snprintf(s->encoding, sizeof s->encoding, "%s", enc);
    if (want_int(d, r, "seed", 0, INT64_MAX, &x, err, errlen)) return -1;
    s->seed = (uint64_t)x;
    const ytnode *shape = yt_get(r, "shape");
    if (!shape || shape->kind != YT_SEQ || shape->n != 4)
        return yt_err(err, errlen, d, shape ? shape : r, "'shape' is a list of 4 numbers");
    int64_t floats = 1;
    for (int a = 0; a < 4; a++) {
        if (yt_int(d, shape->items[a], &x, err, errlen)) return -1;
        if (x < 1 || x > 65536) return yt_err(err, errlen, d, shape->items[a], "extent %lld", x);
        s->shape.dims[a] = (int)x;
        floats *= x;
    }
    if (floats > (1LL << 36)) return yt_err(err, errlen, d, shape, "a sample of %lld floats", (long long)floats);
    if (want_int(d, r, "targets", 1, 4096, &x, err, errlen)) return -1;
    s->shape.targets = (int)x;
    if (want_int(d, r, "train_samples", 1, 1LL << 50, &x, err, errlen)) return -1;
    s->train = x;
    if (want_int(d, r, "val_samples", 0, 1LL << 50, &x, err, errlen)) return -1;
    s->val = x;
    const ytnode *list = yt_get(r, "shards");
    if (!list || list->kind != YT_SEQ || list->n < 1 || list->n > MAX_SHARDS)
        return yt_err(err, errlen, d, list ? list : r, "'shards' is a non-empty list");
    s->f = XCALLOC(list->n, sizeof *s->f, "the shard list");
    for (size_t i = 0; i < list->n; i++) s->f[i].fd = -1, s->f[i].h5 = -1;
    int64_t next[2] = {0, 0};
    for (size_t i = 0; i < list->n; i++) {
        if (read_shard(s, d, list->items[i], next, &s->f[i], err, errlen)) return -1;
        s->nshards++;
    }
    if (next[0] != s->train || next[1] != s->val)
        return yt_err(err, errlen, d, list, "the shards hold %lld train and %lld val samples; "
                      "the manifest says %lld and %lld", (long long)next[0], (long long)next[1],
                      (long long)s->train, (long long)s->val);
    return 0;
}

shard_set *shard_set_load(const char *manifest, const char *dir, char *err, size_t errlen)
{
    shard_set *s = XCALLOC(1, sizeof *s, "a data set");
    if (snprintf(s->dir, sizeof s->dir, "%s", dir) >= (int)sizeof s->dir) {
        snprintf(err, errlen, "%s: path too long", dir);
        free(s);
        return NULL;
    }
    ytdoc *d = yt_load_file(manifest, err, errlen);
    int rc = d ? read_manifest(s, d, err, errlen) : -1;
    yt_free(d);
    if (rc) {
        shard_set_close(s);
        return NULL;
    }
    return s;
}

shard_set *shard_set_open(const char *dir, char *err, size_t errlen)
{
    char path[PATH_MAX + 32];
    if (snprintf(path, sizeof path, "%s/" MANIFEST, dir) >= (int)sizeof path) {
        snprintf(err, errlen, "%s: path too long", dir);
        return NULL;
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "%s: no manifest (%s): not a data set, or its writer did not "
                 "finish", path, strerror(errno));
        return NULL;
    }
    return shard_set_load(path, dir, err, errlen);
}

void shard_set_close(shard_set *s)
{
    if (!s) return;
    for (int i = 0; i < s->nshards; i++) {
        shard_raw_close(&s->f[i]);
        shard_h5_close(&s->f[i]);
    }
    free(s->f);
    free(s);
}

static shard_file *find(const shard_set *s, const char *split, int64_t index, int *which)
{
    /* the list is in split order: a binary search within the split's run */
    for (int i = 0; i < s->nshards; i++) {
        if (strcmp(s->f[i].split, split)) continue;
        int a = i, b = i;
        while (b + 1 < s->nshards && !strcmp(s->f[b + 1].split, split)) b++;
        while (a <= b) {
            int m = a + (b - a) / 2;
            if (index < s->f[m].first) b = m - 1;
            else if (index >= s->f[m].first + s->f[m].samples) a = m + 1;
            else {
                if (which) *which = m;
                return &s->f[m];
            }
        }
        return NULL;
    }
    return NULL;
}

void shard_set_verify(shard_set *s, int verify)
{
    for (int i = 0; i < s->nshards; i++) s->f[i].verify = verify;
}

int shard_set_shards(const shard_set *s, const char *split)
{
    int n = 0;
    for (int i = 0; i < s->nshards; i++) n += !strcmp(s->f[i].split, split);
    return n;
}

int shard_set_shard_of(const shard_set *s, const char *split, int64_t index, int64_t *first,
                       int64_t *count)
{
    int w = -1;
    const shard_file *f = find(s, split, index, &w);
    if (!f) return -1;
    *first = f->first, *count = f->samples;
    int k = 0;
    for (int i = 0; i < w; i++) k += !strcmp(s->f[i].split, split);
    return k;
}

int shard_read(shard_set *s, const char *split, int64_t index, const int o[3], const int e[3],
               float *input, float *target, shard_io *io, char *err, size_t errlen)
{
    shard_file *f = find(s, split, index, NULL);
    if (!f) {
        snprintf(err, errlen, "%s: no %s sample %lld (the set has %lld)", s->dir, split,
                 (long long)index, (long long)shard_set_samples(s, split));
        return -1;
    }
    int rc = strcmp(s->encoding, "raw")
                 ? shard_h5_read(f, &s->shape, index - f->first, o, e, input, target, io, err, errlen)
                 : shard_raw_read(f, &s->shape, index - f->first, o, e, input, target, io, err,
                                  errlen);
    if (rc) { /* the sample's number in its split too: the file counts from its first */
        size_t n = strlen(err);
        if (n + 1 < errlen)
            snprintf(err + n, errlen - n, " (%s sample %lld of %s)", split, (long long)index, s->dir);
    }
    return rc;
}

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
    snprintf(b, sizeof b, "%s/" MANIFEST, dst);
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
    snprintf(a, sizeof a, "%s/" MANIFEST, src);
    snprintf(b, sizeof b, "%s/" MANIFEST, dst);
    return copy_file(a, b, bytes, err, errlen);
}
