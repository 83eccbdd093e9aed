#include "benchmarks/train/kernels/ref/kern_ref_lion.h"

#include <string.h>

#include "benchmarks/common/signpack.h"
#include "benchmarks/train/kernels/kern_hyper.h"
#include "benchmarks/train/kernels/ref/kern_ref_count.h"

/* sign(c) with sign(0) = 0: one compare-and-select */
static float sign_of(float c) { return c > 0 ? 1.0f : (c < 0 ? -1.0f : 0.0f); }

/* The half of a Lion step that ref_lion and ref_lion_sign share, on one
 * element: returns the update direction sign(b1 m + (1 - b1) g) and moves
 * the momentum *m to b2 m + (1 - b2) g (g scaled by gs first). */
static float lion_direction(const kern_lion_f32 *f, float g, float *m)
{
    float gi = g * f->gs;
    FL(1);
    float c = f->b1 * *m + (1.0f - f->b1) * gi;
    FL(3);
    float u = sign_of(c);
    FL(1);
    *m = f->b2 * *m + (1.0f - f->b2) * gi;
    FL(3);
    return u;
}

/* Lion, Algorithm 1 of Chen et al. (2023), with decoupled weight decay. */
static void ref_lion(void *ctx, float *w, void *w_compute, const void *gv, float *m, int64_t n,
                     const lion_hyper *h)
{
    (void)ctx;
    const float *g = gv;
    kern_lion_f32 f = kern_hyper_lion(h);
    for (int64_t i = 0; i < n; i++) {
        float u = lion_direction(&f, g[i], &m[i]);
        w[i] = w[i] - f.lr * (u + f.wd * w[i]);
        FL(4);
    }
    if (w_compute && w_compute != (void *)w) memcpy(w_compute, w, (size_t)n * sizeof *w);
}

static void ref_lion_sign(void *ctx, float *m, const void *gv, uint64_t *bits, int64_t n,
                          const lion_hyper *h)
{
    (void)ctx;
    const float *g = gv;
    kern_lion_f32 f = kern_hyper_lion(h);
    memset(bits, 0, (size_t)sp_words(n, 1) * sizeof *bits);
    for (int64_t i = 0; i < n; i++) {
        float u = lion_direction(&f, g[i], &m[i]);
        uint64_t bit = u > 0 ? 1 : u < 0 ? 0 : (sp_tie_word(h->tie_seed, i / 64) >> (i % 64)) & 1;
        bits[i / 64] |= bit << (i % 64);
    }
}

static void ref_lion_apply(void *ctx, float *w, void *w_compute, const uint64_t *words, int p,
                           int nranks, int64_t n, const lion_hyper *h)
{
    (void)ctx;
    kern_lion_f32 f = kern_hyper_lion(h);
    float inv = 1.0f / (float)nranks;
    for (int64_t i = 0; i < n; i++) {
        float u;
        if (p == 1) {
            u = sp_field(words, 1, i) ? 1.0f : -1.0f;
        } else {
            u = (float)(2 * (int)sp_field(words, p, i) - nranks) * inv;
            FL(1);
        }
        w[i] = w[i] - f.lr * (u + f.wd * w[i]);
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
