#include "benchmarks/train/kernels/fast/kern_fast_lion.h"

#include <string.h>

#include "benchmarks/common/signpack.h"
#include "benchmarks/train/kernels/kern_hyper.h"

static void fast_lion(void *ctx, float *w, void *w_compute, const void *gv, float *m, int64_t n,
                      const lion_hyper *h)
{
    (void)ctx;
    const float *g = gv;
    const kern_lion_f32 f = kern_hyper_lion(h);
    const float b1 = f.b1, b2 = f.b2, gs = f.gs, lr = f.lr, wd = f.wd;
    for (int64_t i = 0; i < n; i++) {
        float gi = g[i] * gs;
        float mi = m[i];
        float c = b1 * mi + (1.0f - b1) * gi;
        float u = c > 0 ? 1.0f : (c < 0 ? -1.0f : 0.0f);
        float wi = w[i];
        w[i] = wi - lr * (u + wd * wi);
        m[i] = b2 * mi + (1.0f - b2) * gi;
    }
    if (w_compute && w_compute != (void *)w) memcpy(w_compute, w, (size_t)n * sizeof *w);
}

static void fast_lion_sign(void *ctx, float *m, const void *gv, uint64_t *bits, int64_t n,
                           const lion_hyper *h)
{
    (void)ctx;
    const float *g = gv;
    const kern_lion_f32 f = kern_hyper_lion(h);
    const float b1 = f.b1, b2 = f.b2, gs = f.gs;
    float c[64];
    for (int64_t w = 0, base = 0; base < n; w++, base += 64) {
        int64_t cnt = n - base < 64 ? n - base : 64;
        float *mm = m + base;
        const float *gg = g + base;
        for (int64_t b = 0; b < cnt; b++) {
            float gi = gg[b] * gs;
            float mi = mm[b];
            c[b] = b1 * mi + (1.0f - b1) * gi;
            mm[b] = b2 * mi + (1.0f - b2) * gi;
        }
        uint64_t pos, zero;
        sp_sign_word(c, (int)cnt, &pos, &zero);
        bits[w] = pos | (zero ? zero & sp_tie_word(h->tie_seed, w) : 0);
    }
}

static void fast_lion_apply(void *ctx, float *w, void *w_compute, const uint64_t *words, int p,
                            int nranks, int64_t n, const lion_hyper *h)
{
    (void)ctx;
    const kern_lion_f32 f = kern_hyper_lion(h);
    const float lr = f.lr, wd = f.wd, inv = 1.0f / (float)nranks;
    int64_t per = sp_fields_per_word(p);
    uint64_t mask = (1ULL << p) - 1;
    for (int64_t k = 0, base = 0; base < n; k++, base += per) {
        int64_t cnt = n - base < per ? n - base : per;
        uint64_t word = words[k];
        float *ww = w + base;
        if (p == 1) {
            for (int64_t b = 0; b < cnt; b++) {
                float u = (word >> b) & 1 ? 1.0f : -1.0f;
                float wi = ww[b];
                ww[b] = wi - lr * (u + wd * wi);
            }
        } else {
            for (int64_t b = 0; b < cnt; b++) {
                int cnt_plus = (int)((word >> (b * p)) & mask);
                float u = (float)(2 * cnt_plus - nranks) * inv;
                float wi = ww[b];
                ww[b] = wi - lr * (u + wd * wi);
            }
        }
    }
    if (w_compute && w_compute != (void *)w) memcpy(w_compute, w, (size_t)n * sizeof *w);
}

void kern_fast_lion_fill(kern_ops *ops)
{
    ops->lion = fast_lion;
    ops->lion_sign = fast_lion_sign;
    ops->lion_apply = fast_lion_apply;
}
