/* shard_fmt: the encodings of a shard (raw, hdf5) behind one interface, for
 * shard.c: write a whole shard to a (temporary) path, read one sample or a
 * box of it.  Internal to benchmarks/common/shard.
 *
 * defines: shard_file, struct shard_set, SHARD_MANIFEST, shard_raw_write, shard_raw_read, shard_raw_hint, shard_raw_close,
 *          shard_h5_write, shard_h5_read, shard_h5_hint, shard_h5_close */
#ifndef EXADL_SHARD_FMT_H
#define EXADL_SHARD_FMT_H

#include <limits.h>
#include <stdint.h>

#include "benchmarks/common/shard/shard.h"

/* One shard of a set, as the manifest lists it, and its open handle. */
typedef struct {
    char path[PATH_MAX];
    char split[8];
    int64_t first, samples, bytes;
    uint32_t crc;           /* of the whole file */
    int fd;                 /* raw: -1 until first read */
    int64_t h5;             /* hdf5: the file's hid_t, -1 until first read */
    int64_t h5_input_off;   /* hdf5: the input dataset's byte offset (contiguous), -1
                             * not looked up, -2 none (chunked: no hints) */
    int hint_fd;            /* hdf5: a plain descriptor for posix_fadvise, -1 none */
    int verify;             /* whole-sample reads check the sample's CRC */
} shard_file;

/* A set being read (shard.c), its shards in manifest order. */
struct shard_set {
    char dir[PATH_MAX];
    char encoding[8];
    uint64_t seed;
    shard_shape shape;
    int64_t train, val;
    int nshards;
    shard_file *f;
};

#define SHARD_MANIFEST "manifest.yaml"

/* bytes of one sample's input and targets, float32 */
static inline int64_t shard_input_floats(const shard_shape *s)
{
    return (int64_t)s->dims[0] * s->dims[1] * s->dims[2] * s->dims[3];
}

/* Write samples first .. first+n-1 of split from gen into path (created
 * exclusively).  0, or -1 with err. */
int shard_raw_write(const char *path, const shard_shape *sh, const char *split, int64_t first,
                    int64_t n, shard_gen_fn gen, void *user, char *err, size_t errlen);
int shard_h5_write(const char *path, const shard_shape *sh, const char *split, int64_t first,
                   int64_t n, shard_gen_fn gen, void *user, char *err, size_t errlen);

/* Sample i (0 .. f->samples-1) of f: the box o + [0, e) (NULL: whole, CRC
 * checked).  0, or -1 with "FILE: sample N: problem". */
int shard_raw_read(shard_file *f, const shard_shape *sh, int64_t i, const int o[3], const int e[3],
                   float *input, float *target, shard_io *io, char *err, size_t errlen);
int shard_h5_read(shard_file *f, const shard_shape *sh, int64_t i, const int o[3], const int e[3],
                  float *input, float *target, shard_io *io, char *err, size_t errlen);
/* Ask the kernel to read sample i (its box o + [0, e), NULL: whole) into
 * the page cache in the background (posix_fadvise WILLNEED): advice, no error. */
void shard_raw_hint(shard_file *f, const shard_shape *sh, int64_t i, const int o[3],
                    const int e[3]);
void shard_h5_hint(shard_file *f, const shard_shape *sh, int64_t i, const int o[3],
                   const int e[3]);
void shard_raw_close(shard_file *f);
void shard_h5_close(shard_file *f);

#endif
