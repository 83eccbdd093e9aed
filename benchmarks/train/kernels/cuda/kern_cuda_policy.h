/* kern_cuda_policy: rules of the CUDA kernel set that need no GPU to check,
 * in plain C so that a unit test runs them anywhere
 * (tests/unit/test_train_cudapolicy.c): which cuDNN math modes a precision
 * may use, how a convolution too large for cuDNN's 32-bit element indexing
 * is cut into calls over fewer samples (2D and 3D), which filter layout goes
 * with the data's layout, in which order the algorithms are tried (and the
 * next one after a failure), and the factor a loss gradient carries (the
 * fp16 loss scale). */
#ifndef EXADL_TRAIN_KERN_CUDA_POLICY_H
#define EXADL_TRAIN_KERN_CUDA_POLICY_H

#include <stddef.h>
#include <stdint.h>

/* cuDNN's math modes (cudnnMathType_t, mapped by kern_cuda_algo.cu) and the
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

/* The most elements from the first to the last element of one sample of a
 * 5-D view with c x d x h x w elements at strides sc, sd, sh, sw (all >= 0):
 * what kcu_chunk_samples calls len for the 3D convolutions, whose views are
 * channels-last sub-boxes of halo-padded buffers (not dense in a sample). */
static inline int64_t kcu_span3(int c, int d, int h, int w, int64_t sc, int64_t sd, int64_t sh, int64_t sw)
{
    if (c <= 0 || d <= 0 || h <= 0 || w <= 0) return 0;
    return 1 + (int64_t)(c - 1) * sc + (int64_t)(d - 1) * sd + (int64_t)(h - 1) * sh + (int64_t)(w - 1) * sw;
}

/* cuDNN filter layouts (cudnnTensorFormat_t, mapped by kern_cuda_conv3d.cu). */
enum { KCU_LAYOUT_NCHW, KCU_LAYOUT_NHWC };

/* The filter layout of a convolution whose x and y have xc, yc channels at
 * channel strides xsc, ysc: NHWC (channels innermost, [co][k..][ci]) when the
 * data are channels-last, as cosmoflow's are; else NCHW, the 2D path's (its
 * data are NCHW).  cuDNN's tensor-core kernels want the filter in the data's
 * layout: an NCHW filter on NHWC data leaves it transposing or falling back
 * to slower kernels.  A view of one channel has no layout of its own; the
 * other view decides; mixed layouts (no caller makes them) get NCHW. */
static inline int kcu_filter_layout(int xc, int64_t xsc, int yc, int64_t ysc)
{
    int xl = xc > 1 && xsc == 1, yl = yc > 1 && ysc == 1;
    int xf = xc > 1 && xsc != 1, yf = yc > 1 && ysc != 1;
    return (xl || yl) && !xf && !yf ? KCU_LAYOUT_NHWC : KCU_LAYOUT_NCHW;
}

/* One algorithm cuDNN offered for a problem, in its ranking order: whether
 * its query succeeded (status ok), its math mode (KCU_MATH_*) and workspace. */
typedef struct {
    int algo;
    int ok;
    int math;
    size_t ws_bytes;
} kcu_algo_cand;

/* The first candidate at index from or later that cuDNN offered (ok), that
 * the precision may use (kcu_math_allowed) and whose workspace fits cap_bytes;
 * -1 when none is left.  The choice is kcu_next_algo(c, n, 0, ...); when the
 * chosen algorithm fails at run time (cuDNN returns a status for a problem
 * its heuristics ranked: unsupported, a launch that fails), the convolution
 * retries with kcu_next_algo(c, n, failed + 1, ...), and only when the list
 * is exhausted is the failure fatal. */
static inline int kcu_next_algo(const kcu_algo_cand *c, int n, int from, int prec, size_t cap_bytes)
{
    for (int i = from < 0 ? 0 : from; i < n; i++)
        if (c[i].ok && kcu_math_allowed(prec, c[i].math) && c[i].ws_bytes <= cap_bytes) return i;
    return -1;
}

/* The factor every loss gradient carries: fp16 trains with dynamic loss
 * scaling, so the loss kernels' backward multiplies by the current scale
 * and the optimizers (Adam, Lion) and the overflow check divide it out;
 * every other precision 1.  A loss kernel that forgets it hands fp16 an
 * update 1/scale (65536 at the start) too small. */
static inline double kcu_loss_grad_scale(int prec, double loss_scale)
{
    return prec == KCU_PREC_FP16 ? loss_scale : 1.0;
}

/* dy = factor * (y - t) for the mean squared error over count elements
 * (kern.h's mse_bwd: 2 (y - t) / count), times the loss scale. */
static inline double kcu_mse_grad_factor(int prec, double loss_scale, int64_t count)
{
    return count > 0 ? 2.0 * kcu_loss_grad_scale(prec, loss_scale) / (double)count : 0.0;
}

#endif
