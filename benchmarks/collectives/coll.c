/* coll: what the operation files share: bandwidth factors, regions and
 * values, shapes, error formatting and NCCL type mapping. */
#include "benchmarks/collectives/coll.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/collectives/coll_gpu.h"

double coll_factor_one(int nranks)
{
    (void)nranks;
    return 1.0;
}

double coll_factor_allreduce(int nranks) { return 2.0 * (nranks - 1) / (double)nranks; }
double coll_factor_n1_over_n(int nranks) { return (nranks - 1) / (double)nranks; }
double coll_factor_fp32_equivalent(int nranks) { return coll_factor_allreduce(nranks); }

int coll_inplace_always(coll_backend_t b)
{
    (void)b;
    return 1;
}

coll_region_t coll_region(int buf, size_t off, size_t n)
{
    coll_region_t r = {buf, off, n};
    return r;
}

coll_region_t coll_region_in_whole(const coll_ctx_t *c, int inplace)
{
    return coll_region(inplace ? BUF_RECV : BUF_SEND, 0, c->shape.count);
}

coll_region_t coll_region_out_whole(const coll_ctx_t *c, int inplace)
{
    (void)inplace;
    return coll_region(BUF_RECV, 0, c->shape.count);
}

double coll_value_own(const coll_ctx_t *c, size_t i) { return coll_pattern_value(c->pat, c->rank, i); }
double coll_value_reduced(const coll_ctx_t *c, size_t j) { return coll_pattern_reduced(c->pat, j); }

int coll_shape_whole(size_t bytes, size_t esize, int nranks, coll_shape_t *out, char *err,
                     size_t errlen)
{
    (void)nranks;
    memset(out, 0, sizeof *out);
    size_t n = bytes / esize;
    if (n == 0) {
        snprintf(err, errlen, "size %zu B is less than one element (%zu B)", bytes, esize);
        return -1;
    }
    out->count = out->chunk = out->send_count = out->recv_count = n;
    out->bytes = n * esize;
    return 0;
}

int coll_shape_split(const char *op, size_t bytes, size_t esize, int nranks, coll_shape_t *out,
                     char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    size_t n = bytes / esize, chunk = n / (size_t)nranks;
    if (chunk == 0) {
        snprintf(err, errlen,
                 "%s: size %zu B (%zu element%s of %zu B) cannot be split over %d ranks: "
                 "the smallest size is %zu B",
                 op, bytes, n, n == 1 ? "" : "s", esize, nranks, esize * (size_t)nranks);
        return -1;
    }
    out->chunk = chunk;
    out->count = chunk * (size_t)nranks;
    out->bytes = out->count * esize;
    return 0;
}

int coll_mpi_error(int rc, const char *call, char *err, size_t errlen)
{
    if (rc == MPI_SUCCESS) return 0;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "code %d", rc);
    snprintf(err, errlen, "%s: %s", call, msg);
    return -1;
}

int coll_mpi_chunks(coll_mpi_chunks_fn *fn, const char *call, const coll_ctx_t *c, int inplace,
                    void *send, void *recv, char *err, size_t errlen)
{
    int n = (int)c->shape.chunk;
    if (inplace)
        return coll_mpi_error(fn(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, n, c->mpi_type, c->comm),
                              call, err, errlen);
    return coll_mpi_error(fn(send, n, c->mpi_type, recv, n, c->mpi_type, c->comm), call, err,
                          errlen);
}

int coll_nccl_error(int result, const char *call, char *err, size_t errlen)
{
    if (result == 0) return 0;
#if EXADL_GPU
    snprintf(err, errlen, "%s: %s", call, ncclGetErrorString((ncclResult_t)result));
#else
    snprintf(err, errlen, "%s: error %d", call, result);
#endif
    return -1;
}

int coll_nccl_type(coll_dtype_t t)
{
#if EXADL_GPU
    switch (t) {
    case DT_F32: return ncclFloat32;
    case DT_F64: return ncclFloat64;
    case DT_F16: return ncclFloat16;
    case DT_BF16: return ncclBfloat16;
    case DT_I32: return ncclInt32;
    default: break;
    }
#endif
    return -1 - (int)t;
}

int coll_nccl_op(coll_redop_t op)
{
#if EXADL_GPU
    switch (op) {
    case RED_SUM: return ncclSum;
    case RED_MIN: return ncclMin;
    case RED_MAX: return ncclMax;
    default: break;
    }
#endif
    return -1 - (int)op;
}
