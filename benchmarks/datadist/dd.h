/* dd: the data distribution benchmark's strategies (docs/ensembles.md,
 * MENNDL): how a dataset file reaches the ranks' memory.
 *   scatter   rank 0 reads the file and scatters it: each rank gets its shard;
 *   bcast     rank 0 reads the file and broadcasts it: each rank gets all of it
 *             (MENNDL's case: every trainer sees the same data);
 *   pipeline  the file in chunks, chunk i read by reader i mod R and broadcast
 *             while the next chunk is read: each rank gets all of it;
 *   shard     every rank reads its own shard (pread);
 *   mpiio     every rank reads its shard with MPI-IO collective reads.
 * The file's 8-byte word i is rng_mix(seed + i), so every rank checks what
 * it received against the formula, without reading the file again.
 *
 * defines: dd_cfg, dd_strategy, dd_outcome, DD_NSTRATEGIES, dd_names, dd_run,
 *   dd_word, dd_check, dd_generate */
#ifndef DATADIST_DD_H
#define DATADIST_DD_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/common/mpi/comm.h"

enum { DD_SCATTER, DD_BCAST, DD_PIPELINE, DD_SHARD, DD_MPIIO, DD_NSTRATEGIES };
extern const char *const dd_names[]; /* NULL-ended, in enum order */

typedef struct {
    size_t bytes;       /* of the file: a multiple of 8 x ranks */
    size_t chunk_bytes; /* a batch: reads and pipelined broadcasts in chunks of it */
    int readers;        /* pipeline: reader ranks */
    int reps, warmup;
    uint64_t seed;
    int picked[DD_NSTRATEGIES];
    char file[1024];
    const char *record;
    int keep_cache;     /* 1: no POSIX_FADV_DONTNEED before each repetition */
} dd_cfg;

/* One repetition of one strategy on this rank. */
typedef struct {
    double end_s;        /* this rank holds all it gets */
    double first_s;      /* this rank holds its first chunk (a first batch) */
    size_t held_bytes;   /* what it holds: its shard or the whole file */
    size_t offset;       /* of what it holds, in the file */
} dd_outcome;

static inline uint64_t dd_word(uint64_t seed, uint64_t i);

/* Write the file (rank 0; 0, or -1 with err). */
int dd_generate(const dd_cfg *c, char *err, size_t errlen);
/* Run strategy s once into buf (bytes of the file, this rank's room). */
void dd_run(const dd_cfg *c, const comm_t *comm, int s, unsigned char *buf, dd_outcome *o);
/* Words of buf (what o says it holds) that differ from the formula; the
 * first bad byte offset of the file in *first_bad (-1: none). */
int64_t dd_check(const dd_cfg *c, const unsigned char *buf, const dd_outcome *o, int64_t *first_bad);

#include "benchmarks/common/rng.h"
static inline uint64_t dd_word(uint64_t seed, uint64_t i) { return rng_mix(seed + i); }

#endif
