/* coll: the collective microbenchmarks' shared types.
 *
 * One driver (bench.c) runs every operation through a table of callbacks
 * (coll_op_t), one small file per operation (ops/op_*.c, listed once in
 * ops/ops.def): the buffer shapes for a size, where the input goes and what
 * every output element must be, the bus-bandwidth factor, and the call itself
 * for each backend.  Data is built from a pattern (pattern.c) that keeps every
 * reduction exact in floating point, so every element of every rank is
 * checked with ==. */
#ifndef EXADL_COLL_H
#define EXADL_COLL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* ---- data types, reductions, backends ------------------------------------ */
typedef enum { DT_F32, DT_F64, DT_F16, DT_BF16, DT_I32, DT_COUNT } coll_dtype_t;
typedef enum { RED_SUM, RED_MIN, RED_MAX, RED_COUNT } coll_redop_t;
typedef enum { BK_MPI, BK_MPI_CUDA, BK_NCCL, BK_COUNT } coll_backend_t;

extern const char *const coll_dtype_names[];   /* "float32", ... NULL-terminated */
extern const char *const coll_redop_names[];   /* "sum", "min", "max" */
extern const char *const coll_backend_names[]; /* "mpi", "mpi-cuda", "nccl" */

size_t coll_dtype_size(coll_dtype_t t);
/* Largest integer magnitude L such that every integer in [-L, L] is exact. */
double coll_dtype_exact_limit(coll_dtype_t t);

/* IEEE binary16 and bfloat16 conversions, round to nearest even. */
uint16_t coll_f32_to_f16(float f);
float coll_f16_to_f32(uint16_t h);
uint16_t coll_f32_to_bf16(float f);
float coll_bf16_to_f32(uint16_t b);

/* Element i of a host buffer of type t, as a double (exact for every type). */
double coll_get(coll_dtype_t t, const void *buf, size_t i);
/* Store v (rounded to the type) as element i. */
void coll_set(coll_dtype_t t, void *buf, size_t i, double v);

/* MPI datatype and reduction for a type: float16 and bfloat16 travel as
 * MPI_UINT16_T with user-defined operations (MPI has no 16-bit floats). */
MPI_Datatype coll_mpi_type(coll_dtype_t t);
MPI_Op coll_mpi_op(coll_dtype_t t, coll_redop_t op); /* created once, freed by coll_mpi_ops_free */
void coll_mpi_ops_free(void);

/* ---- the data pattern ------------------------------------------------------
 * Input element i of rank r is
 *     v(r, i) = scale * (k(i) + g(r))        when (r + i) % stride == 0
 *     v(r, i) = 0                             otherwise
 * with k(i) in [-a, a] a hash of (seed, i) and g(r) in [-b, b] a hash of
 * (seed, r).  a, b and stride are chosen from the type's exact range and the
 * number of ranks that add into one element, so that every partial sum in any
 * order is an exactly representable integer multiple of scale (a power of
 * two).  Sums, minima and maxima over all ranks then have a closed form that
 * costs O(1) per element (per-residue-class tables of g). */
typedef struct {
    coll_dtype_t dtype;
    coll_redop_t redop;
    int nranks;
    int64_t a, b;
    int stride;
    double scale;
    uint64_t seed;
    /* per residue class c = r mod stride: count, sum, min, max of g(r) */
    int64_t *cls_n, *cls_sum, *cls_min, *cls_max;
} coll_pattern_t;

/* reducing: 1 when elements of all ranks add up (sum), 0 for data movement
 * and min/max (then each element keeps one rank's value). */
void coll_pattern_init(coll_pattern_t *p, coll_dtype_t t, coll_redop_t op, int nranks,
                       int reducing, uint64_t seed);
void coll_pattern_free(coll_pattern_t *p);
double coll_pattern_value(const coll_pattern_t *p, int rank, size_t i);
/* The reduction (p->redop) of v(r, i) over all ranks r. */
double coll_pattern_reduced(const coll_pattern_t *p, size_t i);

/* ---- shapes ----------------------------------------------------------------- */
typedef struct {
    size_t bytes;      /* the size column: largest per-rank buffer, in bytes */
    size_t count;      /* elements of that buffer (bytes / element size) */
    size_t chunk;      /* the count argument of the call (per-rank chunk for the
                          splitting operations; == count otherwise) */
    size_t send_count; /* elements of the out-of-place send buffer */
    size_t recv_count; /* elements of the out-of-place receive buffer */
} coll_shape_t;

/* ---- what a call needs ------------------------------------------------------ */
typedef struct {
    coll_backend_t backend;
    coll_dtype_t dtype;
    coll_redop_t redop;
    int rank, nranks, root;
    coll_shape_t shape;
    const coll_pattern_t *pat;
    MPI_Comm comm;
    MPI_Datatype mpi_type;
    MPI_Op mpi_op;
    void *nccl_comm;   /* ncclComm_t on the nccl backend */
    void *stream;      /* cudaStream_t on the nccl backend */
    int nccl_type;     /* ncclDataType_t */
    int nccl_op;       /* ncclRedOp_t */
} coll_ctx_t;

enum { BUF_SEND = 0, BUF_RECV = 1 };

/* A region of a buffer: elements [off, off + n) of buffer `buf`. */
typedef struct {
    int buf;
    size_t off, n;
} coll_region_t;

/* flags */
enum {
    OP_REDUCES = 1,  /* takes a reduction (--redop) */
    OP_ROOTED = 2,   /* has a root (--root) */
    OP_SPLITS = 4,   /* the size is split over the ranks */
    OP_P2P = 8,      /* point to point between ranks 0 and 1 */
    OP_HOST = 16,    /* host buffers only (the mpi backend): it packs on the CPU */
};

typedef struct coll_op {
    const char *name;
    const char *summary; /* one line for the --op help: what the call does */
    unsigned flags;
    /* Shape of a requested size: 0, or -1 with a message (a size the
     * operation cannot split over the ranks, a size under one element). */
    int (*shape)(size_t bytes, size_t esize, int nranks, coll_shape_t *out, char *err,
                 size_t errlen);
    /* nccl-tests' bus-bandwidth factor for n ranks. */
    double (*busbw_factor)(int nranks);
    /* Where this rank's input lies, and the value of its element i. */
    coll_region_t (*in_region)(const coll_ctx_t *c, int inplace);
    double (*in_value)(const coll_ctx_t *c, size_t i);
    /* Where this rank's output lies (n == 0: none on this rank) and the value
     * its element j must have. */
    coll_region_t (*out_region)(const coll_ctx_t *c, int inplace);
    double (*out_value)(const coll_ctx_t *c, size_t j);
    /* 1 when the in-place variant exists for the backend. */
    int (*inplace_ok)(coll_backend_t b);
    /* One call.  send and recv are the two buffers (in-place: both the same
     * buffer).  NCCL calls are enqueued on c->stream; the driver syncs.
     * Returns 0, or -1 with a message naming the failed call. */
    int (*run)(const coll_ctx_t *c, int inplace, void *send, void *recv, char *err,
               size_t errlen);
    /* Optional: bytes one rank sends in a call, where they are not the size
     * (the compressed exchanges); the record's wire_bytes. */
    int64_t (*wire_bytes)(const coll_shape_t *s, int nranks);
} coll_op_t;

/* ---- the registry (ops/ops.def, ops/registry.c) ---------------------------- */
#define COLL_OP(name) extern const coll_op_t coll_op_##name;
#include "benchmarks/collectives/ops/ops.def"
#undef COLL_OP

/* How many operations ops.def lists. */
#define COLL_OP(name) +1
enum { COLL_NOPS = 0
#include "benchmarks/collectives/ops/ops.def"
};
#undef COLL_OP

/* Every operation, in the order `--op all` runs them; NULL-terminated. */
extern const coll_op_t *const coll_ops[];
const coll_op_t *coll_op_find(const char *name);
/* The --op help: one line per operation, "  NAME  SUMMARY", each line starting
 * with indent spaces.  Returns the length it needed (as snprintf). */
int coll_ops_help(char *buf, size_t len, int indent);

/* ---- helpers the op files share ------------------------------------------- */
double coll_factor_one(int nranks);
double coll_factor_allreduce(int nranks);   /* 2(n-1)/n */
double coll_factor_n1_over_n(int nranks);   /* (n-1)/n */
/* The compressed exchanges (vote_1bit, sum_pbit): the fp32 allreduce's
 * 2(n-1)/n, so that their busbw is the bus bandwidth an fp32 allreduce would
 * need to move the same parameters in the same time (docs/lioncub.md). */
double coll_factor_fp32_equivalent(int nranks);
int coll_inplace_always(coll_backend_t b);
coll_region_t coll_region(int buf, size_t off, size_t n);
/* The callbacks several operations share (an operation names them in its
 * coll_op_t where its logic is this one, so each file keeps only what is its
 * own): the input is the whole buffer (in place, the receive buffer), the
 * output the whole receive buffer, input element i is this rank's pattern
 * value, output element j the reduction over all ranks. */
coll_region_t coll_region_in_whole(const coll_ctx_t *c, int inplace);
coll_region_t coll_region_out_whole(const coll_ctx_t *c, int inplace);
double coll_value_own(const coll_ctx_t *c, size_t i);
double coll_value_reduced(const coll_ctx_t *c, size_t j);
/* Shapes: whole buffer on every rank, or a buffer split into n chunks. */
int coll_shape_whole(size_t bytes, size_t esize, int nranks, coll_shape_t *out, char *err,
                     size_t errlen);
int coll_shape_split(const char *op, size_t bytes, size_t esize, int nranks, coll_shape_t *out,
                     char *err, size_t errlen);
/* Format an NCCL or CUDA failure into err (returns -1); no-op without GPU. */
int coll_nccl_error(int result, const char *call, char *err, size_t errlen);
/* ncclDataType_t / ncclRedOp_t of ours (as ints: nccl.h stays out of this header). */
int coll_nccl_type(coll_dtype_t t);
int coll_nccl_op(coll_redop_t op);
int coll_mpi_error(int rc, const char *call, char *err, size_t errlen);
/* The MPI call of allgather and alltoall, which take the same arguments: a
 * chunk of c->shape.chunk elements per rank, in place from the receive
 * buffer (MPI_IN_PLACE), or from the send buffer.  call names it in err. */
typedef int coll_mpi_chunks_fn(const void *send, int send_n, MPI_Datatype send_t, void *recv,
                               int recv_n, MPI_Datatype recv_t, MPI_Comm comm);
int coll_mpi_chunks(coll_mpi_chunks_fn *fn, const char *call, const coll_ctx_t *c, int inplace,
                    void *send, void *recv, char *err, size_t errlen);

#endif
