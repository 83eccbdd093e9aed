#include "benchmarks/train/kernels/ref/kern_ref_lion.h"

#include <string.h>

#include "benchmarks/common/signpack.h"
#include "benchmarks/train/kernels/ref/kern_ref_count.h"

/* sign(c) with sign(0) = 0: one compare-and-select */
static float sign_of(float c) { return c > 0 ? 1.0f : (c < 0 ? -1.0f : 0.0f); }

/* Lion, Algorithm 1 of Chen et al. (2023), with decoupled weight decay. */
static void ref_lion(void *ctx, float *w, void *w_compute, const void *gv, float *m, int64_t n,
                     const lion_hyper *h)
{
    (void)ctx;
    const float *g = gv;
    float b1 = (float)h->beta1, b2 = (float)h->beta2, gs = (float)h->grad_scale;
    float lr = (float)h->lr, wd = (float)h->weight_decay;
    for (int64_t i = 0; i < n; i++) {
        float gi = g[i] * gs;
        FL(1);
        float c = b1 * m[i] + (1.0f - b1) * gi;
        FL(3);
        float u = sign_of(c);
        FL(1);
        w[i] = w[i] - lr * (u + wd * w[i]);
        FL(4);
        m[i] = b2 * m[i] + (1.0f - b2) * gi;
        FL(3);
    }
    if (w_compute && w_compute != (void *)w) memcpy(w_compute, w, (size_t)n * sizeof *w);
}

static void ref_lion_sign(void *ctx, float *m, const void *gv, uint64_t *bits, int64_t n,
                          const lion_hyper *h)
{
    (void)ctx;
    const float *g = gv;
    float b1 = (float)h->beta1, b2 = (float)h->beta2, gs = (float)h->grad_scale;
    memset(bits, 0, (size_t)sp_words(n, 1) * sizeof *bits);
    for (int64_t i = 0; i < n; i++) {
        float gi = g[i] * gs;
        FL(1);
        float c = b1 * m[i] + (1.0f - b1) * gi;
        FL(3);
        float u = sign_of(c);
        FL(1);
        uint64_t bit = u > 0 ? 1 : u < 0 ? 0 : (sp_tie_word(h->tie_seed, i / 64) >> (i % 64)) & 1;
        bits[i / 64] |= bit << (i % 64);
        m[i] = b2 * m[i] + (1.0f - b2) * gi;
        FL(3);
    }
}

static void ref_lion_apply(void *ctx, float *w, void *w_compute, const uint64_t *words, int p,
                           int nranks, int64_t n, const lion_hyper *h)
{
    (void)ctx;
    float lr = (float)h->lr, wd = (float)h->weight_decay, inv = 1.0f / (float)nranks;
    for (int64_t i = 0; i < n; i++) {
        float u;
        if (p == 1) {
            u = sp_field(words, 1, i) ? 1.0f : -1.0f;
        } else {
            u = (float)(2 * (int)sp_field(words, p, i) - nranks) * inv;
            FL(1);
        }
        w[i] = w[i] - lr * (u + wd * w[i]);
        FL(4);
    }
    if (w_compute && w_compute != (void *)w) memcpy(w_compute, w, (size_t)n * sizeof *w);
}

void kern_ref_lion_fill(kern_ops *ops)
{
    ops->lion = ref_lion;
    ops->lion_sign = ref_lion_sign;
    ops->lion_apply = ref_lion_apply;
}
