/* The CUDA kernel set's rules that need no GPU (kern_cuda_policy.h): which
 * cuDNN math modes each precision may use, and how a convolution too large
 * for cuDNN's 32-bit element indexing is cut into sample chunks, with
 * gb2019's shapes. */
#include <stdio.h>

#include "benchmarks/train/kernels/cuda/kern_cuda_policy.h"
#include "tests/unit/tap.h"

/* fp32 is FMA only (DEFAULT would allow TF32 on sm80+); tf32 is tensor-op or
 * DEFAULT math, never FMA; 16-bit any but the fp16 down-conversion. */
static void test_math_modes_per_precision(void)
{
    static const char *mn[] = {"default", "tensor_op", "tensor_op_convert", "fma"};
    static const int want[4][4] = {
        /*            default tensor_op convert fma */
        /* fp32 */ {0, 0, 0, 1},
        /* tf32 */ {1, 1, 0, 0},
        /* bf16 */ {1, 1, 0, 1},
        /* fp16 */ {1, 1, 0, 1},
    };
    static const char *pn[] = {"fp32", "tf32", "bf16", "fp16"};
    for (int p = 0; p < 4; p++)
        for (int m = 0; m < 4; m++)
            T_ASSERT(kcu_math_allowed(p, m) == want[p][m], "%s with %s math: %s, expected %s", pn[p], mn[m],
                     kcu_math_allowed(p, m) ? "allowed" : "refused", want[p][m] ? "allowed" : "refused");
}

/* m samples of each view span at most the limit, m + 1 would not. */
static void check_chunk(int n, int64_t xss, int64_t xlen, int64_t yss, int64_t ylen, int64_t max, int expect)
{
    int m = kcu_chunk_samples(n, xss, xlen, yss, ylen, max);
    T_ASSERT(m == expect, "n %d, x %lld/%lld, y %lld/%lld, limit %lld: %d samples per call, expected %d", n,
             (long long)xss, (long long)xlen, (long long)yss, (long long)ylen, (long long)max, m, expect);
    if (m <= 0) return;
    T_ASSERT((m - 1) * xss + xlen <= max && (m - 1) * yss + ylen <= max, "%d samples span past the limit", m);
    if (m < n) T_ASSERT(m * xss + xlen > max || m * yss + ylen > max, "%d samples would still fit", m + 1);
}

static void test_chunks_respect_cudnn_limit(void)
{
    /* gb2019's up2 block buffer: 1280 channels x 512^2 per sample (335,544,320
     * elements); a layer's window reads 1024 of them.  Up to batch 6 one call
     * fits 2^31 - 1; at batch 7 (which fits an 80 GB GPU in bf16) it does not. */
    const int64_t plane = 512 * 512, ss = 1280 * plane;
    check_chunk(6, ss, 1024 * plane, ss, 32 * plane, KCU_DNN_MAX_ELEMS, 6);
    check_chunk(7, ss, 1024 * plane, ss, 32 * plane, KCU_DNN_MAX_ELEMS, 6);
    check_chunk(16, ss, 1024 * plane, ss, 32 * plane, KCU_DNN_MAX_ELEMS, 6);
    /* y the larger view: the input (1024 channels) into the block's first layer */
    check_chunk(8, 1024 * plane, 1024 * plane, ss, 1280 * plane, KCU_DNN_MAX_ELEMS, 6);
    /* small views: one call */
    check_chunk(64, 1000, 1000, 500, 400, KCU_DNN_MAX_ELEMS, 64);
    /* exactly at the limit: (m - 1) * ss + len == max */
    check_chunk(10, 100, 100, 100, 100, 1000, 10);
    check_chunk(11, 100, 100, 100, 100, 1000, 10);
    check_chunk(11, 100, 101, 100, 100, 1000, 9);
    /* one sample larger than the limit: no call can be made */
    check_chunk(2, 5000, 3000, 100, 100, 2000, 0);
    check_chunk(1, 10, 10, 10, 10, 10, 1);
}

int main(void)
{
    T_RUN(test_math_modes_per_precision);
    T_RUN(test_chunks_respect_cudnn_limit);
    T_DONE();
}
