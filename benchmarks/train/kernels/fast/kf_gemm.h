/* kf_gemm: the row-major GEMMs of the fast CPU set (1x1 and transposed
 * convolutions, dense layers), C = op(A) op(B) + beta C with beta 0 or 1.
 *
 * fp32 (the default): dnnl_sgemm, as before this file existed.  bf16 mode
 * (kf_ctx.bf16): A and B are rounded to bf16 (round to nearest even, a
 * oneDNN reorder into dense copies in the context's GEMM buffer) and a oneDNN
 * matmul primitive multiplies them with fp32 accumulation into the fp32 C
 * (beta 1: a sum post-op).  oneDNN has no public bf16 GEMM call; the matmul
 * primitives and their reorders are created once per shape and cached.
 *
 * defines: kf_gemm, kf_gemm_cache_free */
#ifndef EXADL_TRAIN_KF_GEMM_H
#define EXADL_TRAIN_KF_GEMM_H

#include <stdint.h>

#include "benchmarks/train/kernels/fast/kf_ctx.h"

/* C[M x N] (leading dimension ldc) = op(A) op(B) + beta C; op(A) is M x K,
 * A stored row-major with leading dimension lda ('T': A is K x M). */
void kf_gemm(kf_ctx *c, char ta, char tb, int64_t M, int64_t N, int64_t K, const float *A,
             int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc);
/* Destroy the cached bf16 matmuls (before kf_ctx_release). */
void kf_gemm_cache_free(kf_ctx *c);

#endif
