/* reduce: the reduction of all ranks' buffers, to the root only.  Size = the
 * buffer; busbw factor 1.  Only the root has an output to check. */
#include "benchmarks/collectives/coll.h"
#include "benchmarks/collectives/coll_gpu.h"

static coll_region_t out_region(const coll_ctx_t *c, int inplace)
{
    (void)inplace;
    return coll_region(BUF_RECV, 0, c->rank == c->root ? c->shape.count : 0);
}

static int run(const coll_ctx_t *c, int inplace, void *send, void *recv, char *err, size_t errlen)
{
    if (c->backend == BK_NCCL) {
#if EXADL_GPU
        return coll_nccl_error(ncclReduce(inplace ? recv : send, recv, c->shape.count,
                                          (ncclDataType_t)c->nccl_type, (ncclRedOp_t)c->nccl_op,
                                          c->root, (ncclComm_t)c->nccl_comm,
                                          (cudaStream_t)c->stream),
                               "ncclReduce", err, errlen);
#endif
    }
    int n = (int)c->shape.count;
    const void *in = send;
    void *out = recv;
    if (inplace) {
        in = c->rank == c->root ? MPI_IN_PLACE : recv;
        out = c->rank == c->root ? recv : NULL;
    }
    return coll_mpi_error(MPI_Reduce(in, out, n, c->mpi_type, c->mpi_op, c->root, c->comm),
                          "MPI_Reduce", err, errlen);
}

const coll_op_t coll_op_reduce = {
    .name = "reduce",
    .summary = "the reduction of all ranks' buffers, to the root (--root)",
    .flags = OP_REDUCES | OP_ROOTED,
    .shape = coll_shape_whole,
    .busbw_factor = coll_factor_one,
    .in_region = coll_region_in_whole,
    .in_value = coll_value_own,
    .out_region = out_region,
    .out_value = coll_value_reduced,
    .inplace_ok = coll_inplace_always,
    .run = run,
};
