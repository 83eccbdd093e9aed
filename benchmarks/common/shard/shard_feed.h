/* shard_feed: the samples of a training from a data set (docs/data.md
 * "Training from a set"), for any network whose samples are a box of a
 * [d][h][w][c] input and a target vector: CosmoFlow (cf_feed.h) and STEMDL
 * (benchmarks/stemdl/st_data.h) share it.  `files:DIR` reads the shards of
 * DIR (shard.h); any other source makes the same samples in memory through
 * the caller's generator, so that the two runs see equal samples.
 *
 * Order: the training positions p = step * G * b + first + i of the job
 * (G groups of batch b) walk the train split epoch by epoch, e = p / N;
 *   shuffle global: sample perm_e[p mod N], one permutation of all N per
 *                   epoch from (seed, e): every group may read any shard;
 *   shuffle local:  group g reads only its shards (g, g + G, ...), its
 *                   positions q = step * b + i permuted per epoch within them;
 *   shuffle none:   sample p mod N.
 * Each rank reads only its box (raw: its rows; hdf5: a hyperslab); a rank
 * holding whole samples checks each sample's CRC.
 *
 * Files are read by a thread of their own `prefetch` steps ahead of the
 * training (0: in the step, no thread); what the step waits for the reader
 * is its exposed read time.  Before each read the reader asks the kernel
 * for the next `readahead` samples of its order (shard_hint), so that
 * several reads are in flight from the one thread.  A corrupt or truncated shard stops the run
 * with the file and sample named (exit 2).
 *
 * defines: shard_feed, shard_feed_opts, shard_feed_cfg, shard_feed_gen_fn,
 *          shard_feed_open, shard_feed_batch, shard_feed_eval,
 *          shard_feed_samples, shard_feed_io, shard_feed_write_record,
 *          shard_feed_close */
#ifndef EXADL_SHARD_FEED_H
#define EXADL_SHARD_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/common/record/record.h"
#include "benchmarks/common/shard/shard.h"

typedef struct shard_feed shard_feed;

/* --readahead's default (docs/data.md "Read-only mode": measured) */
#define SHARD_FEED_READAHEAD 4

typedef struct {
    char shuffle[8];   /* global | local | none */
    int prefetch;      /* steps read ahead by the reader thread; 0: none */
    int readahead;     /* samples of the order hinted to the kernel (posix_fadvise
                        * WILLNEED) ahead of each read; 0: none */
    int no_verify;     /* --verify false: whole samples read without their CRC check */
    int64_t mem_train, mem_val; /* samples made in memory: the split sizes (files: the manifest's) */
    double made_s;     /* seconds this launch spent writing the set first (--make-missing) */
    double staged_s;   /* --stage: the slowest node's copy to node-local storage */
    int64_t staged_bytes;    /* copied, all nodes */
    const char *staged_from; /* the --data it was copied from, or NULL */
} shard_feed_opts;

/* The box o + [0, e) of sample `index` of split (0 train, 1 val), channels
 * last, into input; its targets into target (samples made in memory). */
typedef void (*shard_feed_gen_fn)(void *user, int split, int64_t index, const int o[3],
                                  const int e[3], float *input, float *target);

typedef struct {
    const char *data;       /* "files:DIR", or the name of the samples gen makes */
    shard_shape shape;      /* what the network takes */
    const char *shape_opts; /* the options that set it, for the error: "--size, --channels" */
    int box_o[3], box_e[3]; /* this rank's box of [d][h][w] */
    shard_feed_gen_fn gen;  /* samples made in memory (data not files:) */
    void *gen_user;
    uint64_t seed;
    int groups, group, batch;
    int64_t steps;          /* warm-up included */
} shard_feed_cfg;

/* Open the set for this rank's part.  0, or -1 with one line in err. */
int shard_feed_open(shard_feed **out, const shard_feed_cfg *c, const shard_feed_opts *o,
                    char *err, size_t errlen);

/* The batch of step `step` from sample position `first` (the prefetched one
 * when it is the expected step and group). Dies naming file and sample on a
 * corrupt or truncated shard. */
void shard_feed_batch(shard_feed *f, int64_t step, int64_t first, int batch, float *input,
                      float *target);
/* Validation samples first .. first + batch - 1 (mod the split's size). */
void shard_feed_eval(shard_feed *f, int64_t first, int batch, float *input, float *target);
/* The split's samples: 0 train, 1 val. */
int64_t shard_feed_samples(const shard_feed *f, int split);

/* What this rank read so far: bytes, samples, seconds in reads. */
void shard_feed_io(const shard_feed *f, int64_t *bytes, int64_t *samples, double *read_s);

/* The record's `io` block: what was read, in how long, what the steps waited. */
void shard_feed_write_record(const shard_feed *f, rec_t *w);
void shard_feed_close(shard_feed *f);

#endif
