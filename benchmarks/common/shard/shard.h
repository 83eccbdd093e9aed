/* shard: a data set as files (docs/data.md).
 *
 * A set is a folder: manifest.yaml (written last, atomically: a set without
 * one is incomplete and refused) and shards, each holding `per_shard`
 * samples of one split (train, val) in one encoding:
 *   raw   train-00000.raw: a 64-byte header (magic "EXADLSH1", shape,
 *         samples, sample bytes), the samples back to back (float32 little
 *         endian: the input [d][h][w][c], then the targets), then the index:
 *         each sample's CRC-32;
 *   hdf5  train-00000.h5: datasets "input" [n][d][h][w][c], "target"
 *         [n][targets] (float32) and "crc32" [n] (uint32), through libhdf5;
 *         a sub-volume is read as a hyperslab.
 * Every shard is written under a temporary name and renamed when complete;
 * the manifest lists each shard's file, split, first sample, samples, bytes
 * and the CRC-32 of the whole file, and the set's seed and shape.  A reader
 * refuses a shard whose size differs from the manifest's (truncated) and a
 * sample whose CRC differs from its index's (corrupt), naming file and
 * sample.  A sub-volume read (spatial ranks) reads only its rows and cannot
 * check the sample's CRC: the size check still holds.
 *
 * defines: shard_shape, shard_make_cfg, shard_gen_fn, shard_make, shard_set,
 *          shard_io, shard_set_open, shard_set_load, shard_set_close, shard_set_samples, shard_set_verify,
 *          shard_set_shape, shard_hint, shard_read, shard_hdf5_available, shard_crc32 */
#ifndef EXADL_SHARD_H
#define EXADL_SHARD_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int dims[4];  /* an input: d, h, w, channels (channels last) */
    int targets;  /* floats of the target vector */
} shard_shape;

/* 1 when this build has HDF5 (the hdf5 encoding). */
int shard_hdf5_available(void);

/* CRC-32 (IEEE 802.3, reflected) of n bytes, continuing from crc (0 to start). */
uint32_t shard_crc32(uint32_t crc, const void *p, size_t n);

/* ---- writing ------------------------------------------------------------------- */

/* Sample `index` of split ("train" or "val") into input and target. */
typedef void (*shard_gen_fn)(void *user, const char *split, int64_t index, float *input,
                             float *target);

typedef struct {
    const char *dir;       /* created if missing */
    const char *encoding;  /* "raw" or "hdf5" */
    const char *dataset;   /* a name for the manifest: "cosmoflow-grf" */
    shard_shape shape;
    uint64_t seed;
    int64_t train, val;    /* samples of each split */
    int64_t per_shard;     /* samples per shard (the last of a split may hold fewer) */
} shard_make_cfg;

typedef struct {
    int64_t bytes;         /* written, shards and manifest */
    int shards;
    double seconds;        /* wall time, generation included */
} shard_make_stats;

/* Write the set; an existing manifest in dir is removed first, so that a
 * writer killed half way leaves no set a reader accepts.  0, or -1 with err. */
int shard_make(const shard_make_cfg *c, shard_gen_fn gen, void *user, shard_make_stats *st,
               char *err, size_t errlen);

/* Copy the set in src to dst (created; node-local storage, as burst buffers
 * are used): its manifest's shards, each under a temporary name and
 * renamed, then the manifest, last (an old one in dst is removed first).
 * *bytes: what was copied.  0, or -1 with err. */
int shard_stage(const char *src, const char *dst, int64_t *bytes, char *err, size_t errlen);

/* ---- reading ------------------------------------------------------------------- */

typedef struct shard_set shard_set;

typedef struct {
    int64_t bytes;         /* read from the files */
    int64_t samples;
    double seconds;        /* in reads */
} shard_io;

/* Read dir/manifest.yaml and check that every shard it lists is a regular
 * file of the listed size.  NULL with "PATH: problem" in err. */
shard_set *shard_set_open(const char *dir, char *err, size_t errlen);
/* The same from a manifest file at any path, its shards in dir (the fuzz
 * harness tests/fuzz/fuzz_manifest.c). */
shard_set *shard_set_load(const char *manifest, const char *dir, char *err, size_t errlen);
void shard_set_close(shard_set *s);
const shard_shape *shard_set_shape(const shard_set *s);
int64_t shard_set_samples(const shard_set *s, const char *split);
const char *shard_set_encoding(const shard_set *s);
uint64_t shard_set_seed(const shard_set *s);
/* verify 0: whole-sample reads skip the CRC check (a read-only benchmark of
 * the storage alone, docs/data.md); 1 (the default): check it */
void shard_set_verify(shard_set *s, int verify);
/* the shards of a split and the shard of a sample (local shuffling) */
int shard_set_shards(const shard_set *s, const char *split);
int shard_set_shard_of(const shard_set *s, const char *split, int64_t index, int64_t *first,
                       int64_t *count);

/* Sample `index` of split: the box o + [0, e) of its input (o, e NULL: the
 * whole input, its CRC checked) into input (dense, channels last) and its
 * targets into target; io (may be NULL) adds what was read.  Not thread-safe
 * (HDF5 is not): one thread reads a set.  0, or -1 with "FILE: sample N:
 * problem" in err. */
/* Ask the kernel to read sample `index` of split (its box o + [0, e), or
 * whole) into the page cache in the background (posix_fadvise
 * POSIX_FADV_WILLNEED), so that a later shard_read of it finds it there or
 * on its way: a reader knowing its order keeps several reads in flight from
 * one thread.  Advice only: it reads nothing into the caller's memory,
 * counts nothing in shard_io and reports no error (the read does).  hdf5:
 * the input dataset of a contiguous layout (the writer's); else nothing.
 * Not thread-safe, as shard_read. */
void shard_hint(shard_set *s, const char *split, int64_t index, const int o[3], const int e[3]);

int shard_read(shard_set *s, const char *split, int64_t index, const int o[3], const int e[3],
               float *input, float *target, shard_io *io, char *err, size_t errlen);

#endif
