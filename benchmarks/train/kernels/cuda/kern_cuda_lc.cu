/* The locally connected layers on cuBLAS (kern.h lc_*): one strided batched
 * GEMM over the positions, each position its own weights (modelpar,
 * docs/modelparallel.md "Kernels").  Row-major x [npos][n][in], w
 * [npos][out][in], y [npos][n][out] are, per position, the column-major
 * x' = x^T (in x n), w' = w^T (in x out), y' = y^T (out x n) of the dense
 * layers in kern_cuda_3d.cu; consecutive positions are a fixed stride apart,
 * which cublasGemmStridedBatchedEx takes as its batch.  fp32 accumulation;
 * the weight gradient goes straight into the fp32 gradient, as dense's. */
#include "benchmarks/train/kernels/cuda/kern_cuda_impl.h"

static cudaDataType_t lc_type(const Ctx *C)
{
    return C->elem == E_F32 ? CUDA_R_32F : C->elem == E_BF16 ? CUDA_R_16BF : CUDA_R_16F;
}

/* npos column-major C_t (m x n) = op(A_t) op(B_t), A_t = A + t sa, ... */
static void gemm_batched(Ctx *C, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                         const void *A, int lda, long long sa, const void *B, int ldb, long long sb,
                         void *Cm, cudaDataType_t ct, int ldc, long long sc, int npos)
{
    if (m == 0 || n == 0 || npos == 0) return;
    float one = 1.0f, zero = 0.0f;
    cudaDataType_t t = lc_type(C);
    CK_BLAS(cublasGemmStridedBatchedEx(C->blas, ta, tb, m, n, k, &one, A, t, lda, sa, B, t, ldb, sb,
                                       &zero, Cm, ct, ldc, sc, npos, CUBLAS_COMPUTE_32F,
                                       CUBLAS_GEMM_DEFAULT));
}

static void op_lc_fwd(void *c, const void *x, const void *w, int npos, int n, int in, int out,
                      void *y)
{
    Ctx *C = ctx_of(c); /* y'_t = w'_t^T x'_t */
    gemm_batched(C, CUBLAS_OP_T, CUBLAS_OP_N, out, n, in, w, in, (long long)out * in, x, in,
                 (long long)n * in, y, lc_type(C), out, (long long)n * out, npos);
}

static void op_lc_bwd_data(void *c, const void *dy, const void *w, int npos, int n, int in,
                           int out, void *dx)
{
    Ctx *C = ctx_of(c); /* dx'_t = w'_t dy'_t */
    gemm_batched(C, CUBLAS_OP_N, CUBLAS_OP_N, in, n, out, w, in, (long long)out * in, dy, out,
                 (long long)n * out, dx, lc_type(C), in, (long long)n * in, npos);
}

static void op_lc_bwd_weights(void *c, const void *x, const void *dy, int npos, int n, int in,
                              int out, void *dw)
{
    Ctx *C = ctx_of(c); /* dw'_t = x'_t dy'_t^T, fp32 */
    gemm_batched(C, CUBLAS_OP_N, CUBLAS_OP_T, in, out, n, x, in, (long long)n * in, dy, out,
                 (long long)n * out, dw, CUDA_R_32F, in, (long long)out * in, npos);
}

void kcu_fill_lc(kern_ops *o)
{
    o->lc_fwd = op_lc_fwd;
    o->lc_bwd_data = op_lc_bwd_data;
    o->lc_bwd_weights = op_lc_bwd_weights;
}
