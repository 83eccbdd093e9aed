/* tdlio: the read-only (DLIO-style) mode of the programs that train from a
 * data set's files (`--data files:DIR --read-only true`, docs/data.md
 * "Read-only mode"): every rank reads the batches of every step as its
 * training would (its group's samples, the same shuffle, reader thread and
 * prefetch; cosmoflow's spatial ranks their sub-volumes) and computes
 * nothing; the job's samples/s and GB/s (bytes all ranks read / the slowest
 * rank's time, the clock started before the set is opened, since the reader
 * thread starts there) are what the storage delivers, to set beside the
 * samples/s a training consumes.  The program opens the feed (its shape,
 * its box); this module times, reads, sums over the ranks and prints.
 *
 * defines: tdlio_cfg, tdlio_open_fn, tdlio_run */
#ifndef TRAIN_TDLIO_H
#define TRAIN_TDLIO_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/shard/shard_feed.h"

typedef struct {
    const char *program;         /* the line's first word: "cosmoflow", "stemdl" */
    const char *data;            /* --data files:DIR, named in the lines */
    const shard_feed_opts *feed; /* its prefetch and shuffle, named in the line */
    int64_t steps;               /* batches to read (warm-up included) */
    int64_t first;               /* the group's first sample position */
    int batch;                   /* samples per batch and group */
    int ranks_per_sample;        /* ranks reading a part (or a copy) of each sample */
    size_t input_floats, target_floats; /* a batch's */
    const char *record;          /* --record FILE: the numbers as a `read_only` map; NULL: none */
} tdlio_cfg;

/* Opens this rank's feed (kept by the caller, which closes it): 0, or -1
 * with one line in err. */
typedef int (*tdlio_open_fn)(void *user, shard_feed **feed, char *err, size_t errlen);

/* Read the steps on every rank (collective), print the lines on rank 0:
 *   PROGRAM: read only (no compute): ...
 *   read_only: samples_per_s X GBps Y seconds Z bytes N
 * and with c->record, writes them there (rank 0, atomically).  A set refused
 * at open ends in check_usage (exit 2) naming --data; a corrupt sample ends
 * the run naming file and sample (shard_feed.h).  Returns 0, or 1 when the
 * record could not be written. */
int tdlio_run(const tdlio_cfg *c, tdlio_open_fn open, void *user, const comm_t *comm);

#endif
