/* signpack: the wire formats of Lion's sign updates (docs/lioncub.md), without
 * MPI, shared by the training runtime's update exchange, the compressed
 * collectives and their tests.
 *
 *   1 bit per element:  element i is bit i%64 of 64-bit word i/64 (LSB first);
 *                       1 means +1, 0 means -1.
 *   p-bit fields:       the sum of n ranks' signs as the count of ranks that
 *                       sent +1 (0..n), p = ceil(log2(n+1)) bits; 64/p fields
 *                       per word, none straddling two words (element i is
 *                       field i%(64/p) of word i/(64/p)).  Adding packed words
 *                       as plain integers adds every field at once: no field
 *                       can carry into the next, since no sum exceeds n.
 *
 * A 1-bit format has no 0.  Where a sign is 0 (x == 0, or NaN) and where a
 * vote of an even number of ranks is tied, the bit is taken from a tie word:
 * bit b of sp_tie_word(seed, w) for the element at bit b of word w.  The tie
 * word is a hash of (seed, w): unbiased, and the same on every rank, so the
 * ranks that compute it agree without communicating.
 *
 * defines: sp_bits, sp_fields_per_word, sp_words, sp_tie_word, sp_vote_seed,
 *          sp_sign_word, sp_pack_f32, sp_vote, sp_sum, sp_spread, sp_field, sp_disagree_bits,
 *          sp_disagree_fields */
#ifndef EXADL_SIGNPACK_H
#define EXADL_SIGNPACK_H

#include <stdint.h>

/* Bits of a field holding a count 0..nranks: ceil(log2(nranks + 1)); 1 for one rank. */
int sp_bits(int nranks);
/* Fields of p bits in one 64-bit word: 64 / p. */
static inline int sp_fields_per_word(int p) { return 64 / p; }
/* Words holding n elements of p bits each (p = 1: the 1-bit format). */
static inline int64_t sp_words(int64_t n, int p)
{
    int64_t f = sp_fields_per_word(p);
    return (n + f - 1) / f;
}

/* The tie word of word w under seed (splitmix64 of both). */
uint64_t sp_tie_word(uint64_t seed, int64_t w);
/* The seed of a vote's ties, apart from the seed of the zero signs. */
static inline uint64_t sp_vote_seed(uint64_t seed) { return seed ^ 0x5bd1e9955bd1e995ULL; }

/* One word of signs of m <= 64 floats: *pos gets bit b set where x[b] > 0,
 * *zero where x[b] is 0 or NaN (SSE compare masks where available). */
void sp_sign_word(const float *x, int m, uint64_t *pos, uint64_t *zero);

/* Signs of n floats, 1 bit each, into sp_words(n, 1) words (the bits past n
 * are 0): x > 0 -> 1, x < 0 -> 0, 0 or NaN -> the tie bit of (seed, w). */
void sp_pack_f32(const float *x, int64_t n, uint64_t *bits, uint64_t seed);

/* Majority vote of nranks packed sign vectors: word w of rank r is
 * in[r * stride + w], out[w] gets the vote of every bit: 1 where more ranks
 * sent 1 than 0, 0 where fewer, and where as many (even nranks) the tie bit
 * of (sp_vote_seed(seed), w0 + w).  Bit-sliced counters: O(nranks * log)
 * word operations per word. */
void sp_vote(const uint64_t *in, int64_t stride, int nranks, int64_t nwords, uint64_t *out,
             uint64_t seed, int64_t w0);

/* The p-bit sum of nranks field vectors: out[w] = sum over r of in[r * stride + w]
 * (plain integer adds; exact while no field total exceeds 2^p - 1). */
void sp_sum(const uint64_t *in, int64_t stride, int nranks, int64_t nwords, uint64_t *out);

/* n 1-bit signs into p-bit fields (a field is 1 where the bit is 1):
 * sp_words(n, p) words, the fields past n 0. */
void sp_spread(const uint64_t *bits, int64_t n, int p, uint64_t *fields);

/* Field i of a p-bit vector (p = 1: bit i). */
static inline unsigned sp_field(const uint64_t *f, int p, int64_t i)
{
    int64_t per = sp_fields_per_word(p);
    return (unsigned)((f[i / per] >> ((i % per) * p)) & ((1ULL << p) - 1));
}

/* Elements among the first n whose bits differ. */
int64_t sp_disagree_bits(const uint64_t *a, const uint64_t *b, int64_t n);
/* Elements among the first n where the mean of nranks signs (sum: p-bit
 * counts of +1), the update pbit applies, does not move the way this rank's
 * sign (mine: its signs spread to p-bit fields, sp_spread) says: the sum is
 * 0, or of the other sign.  Word-parallel (bit-sliced compares). */
int64_t sp_disagree_fields(const uint64_t *mine, const uint64_t *sum, int p, int nranks,
                           int64_t n);

#endif
