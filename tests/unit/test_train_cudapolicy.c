/* The CUDA kernel set's rules that need no GPU (kern_cuda_policy.h): which
 * cuDNN math modes each precision may use, how a convolution too large for
 * cuDNN's 32-bit element indexing is cut into sample chunks (gb2019's 2D
 * shapes, CosmoFlow's 3D ones), which filter layout goes with the data's,
 * the order in which algorithms are tried (and the next after a failure),
 * and the loss scale the fp16 loss gradients carry (issue 28 items 6, 8). */
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

/* The extent of one sample of a 5-D view: dense, and a channels-last
 * sub-box of a halo-padded buffer (what cosmoflow hands in). */
static void test_span3(void)
{
    T_ASSERT(kcu_span3(4, 3, 3, 3, 1, 36, 12, 4) == 4 * 27, "dense 4 x 3^3: %lld", (long long)kcu_span3(4, 3, 3, 3, 1, 36, 12, 4));
    /* 2 channels, interior 2^3 of a 4^3 buffer: last element at
     * 1 + 1*32 + 1*8 + 1*2 past the first */
    T_ASSERT(kcu_span3(2, 2, 2, 2, 1, 32, 8, 2) == 44, "sub-box: %lld", (long long)kcu_span3(2, 2, 2, 2, 1, 32, 8, 2));
    T_ASSERT(kcu_span3(0, 2, 2, 2, 1, 32, 8, 2) == 0, "empty view spans nothing");
}

/* CosmoFlow's first layer, channels-last: x the 4-channel input padded by
 * its halo, y the 32-filter output (a buffer of its own, cf_net.c).  cosmo256
 * (256^3): y is 2^29 elements per sample, so one call takes 3 samples (4
 * would be 2^31, one past cuDNN's limit).  cosmo512 unsplit: y alone is 2^32
 * per sample: refused (no batch chunk helps); split 2 ways along D still
 * 2^31: refused; 4 ways: one sample per call. */
static void check_cosmo_layer0(int size, int dsplit, int n, int expect)
{
    int64_t d = size / dsplit, xp = size + 2, xd = d + 2;
    int64_t xsw = 4, xsh = 4 * xp, xsd = xsh * xp, xsn = xsd * xd;
    int64_t ysw = 32, ysh = 32 * (int64_t)size, ysd = ysh * size, ysn = ysd * d;
    int64_t xlen = kcu_span3(4, (int)xd, (int)xp, (int)xp, 1, xsd, xsh, xsw);
    int64_t ylen = kcu_span3(32, (int)d, size, size, 1, ysd, ysh, ysw);
    T_ASSERT(xlen == xsn && ylen == ysn, "dense views span their sample: %lld %lld", (long long)xlen, (long long)ylen);
    check_chunk(n, xsn, xlen, ysn, ylen, KCU_DNN_MAX_ELEMS, expect);
}

static void test_chunks_cosmoflow(void)
{
    check_cosmo_layer0(256, 1, 1, 1);
    check_cosmo_layer0(256, 1, 3, 3);
    check_cosmo_layer0(256, 1, 4, 3);
    check_cosmo_layer0(256, 1, 5, 3);
    check_cosmo_layer0(256, 1, 16, 3);
    check_cosmo_layer0(128, 1, 31, 31); /* cosmo128: y 2^26 per sample, 31 per call */
    check_cosmo_layer0(128, 1, 32, 31);
    check_cosmo_layer0(512, 1, 1, 0);
    check_cosmo_layer0(512, 2, 1, 0);
    check_cosmo_layer0(512, 4, 1, 1);
    check_cosmo_layer0(512, 4, 2, 1);
    /* a sub-box (the interior of a padded 32-channel buffer) at 256^3: its
     * extent is less than the buffer's sample stride, so the stride decides */
    int64_t sw = 32, sh = 32 * 258, sd = sh * 258, sn = sd * 258;
    int64_t len = kcu_span3(32, 256, 256, 256, 1, sd, sh, sw);
    T_ASSERT(len < sn && len > (int64_t)32 << 24, "interior extent %lld of a %lld sample", (long long)len, (long long)sn);
    check_chunk(8, sn, len, sn, len, KCU_DNN_MAX_ELEMS, 3);
}

/* The filter layout follows the data's: NHWC for channels-last views. */
static void test_filter_layout(void)
{
    static const struct {
        int xc;
        int64_t xsc;
        int yc;
        int64_t ysc;
        int want;
        const char *what;
    } c[] = {
        {4, 1, 32, 1, KCU_LAYOUT_NHWC, "channels-last x and y (cosmoflow)"},
        {32, 1, 64, 1, KCU_LAYOUT_NHWC, "channels-last, sub-boxes"},
        {4, 4096, 32, 4096, KCU_LAYOUT_NCHW, "NCHW x and y (the 2D path's)"},
        {1, 4096, 32, 1, KCU_LAYOUT_NHWC, "one input channel, channels-last y"},
        {32, 1, 1, 27, KCU_LAYOUT_NHWC, "channels-last x, one output channel"},
        {1, 1, 1, 1, KCU_LAYOUT_NCHW, "one channel each: no layout, the 2D default"},
        {4, 1, 32, 4096, KCU_LAYOUT_NCHW, "mixed layouts"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        T_ASSERT(kcu_filter_layout(c[i].xc, c[i].xsc, c[i].yc, c[i].ysc) == c[i].want, "%s: %s, expected %s",
                 c[i].what, kcu_filter_layout(c[i].xc, c[i].xsc, c[i].yc, c[i].ysc) ? "NHWC" : "NCHW",
                 c[i].want ? "NHWC" : "NCHW");
}

/* The order in which a problem's algorithms are tried: cuDNN's ranking,
 * skipping what failed to query, what the precision forbids (fp32: DEFAULT,
 * which is TF32 on sm80+) and what exceeds the workspace cap; after a run-time
 * failure the next of the same list; -1 when it is exhausted. */
static void walk(const kcu_algo_cand *c, int n, int prec, size_t cap, const int *want, const char *what)
{
    int i = kcu_next_algo(c, n, 0, prec, cap), k = 0;
    for (; want[k] >= 0; k++) {
        T_ASSERT(i >= 0 && c[i].algo == want[k], "%s: try %d is %d, expected algorithm %d", what, k + 1,
                 i >= 0 ? c[i].algo : -1, want[k]);
        i = kcu_next_algo(c, n, i + 1, prec, cap);
    }
    T_ASSERT(i == -1, "%s: after %d tries algorithm %d is offered, expected none", what, k, i >= 0 ? c[i].algo : -1);
}

static void test_fallback_order(void)
{
    const kcu_algo_cand c[] = {
        {7, 1, KCU_MATH_DEFAULT, 0},    {1, 1, KCU_MATH_FMA, 100},      {2, 0, KCU_MATH_FMA, 0},
        {0, 1, KCU_MATH_FMA, 10},       {6, 1, KCU_MATH_TENSOR_OP, 0},  {5, 1, KCU_MATH_TENSOR_OP_CONVERT, 0},
        {4, 1, KCU_MATH_FMA, 0},
    };
    int n = (int)(sizeof c / sizeof c[0]);
    walk(c, n, KCU_PREC_FP32, 50, (const int[]){0, 4, -1}, "fp32, cap 50");
    walk(c, n, KCU_PREC_FP32, 1000, (const int[]){1, 0, 4, -1}, "fp32, cap 1000");
    walk(c, n, KCU_PREC_TF32, 1000, (const int[]){7, 6, -1}, "tf32");
    walk(c, n, KCU_PREC_BF16, 1000, (const int[]){7, 1, 0, 6, 4, -1}, "bf16");
    walk(c, n, KCU_PREC_FP16, 5, (const int[]){7, 6, 4, -1}, "fp16, cap 5");
    T_ASSERT(kcu_next_algo(c, 0, 0, KCU_PREC_BF16, 1000) == -1, "no candidates: none");
    T_ASSERT(kcu_next_algo(c, n, n, KCU_PREC_BF16, 1000) == -1, "past the end: none");
}

/* fp16 loss gradients carry the loss scale that Adam and Lion divide out;
 * other precisions 1.  MSE: 2 (y - t) / count, times it. */
static void test_loss_grad_scale(void)
{
    static const char *pn[] = {"fp32", "tf32", "bf16", "fp16"};
    for (int p = 0; p < 4; p++) {
        double want = p == KCU_PREC_FP16 ? 65536.0 : 1.0;
        T_ASSERT(kcu_loss_grad_scale(p, 65536.0) == want, "%s: loss scale %g, expected %g", pn[p],
                 kcu_loss_grad_scale(p, 65536.0), want);
        double f = kcu_mse_grad_factor(p, 65536.0, 4);
        T_ASSERT(f == 2.0 * want / 4, "%s: MSE gradient factor over 4 elements %g, expected %g", pn[p], f,
                 2.0 * want / 4);
    }
    /* after a backoff the current scale, not the initial one */
    T_ASSERT(kcu_mse_grad_factor(KCU_PREC_FP16, 32768.0, 1024) == 64.0, "fp16 at scale 32768 over 1024: %g",
             kcu_mse_grad_factor(KCU_PREC_FP16, 32768.0, 1024));
    T_ASSERT(kcu_mse_grad_factor(KCU_PREC_FP16, 65536.0, 0) == 0.0, "no elements: factor 0");
}

int main(void)
{
    T_RUN(test_math_modes_per_precision);
    T_RUN(test_chunks_respect_cudnn_limit);
    T_RUN(test_span3);
    T_RUN(test_chunks_cosmoflow);
    T_RUN(test_filter_layout);
    T_RUN(test_fallback_order);
    T_RUN(test_loss_grad_scale);
    T_DONE();
}
