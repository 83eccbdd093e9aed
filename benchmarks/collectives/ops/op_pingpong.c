/* pingpong: rank 0 sends its buffer to rank 1, which sends its own back
 * (OSU latency style).  One call is one round trip; the driver reports half
 * of it, the one-way latency.  Size = the message; busbw factor 1.  Ranks
 * beyond 1 only take part in the barriers.  No in-place variant. */
#include <stdio.h>

#include "benchmarks/collectives/coll.h"
#include "benchmarks/collectives/coll_gpu.h"

static int shape(size_t bytes, size_t esize, int nranks, coll_shape_t *out, char *err,
                 size_t errlen)
{
    if (nranks < 2) {
        snprintf(err, errlen, "pingpong needs at least 2 ranks (this job has %d)", nranks);
        return -1;
    }
    return coll_shape_whole(bytes, esize, nranks, out, err, errlen);
}

static coll_region_t in_region(const coll_ctx_t *c, int inplace)
{
    (void)inplace;
    return coll_region(BUF_SEND, 0, c->rank < 2 ? c->shape.count : 0);
}

static coll_region_t out_region(const coll_ctx_t *c, int inplace)
{
    (void)inplace;
    return coll_region(BUF_RECV, 0, c->rank < 2 ? c->shape.count : 0);
}

static double out_value(const coll_ctx_t *c, size_t j) { return coll_pattern_value(c->pat, 1 - c->rank, j); }

static int inplace_never(coll_backend_t b)
{
    (void)b;
    return 0;
}

static int run(const coll_ctx_t *c, int inplace, void *send, void *recv, char *err, size_t errlen)
{
    (void)inplace;
    if (c->rank > 1) return 0;
    int peer = 1 - c->rank;
    if (c->backend == BK_NCCL) {
#if EXADL_GPU
        ncclDataType_t t = (ncclDataType_t)c->nccl_type;
        ncclComm_t comm = (ncclComm_t)c->nccl_comm;
        cudaStream_t s = (cudaStream_t)c->stream;
        /* stream order makes rank 1 send only after its receive completed */
        if (c->rank == 0)
            return coll_nccl_error(ncclSend(send, c->shape.count, t, peer, comm, s), "ncclSend", err, errlen) ||
                   coll_nccl_error(ncclRecv(recv, c->shape.count, t, peer, comm, s), "ncclRecv", err, errlen) ? -1 : 0;
        return coll_nccl_error(ncclRecv(recv, c->shape.count, t, peer, comm, s), "ncclRecv", err, errlen) ||
               coll_nccl_error(ncclSend(send, c->shape.count, t, peer, comm, s), "ncclSend", err, errlen) ? -1 : 0;
#endif
    }
    int n = (int)c->shape.count, tag = 17;
    if (c->rank == 0) {
        if (coll_mpi_error(MPI_Send(send, n, c->mpi_type, peer, tag, c->comm), "MPI_Send", err, errlen))
            return -1;
        return coll_mpi_error(MPI_Recv(recv, n, c->mpi_type, peer, tag, c->comm, MPI_STATUS_IGNORE),
                              "MPI_Recv", err, errlen);
    }
    if (coll_mpi_error(MPI_Recv(recv, n, c->mpi_type, peer, tag, c->comm, MPI_STATUS_IGNORE),
                       "MPI_Recv", err, errlen))
        return -1;
    return coll_mpi_error(MPI_Send(send, n, c->mpi_type, peer, tag, c->comm), "MPI_Send", err, errlen);
}

const coll_op_t coll_op_pingpong = {
    .name = "pingpong",
    .summary = "rank 0 to rank 1 and back, one-way latency (needs 2 ranks)",
    .flags = OP_P2P,
    .shape = shape,
    .busbw_factor = coll_factor_one,
    .in_region = in_region,
    .in_value = coll_value_own,
    .out_region = out_region,
    .out_value = out_value,
    .inplace_ok = inplace_never,
    .run = run,
};
