/* reduce_scatter: the reduction of all ranks' buffers, chunk r to rank r.
 * Size = the input buffer (n chunks); busbw factor (n-1)/n.
 * In place, the input fills the buffer; MPI leaves chunk r at offset 0
 * (MPI_Reduce_scatter_block), NCCL at offset r * chunk. */
#include "benchmarks/collectives/coll.h"
#include "benchmarks/collectives/coll_gpu.h"

static int shape(size_t bytes, size_t esize, int nranks, coll_shape_t *out, char *err,
                 size_t errlen)
{
    if (coll_shape_split("reduce_scatter", bytes, esize, nranks, out, err, errlen)) return -1;
    out->send_count = out->count;
    out->recv_count = out->chunk;
    return 0;
}

static coll_region_t out_region(const coll_ctx_t *c, int inplace)
{
    size_t off = inplace && c->backend == BK_NCCL ? (size_t)c->rank * c->shape.chunk : 0;
    return coll_region(BUF_RECV, off, c->shape.chunk);
}

static double out_value(const coll_ctx_t *c, size_t j)
{
    return coll_pattern_reduced(c->pat, (size_t)c->rank * c->shape.chunk + j);
}

static int run(const coll_ctx_t *c, int inplace, void *send, void *recv, char *err, size_t errlen)
{
    if (c->backend == BK_NCCL) {
#if EXADL_GPU
        char *out = (char *)recv;
        if (inplace) out += (size_t)c->rank * c->shape.chunk * coll_dtype_size(c->dtype);
        return coll_nccl_error(ncclReduceScatter(inplace ? recv : send, out, c->shape.chunk,
                                                 (ncclDataType_t)c->nccl_type,
                                                 (ncclRedOp_t)c->nccl_op,
                                                 (ncclComm_t)c->nccl_comm, (cudaStream_t)c->stream),
                               "ncclReduceScatter", err, errlen);
#endif
    }
    return coll_mpi_error(MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : send, recv,
                                                   (int)c->shape.chunk, c->mpi_type, c->mpi_op,
                                                   c->comm),
                          "MPI_Reduce_scatter_block", err, errlen);
}

const coll_op_t coll_op_reduce_scatter = {
    .name = "reduce_scatter",
    .summary = "the reduction of all ranks' buffers, chunk r to rank r",
    .flags = OP_REDUCES | OP_SPLITS,
    .shape = shape,
    .busbw_factor = coll_factor_n1_over_n,
    .in_region = coll_region_in_whole,
    .in_value = coll_value_own,
    .out_region = out_region,
    .out_value = out_value,
    .inplace_ok = coll_inplace_always,
    .run = run,
};
