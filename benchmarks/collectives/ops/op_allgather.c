/* allgather: every rank ends with all ranks' chunks, chunk r from rank r.
 * Size = the gathered buffer (n chunks); busbw factor (n-1)/n.
 * In place, rank r's chunk starts at offset r * chunk of the buffer. */
#include "benchmarks/collectives/coll.h"
#include "benchmarks/collectives/coll_gpu.h"

static int shape(size_t bytes, size_t esize, int nranks, coll_shape_t *out, char *err,
                 size_t errlen)
{
    if (coll_shape_split("allgather", bytes, esize, nranks, out, err, errlen)) return -1;
    out->send_count = out->chunk;
    out->recv_count = out->count;
    return 0;
}

static coll_region_t in_region(const coll_ctx_t *c, int inplace)
{
    if (inplace) return coll_region(BUF_RECV, (size_t)c->rank * c->shape.chunk, c->shape.chunk);
    return coll_region(BUF_SEND, 0, c->shape.chunk);
}

static double out_value(const coll_ctx_t *c, size_t j)
{
    return coll_pattern_value(c->pat, (int)(j / c->shape.chunk), j % c->shape.chunk);
}

static int run(const coll_ctx_t *c, int inplace, void *send, void *recv, char *err, size_t errlen)
{
    if (c->backend == BK_NCCL) {
#if EXADL_GPU
        char *in = inplace ? (char *)recv + (size_t)c->rank * c->shape.chunk * coll_dtype_size(c->dtype)
                           : (char *)send;
        return coll_nccl_error(ncclAllGather(in, recv, c->shape.chunk, (ncclDataType_t)c->nccl_type,
                                             (ncclComm_t)c->nccl_comm, (cudaStream_t)c->stream),
                               "ncclAllGather", err, errlen);
#endif
    }
    return coll_mpi_chunks(MPI_Allgather, "MPI_Allgather", c, inplace, send, recv, err, errlen);
}

const coll_op_t coll_op_allgather = {
    .name = "allgather",
    .summary = "every rank gets all ranks' chunks, chunk r from rank r",
    .flags = OP_SPLITS,
    .shape = shape,
    .busbw_factor = coll_factor_n1_over_n,
    .in_region = in_region,
    .in_value = coll_value_own,
    .out_region = coll_region_out_whole,
    .out_value = out_value,
    .inplace_ok = coll_inplace_always,
    .run = run,
};
