/* kern_cuda_policy: rules of the CUDA kernel set that need no GPU to check,
 * in plain C so that a unit test runs them anywhere
 * (tests/unit/test_train_cudapolicy.c): which cuDNN math modes a precision
 * may use, and how a convolution too large for cuDNN's 32-bit element
 * indexing is cut into calls over fewer samples. */
#ifndef EXADL_TRAIN_KERN_CUDA_POLICY_H
#define EXADL_TRAIN_KERN_CUDA_POLICY_H

#include <stdint.h>

/* cuDNN's math modes (cudnnMathType_t, mapped by kern_cuda_conv.cu) and the
 * precisions of kern_cuda.h. */
enum { KCU_MATH_DEFAULT, KCU_MATH_TENSOR_OP, KCU_MATH_TENSOR_OP_CONVERT, KCU_MATH_FMA };
enum { KCU_PREC_FP32, KCU_PREC_TF32, KCU_PREC_BF16, KCU_PREC_FP16 };

/* May a convolution of precision prec run in math mode math?
 *   fp32: FMA only.  DEFAULT permits TF32 tensor cores on sm80 and later, and
 *         fp32 must not depend on an environment variable to stay fp32.
 *   tf32: tensor-op math, or DEFAULT (TF32 on fp32 data); not FMA, which
 *         would quietly be fp32.
 *   bf16, fp16: any but TENSOR_OP_CONVERT (fp32 accumulation either way).
 * TENSOR_OP_CONVERT (down-conversion to fp16 behind our back) never. */
static inline int kcu_math_allowed(int prec, int math)
{
    if (math == KCU_MATH_TENSOR_OP_CONVERT) return 0;
    switch (prec) {
    case KCU_PREC_FP32: return math == KCU_MATH_FMA;
    case KCU_PREC_TF32: return math == KCU_MATH_TENSOR_OP || math == KCU_MATH_DEFAULT;
    default: return 1;
    }
}

/* cuDNN's legacy convolution API indexes a tensor with 32-bit ints: a
 * descriptor may span at most this many elements from its first element to
 * its last (gb2019's up2 buffers, 1280 channels x 512^2 per sample, pass it
 * at batch 7). */
#define KCU_DNN_MAX_ELEMS INT64_C(2147483647)

/* The most samples m (1 <= m <= n) of a convolution whose x and y have
 * sample strides xss, yss and xlen, ylen elements per sample, such that m
 * samples of each span at most max_elems: (m - 1) * ss + len <= max_elems.
 * 0 when one sample alone spans more (the call cannot be made). */
static inline int kcu_chunk_samples(int n, int64_t xss, int64_t xlen, int64_t yss, int64_t ylen,
                                    int64_t max_elems)
{
    if (n <= 0) return n;
    if (xlen > max_elems || ylen > max_elems) return 0;
    int64_t m = n;
    if (xss > 0 && (max_elems - xlen) / xss + 1 < m) m = (max_elems - xlen) / xss + 1;
    if (yss > 0 && (max_elems - ylen) / yss + 1 < m) m = (max_elems - ylen) / yss + 1;
    return (int)m;
}

#endif
