/* signx: the compressed exchanges of Lion's sign updates over MPI
 * (docs/lioncub.md), used by the training runtime's update exchange
 * (benchmarks/train/lionx.c) and by the collectives vote_1bit and sum_pbit.
 * The formats are signpack.h's.
 *
 *   vote: every rank holds the same number of 1-bit words; the words are cut
 *         into one chunk per rank (padded with zero words to a multiple of
 *         the ranks); an all-to-all sends chunk q of every rank to rank q,
 *         which votes on its chunk (sp_vote) and an all-gather gives every
 *         rank every voted chunk.  Never an allreduce of unpacked values.
 *   sum:  the same chunks of p-bit fields, reduce-scattered (an all-to-all
 *         of the chunks, then each rank adds the n copies of its chunk as
 *         64-bit integers: every field summed at once, exactly, as no field
 *         total exceeds the ranks) and all-gathered.
 *
 * Both work in place and return the bytes this rank sends in them: each of
 * the two collectives moves (ranks - 1) chunks out of every rank in a
 * bandwidth-optimal algorithm (ring, pairwise), so 2 (n-1) chunk 8 bytes.
 * poll_us > 0 tests the requests every poll_us instead of spinning in
 * MPI_Wait (the gradient engine's thread, comm_wait).
 *
 * defines: signx_buf, signx_run, signx_vote, signx_vote_runs, signx_sum, signx_buf_free */
#ifndef EXADL_SIGNX_H
#define EXADL_SIGNX_H

#include <mpi.h>
#include <stdint.h>

/* Scratch words, grown as needed, reused across calls. */
typedef struct {
    uint64_t *a, *b;
    int64_t cap; /* words in each */
} signx_buf;

void signx_buf_free(signx_buf *x);

/* Majority vote of the ranks' bits (nwords words, the same on every rank);
 * ties as sp_vote with seed, words numbered from 0 in this call. */
int64_t signx_vote(MPI_Comm comm, uint64_t *bits, int64_t nwords, uint64_t seed, signx_buf *x,
                   int poll_us);

/* A run of words, from word0 to the next run's word0 (the last: to nwords),
 * whose tie bits come from its own seed with its words numbered from 0: a
 * fused batch of tensors, each a run, so that a weight's tie bit is the same
 * whichever tensors the engine fused with it (fusion follows timing). */
typedef struct {
    int64_t word0;
    uint64_t seed;
} signx_run;

/* signx_vote with ties by run; runs[0].word0 is 0, word0 increases. */
int64_t signx_vote_runs(MPI_Comm comm, uint64_t *bits, int64_t nwords, const signx_run *runs,
                        int nruns, signx_buf *x, int poll_us);

/* Sum of the ranks' p-bit fields (nwords words). */
int64_t signx_sum(MPI_Comm comm, uint64_t *fields, int64_t nwords, signx_buf *x, int poll_us);

#endif
