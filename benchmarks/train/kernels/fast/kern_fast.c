/* The fast CPU kernel set: the kern_ops table, convolutions on oneDNN
 * (kern_fast_conv.c, kern_fast_gemm.c; their shared context kf_ctx.c),
 * everything else here as plain loops over the views that the compiler
 * vectorises (module.mk builds this file with -O3 -fno-trapping-math
 * -fno-math-errno, no FMA contraction); ReLU, Adam and zero run over the
 * context's OpenMP threads (EW_BLOCKS).  Chosen by measurement against im2col +
 * OpenBLAS: docs/stemdl-cpu-kernels.md.
 *
 * A sample of a view holds c*h*w contiguous floats (channel stride h*w, row
 * stride w), so the element-wise kernels walk each sample as one flat array.
 * They compute what kern_ref.c computes, in the same order per element where
 * the reference works in float (ReLU, pooling, Adam: bit-identical), and
 * accumulate sums in double like the reference (bias gradient, L1 loss). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/train/kernels/fast/kern_fast_conv.h"
#include "benchmarks/train/kernels/fast/kern_fast_conv3d.h"
#include "benchmarks/train/kernels/fast/kern_fast_gemm.h"
#include "benchmarks/train/kernels/fast/kern_fast_lion.h"
#include "benchmarks/train/kernels/fast/kern_fast_seg.h"
#include "benchmarks/train/kernels/fast/kf_ctx.h"
#include "benchmarks/train/kernels/fast/kf_gemm.h"
#include "benchmarks/train/kernels/kern.h"
#include "benchmarks/train/kernels/kern_hyper.h"

static float *smp(const tview *t, int n) { return (float *)t->p + (int64_t)n * t->sstride; }
static size_t plane(const tview *t) { return (size_t)t->c * t->h * t->w; }

/* Element-wise loops over n elements on the context's OpenMP threads, in
 * blocks of KF_EW_BLOCK (one thread below two blocks; tests pass ctx NULL:
 * one thread).  Each element is computed alone, so the result is the same
 * bit for bit whatever the thread count. */
enum { KF_EW_BLOCK = 1 << 16 };
#define EW_BLOCKS(CTX, N, ...)                                                    \
    do {                                                                          \
        int par_ = (CTX) != NULL && (N) >= 2 * (int64_t)KF_EW_BLOCK;              \
        if (par_) kf_threads(CTX);                                                \
        int64_t nb_ = ((N) + KF_EW_BLOCK - 1) / KF_EW_BLOCK;                      \
        _Pragma("omp parallel for schedule(static) if (par_)")                    \
        for (int64_t b_ = 0; b_ < nb_; b_++) {                                    \
            int64_t i0 = b_ * KF_EW_BLOCK;                                        \
            int64_t i1 = i0 + KF_EW_BLOCK < (N) ? i0 + KF_EW_BLOCK : (N);         \
            __VA_ARGS__;                                                          \
        }                                                                         \
    } while (0)

void *kern_fast_create(int threads) { return kf_ctx_create(threads); }

void kern_fast_release(void *ctx)
{
    kf_ctx *c = ctx;
    if (!c) return;
    kf_conv_cache_free(c);
    kf_conv3d_cache_free(c);
    kf_gemm_cache_free(c);
    kf_seg_cache_free(c);
    kf_ctx_release(c);
}

/* 1x1 convolutions are GEMMs straight on the views (kern_fast_gemm.c); larger
 * kernels go to oneDNN's convolutions (kern_fast_conv.c). */
static void fast_conv_fwd(void *ctx, const tview *x, const void *w, int k, const tview *y)
{
    if (k == 1) kf_conv1_fwd(ctx, x, w, y);
    else kf_conv_fwd(ctx, x, w, k, y);
}

static void fast_conv_bwd_data(void *ctx, const tview *dy, const void *w, int k, const tview *dx)
{
    if (k == 1) kf_conv1_bwd_data(ctx, dy, w, dx);
    else kf_conv_bwd_data(ctx, dy, w, k, dx);
}

static void fast_conv_bwd_weights(void *ctx, const tview *x, const tview *dy, int k, void *dw)
{
    if (k == 1) kf_conv1_bwd_weights(ctx, x, dy, dw);
    else kf_conv_bwd_weights(ctx, x, dy, k, dw);
}

/* The instruction set oneDNN's JIT uses on this CPU (ONEDNN_MAX_CPU_ISA or
 * DNNL_MAX_CPU_ISA lower it). */
const char *kern_fast_cpu_isa(void)
{
    switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_sse41: return "sse4.1";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx512_mic: return "avx512_mic";
    case dnnl_cpu_isa_avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    default: return "other";
    }
}

const char *kern_fast_library(void)
{
    static char buf[96];
    const dnnl_version_t *v = dnnl_version();
    int hash = v->hash && v->hash[0] && strcmp(v->hash, "N/A");
    snprintf(buf, sizeof buf, "oneDNN %d.%d.%d (%s%.12s%sOpenMP, cpu isa %s)", v->major, v->minor,
             v->patch, hash ? "git " : "", hash ? v->hash : "", hash ? ", " : "", kern_fast_cpu_isa());
    return buf;
}

int kern_fast_bf16_missing(char *why, size_t len)
{
    /* the ISA values are bit sets: avx512_core_bf16's bits are in AMX's too
     * (avx2_vnni, a larger number, has none of bf16's) */
    unsigned isa = (unsigned)dnnl_get_effective_cpu_isa(), bf = dnnl_cpu_isa_avx512_core_bf16;
    if ((isa & bf) == bf) return 0;
    snprintf(why, len,
             "precision bf16 on the cpu backend needs AVX512-BF16 or AMX: oneDNN finds neither "
             "here (its cpu isa: %s; ONEDNN_MAX_CPU_ISA may mask them)",
             kern_fast_cpu_isa());
    return -1;
}

void kern_fast_set_bf16(void *ctx, int on) { ((kf_ctx *)ctx)->bf16 = on != 0; }

const char *kern_fast_kernel_dtype(const void *ctx, const char *kernel)
{
    /* the kernels on oneDNN's convolutions and GEMMs (kern_fast_conv*.c,
     * kern_fast_gemm.c, the dense layers, the segmentation set's dilated and
     * grouped convolutions); everything else runs in fp32 */
    static const char *const matrix[] = {"conv_", "tconv_", "conv3d_", "dense_", "dconv_"};
    if (!ctx || !((const kf_ctx *)ctx)->bf16) return "fp32";
    for (size_t i = 0; i < sizeof matrix / sizeof *matrix; i++)
        if (!strncmp(kernel, matrix[i], strlen(matrix[i]))) return "bf16";
    return "fp32";
}

static void fast_bias_fwd(void *ctx, const tview *y, const void *bv)
{
    (void)ctx;
    const float *b = bv;
    size_t hw = (size_t)y->h * y->w;
    for (int n = 0; n < y->n; n++)
        for (int c = 0; c < y->c; c++) {
            float *p = smp(y, n) + c * hw, bc = b[c];
            for (size_t i = 0; i < hw; i++) p[i] += bc;
        }
}

static void fast_bias_bwd(void *ctx, const tview *dy, void *dbv)
{
    (void)ctx;
    float *db = dbv;
    size_t hw = (size_t)dy->h * dy->w;
    for (int c = 0; c < dy->c; c++) {
        double acc = 0;
        for (int n = 0; n < dy->n; n++) {
            const float *p = smp(dy, n) + c * hw;
            for (size_t i = 0; i < hw; i++) acc += p[i];
        }
        db[c] = (float)acc;
    }
}

static void fast_relu_fwd(void *ctx, const tview *x, const tview *y)
{
    int64_t m = (int64_t)plane(x);
    for (int n = 0; n < x->n; n++) {
        const float *a = smp(x, n);
        float *b = smp(y, n);
        EW_BLOCKS((kf_ctx *)ctx, m, for (int64_t i = i0; i < i1; i++) b[i] = a[i] > 0 ? a[i] : 0.0f);
    }
}

static void fast_relu_bwd(void *ctx, const tview *x, const tview *dy, const tview *dx)
{
    int64_t m = (int64_t)plane(x);
    for (int n = 0; n < x->n; n++) {
        const float *a = smp(x, n), *g = smp(dy, n);
        float *d = smp(dx, n);
        /* g[i] loaded whatever the sign: a load under the condition keeps
         * the vectoriser off (the sum is the same expression) */
        EW_BLOCKS((kf_ctx *)ctx, m, for (int64_t i = i0; i < i1; i++) {
            float gi = g[i];
            d[i] += a[i] > 0 ? gi : 0.0f;
        });
    }
}

static void fast_pool_fwd(void *ctx, const tview *x, const tview *y)
{
    (void)ctx;
    for (int n = 0; n < y->n; n++)
        for (int c = 0; c < y->c; c++)
            for (int i = 0; i < y->h; i++) {
                const float *r0 = smp(x, n) + ((size_t)c * x->h + 2 * i) * x->w, *r1 = r0 + x->w;
                float *o = smp(y, n) + ((size_t)c * y->h + i) * y->w;
                for (int j = 0; j < y->w; j++)
                    o[j] = 0.25f * (r0[2 * j] + r0[2 * j + 1] + r1[2 * j] + r1[2 * j + 1]);
            }
}

static void fast_pool_bwd(void *ctx, const tview *dy, const tview *dx)
{
    (void)ctx;
    for (int n = 0; n < dx->n; n++)
        for (int c = 0; c < dx->c; c++)
            for (int i = 0; i < dx->h; i++) {
                const float *g = smp(dy, n) + ((size_t)c * dy->h + i / 2) * dy->w;
                float *o = smp(dx, n) + ((size_t)c * dx->h + i) * dx->w;
                for (int j = 0; j < dx->w; j++) o[j] = 0.25f * g[j / 2];
            }
}

static double fast_l1_fwd(void *ctx, const tview *y, const tview *t)
{
    (void)ctx;
    size_t m = plane(y);
    double sum = 0;
    for (int n = 0; n < y->n; n++) {
        const float *a = smp(y, n), *b = smp(t, n);
        for (size_t i = 0; i < m; i++) sum += fabs((double)a[i] - b[i]);
    }
    return sum * (1.0 / (double)tview_elems(y));
}

static void fast_l1_bwd(void *ctx, const tview *y, const tview *t, const tview *dy)
{
    (void)ctx;
    size_t m = plane(y);
    float s = (float)(1.0 / (double)tview_elems(y));
    for (int n = 0; n < y->n; n++) {
        const float *a = smp(y, n), *b = smp(t, n);
        float *d = smp(dy, n);
        for (size_t i = 0; i < m; i++) {
            float v = a[i] - b[i];
            d[i] = v > 0 ? s : (v < 0 ? -s : 0.0f);
        }
    }
}

/* Adam on [i0, i1) as kern_ref.c computes it (bias corrections folded into
 * the step); vectorised (module.mk: -O3 -fno-math-errno), no contraction */
static void adam_range(float *w, const float *g, float *m, float *v, int64_t i0, int64_t i1,
                       const kern_adam_f32 *f)
{
    const float b1 = f->b1, b2 = f->b2, gs = f->gs, lr_t = f->lr_t, eps_t = f->eps_t;
    for (int64_t i = i0; i < i1; i++) {
        float gi = g[i] * gs;
        float mi = b1 * m[i] + (1.0f - b1) * gi;
        float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
        m[i] = mi;
        v[i] = vi;
        w[i] -= lr_t * mi / (sqrtf(vi) + eps_t);
    }
}

static void fast_adam(void *ctx, float *w, void *w_compute, const void *gv, float *m, float *v,
                      int64_t n, const adam_hyper *h)
{
    const float *g = gv;
    const kern_adam_f32 f = kern_hyper_adam(h, h->step);
    EW_BLOCKS((kf_ctx *)ctx, n, adam_range(w, g, m, v, i0, i1, &f));
    if (w_compute && w_compute != (void *)w) memcpy(w_compute, w, (size_t)n * sizeof *w);
}

static void fast_copy(void *ctx, const tview *src, const tview *dst)
{
    (void)ctx;
    for (int n = 0; n < src->n; n++) memmove(smp(dst, n), smp(src, n), plane(src) * sizeof(float));
}

static void fast_add(void *ctx, const tview *src, const tview *dst)
{
    (void)ctx;
    size_t m = plane(src);
    for (int n = 0; n < src->n; n++) {
        const float *a = smp(src, n);
        float *d = smp(dst, n);
        for (size_t i = 0; i < m; i++) d[i] += a[i];
    }
}

static void fast_zero(void *ctx, const tview *dst)
{
    int64_t m = (int64_t)plane(dst);
    for (int n = 0; n < dst->n; n++) {
        float *d = smp(dst, n);
        EW_BLOCKS((kf_ctx *)ctx, m, memset(d + i0, 0, (size_t)(i1 - i0) * sizeof *d));
    }
}

const kern_ops *kern_fast_ops(void)
{
    static kern_ops ops;
    if (!ops.name) {
        ops.conv_fwd = fast_conv_fwd;
        ops.conv_bwd_data = fast_conv_bwd_data;
        ops.conv_bwd_weights = fast_conv_bwd_weights;
        ops.tconv_fwd = kf_tconv_fwd;
        ops.tconv_bwd_data = kf_tconv_bwd_data;
        ops.tconv_bwd_weights = kf_tconv_bwd_weights;
        ops.bias_fwd = fast_bias_fwd;
        ops.bias_bwd = fast_bias_bwd;
        ops.relu_fwd = fast_relu_fwd;
        ops.relu_bwd = fast_relu_bwd;
        ops.pool_fwd = fast_pool_fwd;
        ops.pool_bwd = fast_pool_bwd;
        ops.l1_fwd = fast_l1_fwd;
        ops.l1_bwd = fast_l1_bwd;
        ops.adam = fast_adam;
        kern_fast_lion_fill(&ops);
        ops.copy = fast_copy;
        ops.add = fast_add;
        ops.zero = fast_zero;
        kern_host_fill(&ops);
        kern_fast_fill_3d(&ops);
        kern_fast_fill_seg(&ops);
        ops.name = "fast";
    }
    return &ops;
}
