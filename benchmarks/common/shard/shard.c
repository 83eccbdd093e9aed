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
#include "benchmarks/common/shard/shard_fmt.h"
#include "benchmarks/common/ytree.h"

#define MAX_SHARDS (1 << 24)

uint32_t shard_crc32(uint32_t crc, const void *p, size_t n) { return crc32_ieee(crc, p, n); }

/* ---- reading ------------------------------------------------------------------- */


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
    f->fd = -1, f->h5 = -1, f->verify = 1, f->h5_input_off = -1, f->hint_fd = -1;
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
    for (size_t i = 0; i < list->n; i++) s->f[i].fd = -1, s->f[i].h5 = -1, s->f[i].hint_fd = -1;
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
    if (snprintf(path, sizeof path, "%s/" SHARD_MANIFEST, dir) >= (int)sizeof path) {
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

void shard_hint(shard_set *s, const char *split, int64_t index, const int o[3], const int e[3])
{
    shard_file *f = find(s, split, index, NULL);
    if (!f) return; /* the read names it */
    if (strcmp(s->encoding, "raw")) shard_h5_hint(f, &s->shape, index - f->first, o, e);
    else shard_raw_hint(f, &s->shape, index - f->first, o, e);
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

