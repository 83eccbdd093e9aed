/* vote_1bit: the majority vote of the ranks' signs in 1 bit per element
 * (docs/lioncub.md; Lion Cub's 1-bit allreduce): each rank packs the signs of
 * its buffer (a 0 as its tie bit), an all-to-all of packed chunks, a vote per
 * chunk, an all-gather of the voted bits (benchmarks/common/mpi/signx.h);
 * every rank ends with +-1 per element, ties of an even number of ranks
 * broken by the tie bit.  Packing and unpacking are inside the timed call.
 * Size = the buffer (count elements; with float32 the fp32-equivalent size of
 * the parameters); busbw factor 2(n-1)/n, the fp32 allreduce's, so busbw is
 * the effective fp32-equivalent bus bandwidth.  Host buffers (mpi backend). */
#include <stdio.h>

#include "benchmarks/collectives/coll.h"
#include "benchmarks/collectives/signops.h"
#include "benchmarks/common/signpack.h"

static int run(const coll_ctx_t *c, int inplace, void *send, void *recv, char *err, size_t errlen)
{
    if (c->backend != BK_MPI)
        return snprintf(err, errlen, "vote_1bit packs on the CPU: backend mpi only"), -1;
    size_t n = c->shape.count;
    int64_t nw = sp_words((int64_t)n, 1);
    uint64_t *bits = sign_scratch((size_t)nw, 0);
    sign_pack(c->dtype, inplace ? recv : send, n, bits, c->pat->seed);
    signx_vote(c->comm, bits, nw, c->pat->seed, sign_xbuf(), 0);
    const double table[2] = {-1.0, 1.0};
    sign_store(c->dtype, recv, n, bits, 1, table);
    return 0;
}

static int64_t wire(const coll_shape_t *s, int nranks) { return sign_wire_bytes(s->count, 1, nranks); }

const coll_op_t coll_op_vote_1bit = {
    .name = "vote_1bit",
    .summary = "majority vote of the ranks' signs, 1 bit per element on the wire (Lion)",
    .flags = OP_HOST,
    .shape = coll_shape_whole,
    .busbw_factor = coll_factor_fp32_equivalent,
    .in_region = coll_region_in_whole,
    .in_value = sign_in_value,
    .out_region = coll_region_out_whole,
    .out_value = sign_expected_vote,
    .inplace_ok = coll_inplace_always,
    .run = run,
    .wire_bytes = wire,
};
