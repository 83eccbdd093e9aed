/* broadcast: the root's buffer to every rank.  Size = the buffer; busbw
 * factor 1.  Out of place, the root sends from its send buffer; NCCL also
 * copies it into the root's receive buffer, MPI has one buffer per rank (the
 * root's output is its send buffer, checked unchanged). */
#include "benchmarks/collectives/coll.h"
#include "benchmarks/collectives/coll_gpu.h"

static coll_region_t in_region(const coll_ctx_t *c, int inplace)
{
    if (c->rank != c->root) return coll_region(BUF_SEND, 0, 0);
    return coll_region(inplace ? BUF_RECV : BUF_SEND, 0, c->shape.count);
}

static double in_value(const coll_ctx_t *c, size_t i) { return coll_pattern_value(c->pat, c->root, i); }

static coll_region_t out_region(const coll_ctx_t *c, int inplace)
{
    if (!inplace && c->rank == c->root && c->backend != BK_NCCL)
        return coll_region(BUF_SEND, 0, c->shape.count);
    return coll_region(BUF_RECV, 0, c->shape.count);
}

static double out_value(const coll_ctx_t *c, size_t j) { return coll_pattern_value(c->pat, c->root, j); }

static int run(const coll_ctx_t *c, int inplace, void *send, void *recv, char *err, size_t errlen)
{
    if (c->backend == BK_NCCL) {
#if EXADL_GPU
        return coll_nccl_error(ncclBroadcast(inplace ? recv : send, recv, c->shape.count,
                                             (ncclDataType_t)c->nccl_type, c->root,
                                             (ncclComm_t)c->nccl_comm, (cudaStream_t)c->stream),
                               "ncclBroadcast", err, errlen);
#endif
    }
    void *buf = !inplace && c->rank == c->root ? send : recv;
    return coll_mpi_error(MPI_Bcast(buf, (int)c->shape.count, c->mpi_type, c->root, c->comm),
                          "MPI_Bcast", err, errlen);
}

const coll_op_t coll_op_broadcast = {
    .name = "broadcast",
    .summary = "the root's buffer to every rank (--root)",
    .flags = OP_ROOTED,
    .shape = coll_shape_whole,
    .busbw_factor = coll_factor_one,
    .in_region = in_region,
    .in_value = in_value,
    .out_region = out_region,
    .out_value = out_value,
    .inplace_ok = coll_inplace_always,
    .run = run,
};
