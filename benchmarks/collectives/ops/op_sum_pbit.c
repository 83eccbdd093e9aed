/* sum_pbit: the sum of the ranks' signs in p = ceil(log2(n+1)) bits per
 * element (docs/lioncub.md; Lion Cub's p-bit allreduce): each rank packs the
 * signs of its buffer (a 0 as its tie bit) as p-bit counts, a reduce-scatter
 * of packed 64-bit words (an all-to-all of chunks, then integer sums: every
 * field at once, exactly) and an all-gather (benchmarks/common/mpi/signx.h); every rank ends with the sum
 * of the ranks' +-1, an integer in -n..n, per element.  Packing and
 * unpacking are inside the timed call.  Size and busbw as vote_1bit.  Host
 * buffers (mpi backend). */
#include <stdio.h>

#include "benchmarks/collectives/coll.h"
#include "benchmarks/collectives/signops.h"
#include "benchmarks/common/signpack.h"

static int shape(size_t bytes, size_t esize, int nranks, coll_shape_t *out, char *err,
                 size_t errlen)
{
    if (nranks > 1023)
        return snprintf(err, errlen, "sum_pbit: %d ranks need more than 10 bits per element",
                        nranks),
               -1;
    return coll_shape_whole(bytes, esize, nranks, out, err, errlen);
}

static int run(const coll_ctx_t *c, int inplace, void *send, void *recv, char *err, size_t errlen)
{
    if (c->backend != BK_MPI)
        return snprintf(err, errlen, "sum_pbit packs on the CPU: backend mpi only"), -1;
    size_t n = c->shape.count;
    int p = sp_bits(c->nranks);
    int64_t nb = sp_words((int64_t)n, 1), nf = sp_words((int64_t)n, p);
    uint64_t *bits = sign_scratch((size_t)nb, 0), *fields = sign_scratch((size_t)nf, 1);
    sign_pack(c->dtype, inplace ? recv : send, n, bits, c->pat->seed);
    sp_spread(bits, (int64_t)n, p, fields);
    signx_sum(c->comm, fields, nf, sign_xbuf(), 0);
    double table[1 << 10];
    for (int v = 0; v < (1 << p); v++) table[v] = 2.0 * v - c->nranks;
    sign_store(c->dtype, recv, n, fields, p, table);
    return 0;
}

static int64_t wire(const coll_shape_t *s, int nranks)
{
    return sign_wire_bytes(s->count, sp_bits(nranks), nranks);
}

const coll_op_t coll_op_sum_pbit = {
    .name = "sum_pbit",
    .summary = "sum of the ranks' signs, ceil(log2(n+1)) bits per element on the wire (Lion)",
    .flags = OP_HOST,
    .shape = shape,
    .busbw_factor = coll_factor_fp32_equivalent,
    .in_region = coll_region_in_whole,
    .in_value = sign_in_value,
    .out_region = coll_region_out_whole,
    .out_value = sign_expected_sum,
    .inplace_ok = coll_inplace_always,
    .run = run,
    .wire_bytes = wire,
};
