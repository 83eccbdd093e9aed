/* cf_feed: the samples of a CosmoFlow training from a data set
 * (docs/data.md): `--data files:DIR` reads the shards of DIR
 * (benchmarks/common/shard), `--data grf` makes the same GRF samples
 * (cf_grf.h) in memory, so that the two runs see equal samples.  The reader,
 * its thread and the shuffle are shard_feed.h's (STEMDL uses them too); this
 * module gives it CosmoFlow's shape, a rank's sub-volume and the GRF set.
 *
 * Order: the training positions p = step * G * b + first + i of the job
 * (G groups of batch b) walk the train split epoch by epoch, e = p / N;
 *   shuffle global: sample perm_e[p mod N], one permutation of all N per
 *                   epoch from (seed, e): every group may read any shard;
 *   shuffle local:  group g reads only its shards (g, g + G, ...), its
 *                   positions q = step * b + i permuted per epoch within them;
 *   shuffle none:   sample p mod N.
 * Each rank reads only its sub-volume (raw: its rows; hdf5: a hyperslab);
 * a rank holding whole samples checks each sample's CRC.
 *
 * Files are read by a thread of their own `prefetch` steps ahead of the
 * training (0: in the step, no thread); what the step waits for the reader
 * is its exposed read time.  A corrupt or truncated shard stops the run
 * with the file and sample named.
 *
 * defines: cf_feed, cf_feed_opts, cf_feed_is, cf_feed_open, cf_feed_batch,
 *          cf_feed_eval, cf_feed_samples, cf_feed_io, cf_feed_write_record, cf_feed_close */
#ifndef COSMOFLOW_CF_FEED_H
#define COSMOFLOW_CF_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/common/record/record.h"
#include "benchmarks/common/shard/shard_feed.h"
#include "benchmarks/cosmoflow/model/cf_geom.h"

/* the feed is the shared one (shard_feed.h); these name it for CosmoFlow */
typedef shard_feed cf_feed;
typedef shard_feed_opts cf_feed_opts;   /* mem_train, mem_val: --data grf's split sizes */

/* 1 when data names a data set (files:DIR or grf). */
int cf_feed_is(const char *data);

/* Open the set for this rank's part: steps (warm-up included) of batch b at
 * the group's first sample.  0, or -1 with one line in err. */
int cf_feed_open(cf_feed **out, const cf_plan *p, const cf_part *pt, const char *data,
                 const cf_feed_opts *o, uint64_t seed, int batch, int64_t steps, char *err,
                 size_t errlen);

/* The batch of step `step` from sample position `first` (the prefetched one
 * when it is the expected step and group). Dies naming file and sample on a
 * corrupt or truncated shard. */
void cf_feed_batch(cf_feed *f, int64_t step, int64_t first, int batch, float *input,
                   float *target);
/* Validation samples first .. first + batch - 1 (mod the split's size). */
void cf_feed_eval(cf_feed *f, int64_t first, int batch, float *input, float *target);
/* The split's samples: 0 train, 1 val. */
int64_t cf_feed_samples(const cf_feed *f, int split);

/* What this rank read so far: bytes, samples, seconds in reads. */
void cf_feed_io(const cf_feed *f, int64_t *bytes, int64_t *samples, double *read_s);

/* The record's `io` block: what was read, in how long, what the steps waited. */
void cf_feed_write_record(const cf_feed *f, rec_t *w);
void cf_feed_close(cf_feed *f);

#endif
