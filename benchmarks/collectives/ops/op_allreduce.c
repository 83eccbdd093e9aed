/* allreduce: every rank ends with the reduction of all ranks' buffers.
 * Size = the buffer (count elements on every rank); busbw factor 2(n-1)/n. */
#include "benchmarks/collectives/coll.h"
#include "benchmarks/collectives/coll_gpu.h"

static int run(const coll_ctx_t *c, int inplace, void *send, void *recv, char *err, size_t errlen)
{
    if (c->backend == BK_NCCL) {
#if EXADL_GPU
        return coll_nccl_error(ncclAllReduce(inplace ? recv : send, recv, c->shape.count,
                                             (ncclDataType_t)c->nccl_type,
                                             (ncclRedOp_t)c->nccl_op, (ncclComm_t)c->nccl_comm,
                                             (cudaStream_t)c->stream),
                               "ncclAllReduce", err, errlen);
#endif
    }
    return coll_mpi_error(MPI_Allreduce(inplace ? MPI_IN_PLACE : send, recv, (int)c->shape.count,
                                        c->mpi_type, c->mpi_op, c->comm),
                          "MPI_Allreduce", err, errlen);
}

const coll_op_t coll_op_allreduce = {
    .name = "allreduce",
    .summary = "every rank gets the reduction of all ranks' buffers",
    .flags = OP_REDUCES,
    .shape = coll_shape_whole,
    .busbw_factor = coll_factor_allreduce,
    .in_region = coll_region_in_whole,
    .in_value = coll_value_own,
    .out_region = coll_region_out_whole,
    .out_value = coll_value_reduced,
    .inplace_ok = coll_inplace_always,
    .run = run,
};
