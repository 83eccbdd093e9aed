/* alltoall: chunk p of rank r's buffer goes to rank p, where it lands as
 * chunk r.  Size = the buffer (n chunks); busbw factor (n-1)/n.  NCCL has no
 * in-place all-to-all (it is built from ncclSend/ncclRecv pairs). */
#include "benchmarks/collectives/coll.h"
#include "benchmarks/collectives/coll_gpu.h"

static int shape(size_t bytes, size_t esize, int nranks, coll_shape_t *out, char *err,
                 size_t errlen)
{
    if (coll_shape_split("alltoall", bytes, esize, nranks, out, err, errlen)) return -1;
    out->send_count = out->recv_count = out->count;
    return 0;
}

static double out_value(const coll_ctx_t *c, size_t j)
{
    size_t chunk = c->shape.chunk;
    int src = (int)(j / chunk);
    return coll_pattern_value(c->pat, src, (size_t)c->rank * chunk + j % chunk);
}

static int inplace_ok(coll_backend_t b) { return b != BK_NCCL; }

static int run(const coll_ctx_t *c, int inplace, void *send, void *recv, char *err, size_t errlen)
{
    if (c->backend == BK_NCCL) {
#if EXADL_GPU
        (void)inplace;
        size_t step = c->shape.chunk * coll_dtype_size(c->dtype);
        ncclDataType_t t = (ncclDataType_t)c->nccl_type;
        ncclComm_t comm = (ncclComm_t)c->nccl_comm;
        cudaStream_t s = (cudaStream_t)c->stream;
        if (coll_nccl_error(ncclGroupStart(), "ncclGroupStart", err, errlen)) return -1;
        for (int p = 0; p < c->nranks; p++) {
            if (coll_nccl_error(ncclSend((char *)send + (size_t)p * step, c->shape.chunk, t, p, comm, s),
                                "ncclSend", err, errlen) ||
                coll_nccl_error(ncclRecv((char *)recv + (size_t)p * step, c->shape.chunk, t, p, comm, s),
                                "ncclRecv", err, errlen)) {
                (void)ncclGroupEnd();
                return -1;
            }
        }
        return coll_nccl_error(ncclGroupEnd(), "ncclGroupEnd", err, errlen);
#endif
    }
    return coll_mpi_chunks(MPI_Alltoall, "MPI_Alltoall", c, inplace, send, recv, err, errlen);
}

const coll_op_t coll_op_alltoall = {
    .name = "alltoall",
    .summary = "chunk p of rank r to rank p, where it lands as chunk r",
    .flags = OP_SPLITS,
    .shape = shape,
    .busbw_factor = coll_factor_n1_over_n,
    .in_region = coll_region_in_whole,
    .in_value = coll_value_own,
    .out_region = coll_region_out_whole,
    .out_value = out_value,
    .inplace_ok = inplace_ok,
    .run = run,
};
