/* signops: what the compressed collectives vote_1bit and sum_pbit share
 * (ops/op_vote_1bit.c, ops/op_sum_pbit.c; docs/lioncub.md): their input
 * data, the signs of a buffer of any type packed 1 bit each, the output
 * values written back in the type, their expected values and the bytes they
 * put on the wire.  The exchanges themselves are benchmarks/common/mpi/signx.h,
 * the ones the training runtime uses.
 *
 * Input element i of rank r: an integer in -2..2 from a hash of (seed, r, i)
 * (a fifth of them 0), so that the ranks disagree and tie often and every
 * type holds it exactly.  A 0 goes on the wire as its tie bit (signpack.h).
 * The size of a row is the fp32-equivalent size: count elements of the type.
 * defines: sign_in_value, sign_bit_of, sign_pack, sign_scratch, sign_store,
 *          sign_expected_vote, sign_expected_sum, sign_wire_bytes */
#ifndef EXADL_COLL_SIGNOPS_H
#define EXADL_COLL_SIGNOPS_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/collectives/coll.h"
#include "benchmarks/common/mpi/signx.h"

double sign_in_value(const coll_ctx_t *c, size_t i);
/* The bit element i of rank r goes on the wire with (1: +1). */
int sign_bit_of(const coll_pattern_t *pat, int rank, size_t i, double v);
/* The 1-bit signs of n elements of type t into sp_words(n, 1) words. */
void sign_pack(coll_dtype_t t, const void *x, size_t n, uint64_t *bits, uint64_t seed);
/* Scratch words of the ops (grown, kept for the process). */
uint64_t *sign_scratch(size_t words, int which);
signx_buf *sign_xbuf(void);
/* out[i] = table[field i] for n elements of type t (table: 2^p entries). */
void sign_store(coll_dtype_t t, void *out, size_t n, const uint64_t *fields, int p,
                const double *table);
/* What element j must be after the call, from every rank's input. */
double sign_expected_vote(const coll_ctx_t *c, size_t j);
double sign_expected_sum(const coll_ctx_t *c, size_t j);
/* Bytes one rank sends for count elements in p-bit fields (signx.h). */
int64_t sign_wire_bytes(size_t count, int p, int nranks);

#endif
