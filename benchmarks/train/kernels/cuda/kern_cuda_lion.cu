/* kern_cuda_lion.cu: the CUDA set's Lion kernels (kern.h: lion, lion_sign,
 * lion_apply; docs/lioncub.md).  The arithmetic per element is the
 * reference's (kern_ref_lion.c) in fp32; the weights' compute copy gets the
 * compute type.  lion_sign: one thread per 64-bit word of signs; the tie word
 * of a sign 0 is signpack.c's sp_tie_word, repeated here in device code (the
 * GPU test compares the two).  fp16: the gradients carry the loss scale,
 * which is divided out, and a step the overflow check skipped leaves weights
 * and moment alone (as for Adam). */
#include "benchmarks/train/kernels/cuda/kern_cuda_impl.h"

typedef unsigned long long u64;

__device__ __forceinline__ u64 d_mix(u64 z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* signpack.c: sp_tie_word */
__device__ __forceinline__ u64 d_tie_word(u64 seed, int64_t w)
{
    return d_mix(d_mix(seed) ^ ((u64)w * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL));
}

__global__ void k_lion_sign(float *m, const float *g, u64 *bits, int64_t n, float b1, float b2,
                            float gs, u64 seed)
{
    int64_t nw = (n + 63) / 64;
    for (int64_t wd = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; wd < nw;
         wd += (int64_t)gridDim.x * blockDim.x) {
        int64_t base = wd * 64, cnt = n - base < 64 ? n - base : 64;
        u64 pos = 0, zero = 0;
        for (int64_t b = 0; b < cnt; b++) {
            float gi = g[base + b] * gs;
            float mi = m[base + b];
            float c = __fadd_rn(__fmul_rn(b1, mi), __fmul_rn(1.0f - b1, gi));
            pos |= (u64)(c > 0) << b;
            zero |= (u64)!(c > 0 || c < 0) << b;
            m[base + b] = __fadd_rn(__fmul_rn(b2, mi), __fmul_rn(1.0f - b2, gi));
        }
        bits[wd] = pos | (zero ? zero & d_tie_word(seed, wd) : 0);
    }
}

/* the compute copy's type, when it is a buffer of its own */
#define BY_ELEM(C, WC, KERNEL, GRID, ...)                                                      \
    do {                                                                                    \
        if (!(WC) || (C)->elem == E_F32)                                                    \
            KERNEL<float><<<GRID, kThreads, 0, (C)->s>>>(__VA_ARGS__, (float *)(WC));        \
        else if ((C)->elem == E_BF16)                                                       \
            KERNEL<__nv_bfloat16><<<GRID, kThreads, 0, (C)->s>>>(__VA_ARGS__,               \
                                                                 (__nv_bfloat16 *)(WC));    \
        else                                                                                \
            KERNEL<__half><<<GRID, kThreads, 0, (C)->s>>>(__VA_ARGS__, (__half *)(WC));      \
    } while (0)

/* BY_ELEM passes the compute copy last */
template <typename T>
__global__ void k_lion_wc(float *w, const float *g, float *m, int64_t n, float b1, float b2,
                          float gs, float lr, float wd, const int *skip, T *wc)
{
    if (skip && *skip) return;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        float gi = g[i] * gs;
        float mi = m[i];
        float c = __fadd_rn(__fmul_rn(b1, mi), __fmul_rn(1.0f - b1, gi));
        float u = c > 0 ? 1.0f : (c < 0 ? -1.0f : 0.0f);
        float wi = w[i];
        wi = __fsub_rn(wi, __fmul_rn(lr, __fadd_rn(u, __fmul_rn(wd, wi))));
        w[i] = wi;
        m[i] = __fadd_rn(__fmul_rn(b2, mi), __fmul_rn(1.0f - b2, gi));
        if (wc) wc[i] = fromf<T>(wi);
    }
}

template <typename T>
__global__ void k_lion_apply_wc(float *w, const u64 *words, int p, int nranks, int64_t n, float lr,
                                float wd, float inv, T *wc)
{
    int per = 64 / p;
    u64 mask = (1ULL << p) - 1;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        int c = (int)((words[i / per] >> ((i % per) * p)) & mask);
        float u = p == 1 ? (c ? 1.0f : -1.0f) : __fmul_rn((float)(2 * c - nranks), inv);
        float wi = w[i];
        wi = __fsub_rn(wi, __fmul_rn(lr, __fadd_rn(u, __fmul_rn(wd, wi))));
        w[i] = wi;
        if (wc) wc[i] = fromf<T>(wi);
    }
}

void kcu_op_lion(void *c, float *master, void *w_compute, const void *g, float *m, int64_t n,
                 const lion_hyper *h)
{
    Ctx *C = ctx_of(c);
    if (n <= 0) return;
    double scale = C->prec == P_FP16 ? C->scale : 1.0;
    const int *skip = C->prec == P_FP16 ? C->d_flag : NULL;
    void *wc = (w_compute && w_compute != (void *)master) ? w_compute : NULL;
    BY_ELEM(C, wc, k_lion_wc, blocks_for(C, n), master, (const float *)g, m, n, (float)h->beta1,
            (float)h->beta2, (float)(h->grad_scale / scale), (float)h->lr,
            (float)h->weight_decay, skip);
    CK_LAUNCH("k_lion");
}

void kcu_op_lion_sign(void *c, float *m, const void *g, uint64_t *bits, int64_t n,
                      const lion_hyper *h)
{
    Ctx *C = ctx_of(c);
    if (n <= 0) return;
    double scale = C->prec == P_FP16 ? C->scale : 1.0;
    k_lion_sign<<<blocks_for(C, (n + 63) / 64), kThreads, 0, C->s>>>(
        m, (const float *)g, (u64 *)bits, n, (float)h->beta1, (float)h->beta2,
        (float)(h->grad_scale / scale), (u64)h->tie_seed);
    CK_LAUNCH("k_lion_sign");
}

void kcu_op_lion_apply(void *c, float *master, void *w_compute, const uint64_t *words, int p,
                       int nranks, int64_t n, const lion_hyper *h)
{
    Ctx *C = ctx_of(c);
    if (n <= 0) return;
    CHECK(p >= 1 && p <= 32 && nranks >= 1, "lion_apply: p %d, %d ranks", p, nranks);
    void *wc = (w_compute && w_compute != (void *)master) ? w_compute : NULL;
    BY_ELEM(C, wc, k_lion_apply_wc, blocks_for(C, n), master, (const u64 *)words, p, nranks, n,
            (float)h->lr, (float)h->weight_decay, 1.0f / (float)nranks);
    CK_LAUNCH("k_lion_apply");
}
