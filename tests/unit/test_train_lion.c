/* The Lion kernels (kern.h: lion, lion_sign, lion_apply; docs/lioncub.md):
 *   - one Lion step on a few weights against numbers worked out by hand;
 *   - FLOPs: kern_ref_lion.c is compiled in here with KERN_REF_COUNT, so its
 *     loops count their own operations; the count must equal flops.h, also
 *     through counted.c (and dry mode counts without running);
 *   - the fast set against the reference, bit for bit;
 *   - the split step (lion_sign, then lion_apply of the 1-bit signs on one
 *     rank) is the whole step where no sign is 0, and a sign 0 takes its tie bit;
 *   - p-bit counts applied as the mean of the ranks' signs;
 *   - the CUDA set against the reference where a GPU is present (else SKIP). */
#define KERN_REF_COUNT 1
#include "benchmarks/train/kernels/ref/kern_ref_lion.c"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/rng.h"
#include "benchmarks/common/signpack.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/kernels/flops.h"
#include "benchmarks/train/kernels/kern.h"
#if EXADL_GPU
#include "benchmarks/train/kernels/cuda/kern_cuda.h"
#endif
#include "tests/unit/train_fixture.h"
#include "tests/unit/gpu_probe.h"
#include "tests/unit/tap.h"

int64_t kern_ref_flops;
static kern_ops REF;

static float *rand_floats(size_t n, uint64_t seed, double zero_frac)
{
    float *p = talloc(n);
    rng_t r = rng_stream(seed, n, 1, 0);
    for (size_t i = 0; i < n; i++) {
        double u = rng_uniform(&r);
        p[i] = u < zero_frac ? 0.0f : (float)(2 * rng_uniform(&r) - 1);
    }
    return p;
}

static float *copy_of(const float *x, size_t n)
{
    float *p = talloc(n);
    memcpy(p, x, n * sizeof *p);
    return p;
}

/* Worked by hand, lr 0.1, beta1 0.9, beta2 0.99, weight decay 0.01, scale 0.5:
 *   w 0.5, m 0.2, g -1 (x0.5 = -0.5): c = 0.18 - 0.05 = 0.13 > 0, u = 1:
 *       w = 0.5 - 0.1 (1 + 0.005) = 0.3995; m = 0.198 - 0.005 = 0.193
 *   w -2, m -0.1, g 2 (1): c = -0.09 + 0.1 = 0.01 > 0, u = 1:
 *       w = -2 - 0.1 (1 - 0.02) = -2.098; m = -0.099 + 0.01 = -0.089
 *   w 1, m -0.3, g 0.4 (0.2): c = -0.27 + 0.02 = -0.25 < 0, u = -1:
 *       w = 1 - 0.1 (-1 + 0.01) = 1.099; m = -0.297 + 0.002 = -0.295
 *   w 3, m 0, g 0: c = 0, u = 0: w = 3 - 0.1 (0.03) = 2.997; m = 0 */
static void test_hand(void)
{
    float w[4] = {0.5f, -2.0f, 1.0f, 3.0f}, m[4] = {0.2f, -0.1f, -0.3f, 0.0f};
    const float g[4] = {-1.0f, 2.0f, 0.4f, 0.0f};
    const double w1[4] = {0.3995, -2.098, 1.099, 2.997}, m1[4] = {0.193, -0.089, -0.295, 0};
    lion_hyper h = {.lr = 0.1, .beta1 = 0.9, .beta2 = 0.99, .weight_decay = 0.01, .grad_scale = 0.5};
    const kern_ops *sets[2] = {&REF, kern_fast_ops()};
    for (int k = 0; k < 2; k++) {
        float ww[4], mm[4], wc[4];
        memcpy(ww, w, sizeof w);
        memcpy(mm, m, sizeof m);
        sets[k]->lion(NULL, ww, wc, g, mm, 4, &h);
        for (int i = 0; i < 4; i++) {
            T_ASSERT(fabs(ww[i] - w1[i]) < 1e-6 && fabs(mm[i] - m1[i]) < 1e-6,
                     "%s element %d: w %.7g (hand %.7g), m %.7g (hand %.7g)", sets[k]->name, i,
                     ww[i], w1[i], mm[i], m1[i]);
            T_ASSERT(wc[i] == ww[i], "%s: the compute copy differs", sets[k]->name);
        }
    }
}

#define COUNT(call) (kern_ref_flops = 0, (call), kern_ref_flops)

static void test_flops(void)
{
    const int64_t ns[] = {1, 7, 63, 64, 65, 1000};
    lion_hyper h = {.lr = 1e-3, .beta1 = 0.9, .beta2 = 0.99, .weight_decay = 0.1, .grad_scale = 1};
    for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
        int64_t n = ns[k];
        float *w = rand_floats((size_t)n, 1, 0.1), *g = rand_floats((size_t)n, 2, 0.1);
        float *m = rand_floats((size_t)n, 3, 0.1);
        uint64_t *bits = calloc((size_t)sp_words(n, 3), sizeof *bits);
        T_ASSERT(COUNT(REF.lion(NULL, w, NULL, g, m, n, &h)) == flops_lion(n), "lion n=%lld",
                 (long long)n);
        T_ASSERT(COUNT(REF.lion_sign(NULL, m, g, bits, n, &h)) == flops_lion_sign(n),
                 "lion_sign n=%lld", (long long)n);
        for (int p = 1; p <= 3; p++)
            T_ASSERT(COUNT(REF.lion_apply(NULL, w, NULL, bits, p, p == 1 ? 1 : 5, n, &h)) ==
                         flops_lion_apply(n, p),
                     "lion_apply p=%d n=%lld: counted %lld, formula %lld", p, (long long)n,
                     (long long)kern_ref_flops, (long long)flops_lion_apply(n, p));
        /* through counted.c: the rows get the formula, timed or dry */
        for (int dry = 0; dry < 2; dry++) {
            ktab_t tab;
            ktab_init(&tab, 8);
            kc_t kc = {.ops = &REF, .tab = &tab, .dry = dry, .timing = 1};
            kern_ref_flops = 0;
            kc_lion(&kc, "L", w, NULL, g, m, n, &h);
            kc_lion_sign(&kc, "L", m, g, bits, n, &h);
            kc_lion_apply(&kc, "L", w, NULL, bits, 2, 3, n, &h);
            int64_t want = flops_lion(n) + flops_lion_sign(n) + flops_lion_apply(n, 2);
            T_ASSERT(ktab_total_flops(&tab) == want && tab.n == 3, "counted dry=%d: %lld in %d rows",
                     dry, (long long)ktab_total_flops(&tab), tab.n);
            T_ASSERT(kern_ref_flops == (dry ? 0 : want), "dry=%d: the loops ran %lld", dry,
                     (long long)kern_ref_flops);
            ktab_free(&tab);
        }
        free(bits);
        arena_free();
    }
}

static void test_fast_equals_ref(void)
{
    const kern_ops *F = kern_fast_ops();
    T_ASSERT(F->lion && F->lion_sign && F->lion_apply, "the fast set lacks Lion kernels");
    const int64_t ns[] = {1, 5, 63, 64, 65, 130, 4099};
    lion_hyper h = {.lr = 3e-4, .beta1 = 0.9, .beta2 = 0.99, .weight_decay = 0.05, .grad_scale = 0.25,
                    .tie_seed = 77};
    for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
        int64_t n = ns[k];
        float *w = rand_floats((size_t)n, 11, 0.05), *g = rand_floats((size_t)n, 12, 0.2);
        float *m = rand_floats((size_t)n, 13, 0.2);
        float *w2 = copy_of(w, (size_t)n), *m2 = copy_of(m, (size_t)n);
        REF.lion(NULL, w, NULL, g, m, n, &h);
        F->lion(NULL, w2, NULL, g, m2, n, &h);
        T_ASSERT(!memcmp(w, w2, (size_t)n * 4) && !memcmp(m, m2, (size_t)n * 4), "lion n=%lld",
                 (long long)n);
        uint64_t *b1 = calloc((size_t)sp_words(n, 1), 8), *b2 = calloc((size_t)sp_words(n, 1), 8);
        REF.lion_sign(NULL, m, g, b1, n, &h);
        F->lion_sign(NULL, m2, g, b2, n, &h);
        T_ASSERT(!memcmp(b1, b2, (size_t)sp_words(n, 1) * 8) && !memcmp(m, m2, (size_t)n * 4),
                 "lion_sign n=%lld", (long long)n);
        for (int p = 1; p <= 3; p++) {
            uint64_t *f = calloc((size_t)sp_words(n, p), 8);
            rng_t r = rng_stream(5, (uint64_t)p, (uint64_t)n, 0);
            int nranks = p == 1 ? 1 : (1 << p) - 1;
            for (int64_t i = 0; i < n; i++)
                f[i / (64 / p)] |= (rng_next(&r) % (uint64_t)(nranks + 1)) << ((i % (64 / p)) * p);
            REF.lion_apply(NULL, w, NULL, f, p, nranks, n, &h);
            F->lion_apply(NULL, w2, NULL, f, p, nranks, n, &h);
            T_ASSERT(!memcmp(w, w2, (size_t)n * 4), "lion_apply p=%d n=%lld", p, (long long)n);
            free(f);
        }
        free(b1);
        free(b2);
        arena_free();
    }
}

/* lion_sign + lion_apply of one rank's own bits = lion, where no c is 0;
 * where c is 0 the sign is the tie bit, and the counts of p bits are means */
static void test_split_step(void)
{
    const kern_ops *sets[2] = {&REF, kern_fast_ops()};
    int64_t n = 300;
    lion_hyper h = {.lr = 1e-2, .beta1 = 0.9, .beta2 = 0.99, .weight_decay = 0.02, .grad_scale = 1,
                    .tie_seed = 5};
    for (int k = 0; k < 2; k++) {
        const kern_ops *K = sets[k];
        float *w = rand_floats((size_t)n, 21, 0), *g = rand_floats((size_t)n, 22, 0.3);
        float *m = rand_floats((size_t)n, 23, 0);
        for (int64_t i = 0; i < n; i += 7) m[i] = 0, g[i] = 0; /* c = 0 exactly */
        float *w2 = copy_of(w, (size_t)n), *m2 = copy_of(m, (size_t)n), *w3 = copy_of(w, (size_t)n);
        float *w0 = copy_of(w, (size_t)n);
        uint64_t bits[5] = {0}, fields[10] = {0};
        K->lion(NULL, w, NULL, g, m, n, &h);
        K->lion_sign(NULL, m2, g, bits, n, &h);
        K->lion_apply(NULL, w2, NULL, bits, 1, 1, n, &h);
        T_ASSERT(!memcmp(m, m2, (size_t)n * 4), "%s: the moment differs", K->name);
        for (int64_t i = 0; i < n; i++) {
            if (i % 7) {
                T_ASSERT(w[i] == w2[i], "%s element %lld: %g vs %g", K->name, (long long)i, w[i], w2[i]);
            } else {
                int tb = (int)((sp_tie_word(h.tie_seed, i / 64) >> (i % 64)) & 1);
                T_ASSERT((int)((bits[i / 64] >> (i % 64)) & 1) == tb, "%s: a 0 sign's bit is not its tie bit",
                         K->name);
            }
        }
        /* three ranks' counts 0..3 as fields of 2 bits: u = (2c - 3) / 3 */
        for (int64_t i = 0; i < n; i++) fields[i / 32] |= (uint64_t)(i % 4) << ((i % 32) * 2);
        K->lion_apply(NULL, w3, NULL, fields, 2, 3, n, &h);
        for (int64_t i = 0; i < n; i++) {
            float u = (float)(2 * (int)(i % 4) - 3) * (1.0f / 3.0f);
            float expect = w0[i] - (float)h.lr * (u + (float)h.weight_decay * w0[i]);
            T_ASSERT(w3[i] == expect, "%s: p-bit element %lld: %g, want %g", K->name, (long long)i,
                     w3[i], expect);
        }
        arena_free();
    }
}

#if EXADL_GPU
static void test_cuda(void)
{
    char why[512];
    const kcu_api *K = kcu_load(why, sizeof why);
    /* without the module's CUDA libraries there is no GPU to test, unless
     * nvidia-smi -L lists one (gpu_probe.h): then the module must load */
    if (!K) {
        T_ASSERT(gpu_probe_unloaded(why) == 0, "nvidia-smi -L lists a GPU but the CUDA module does not load: %s",
                 why);
        T_SKIP("no CUDA GPU (%s)", why);
    }
    int ndev = K->device_count(why, sizeof why);
    T_ASSERT(ndev >= 0, "CUDA cannot start: %s", why);
    if (ndev == 0) T_SKIP("no CUDA GPU (%s)", why);
    char err[256];
    kcu_opts o = {.precision = "fp32", .device = 0, .algo = "heuristic"};
    void *ctx = K->create(&o, err, sizeof err);
    T_ASSERT(ctx, "kcu_create: %s", err);
    const kern_ops *C = K->ops(ctx);
    int64_t n = 5000;
    size_t bytes = (size_t)n * 4, wbytes = (size_t)sp_words(n, 1) * 8;
    lion_hyper h = {.lr = 1e-3, .beta1 = 0.9, .beta2 = 0.99, .weight_decay = 0.1, .grad_scale = 0.5,
                    .tie_seed = 9};
    float *w = rand_floats((size_t)n, 31, 0), *g = rand_floats((size_t)n, 32, 0.1);
    float *m = rand_floats((size_t)n, 33, 0.1);
    for (int64_t i = 0; i < n; i += 11) m[i] = 0, g[i] = 0;
    float *dw = C->alloc(ctx, bytes), *dg = C->alloc(ctx, bytes), *dm = C->alloc(ctx, bytes);
    uint64_t *db = C->alloc(ctx, wbytes);
    C->h2d(ctx, dw, w, bytes);
    C->h2d(ctx, dg, g, bytes);
    C->h2d(ctx, dm, m, bytes);
    float *wr = copy_of(w, (size_t)n), *mr = copy_of(m, (size_t)n), *got = talloc((size_t)n);
    REF.lion(NULL, wr, NULL, g, mr, n, &h);
    C->lion(ctx, dw, NULL, dg, dm, n, &h);
    C->d2h(ctx, got, dw, bytes);
    C->sync(ctx);
    T_ASSERT(!memcmp(got, wr, bytes), "cuda lion: weights differ from the reference");
    C->d2h(ctx, got, dm, bytes);
    C->sync(ctx);
    T_ASSERT(!memcmp(got, mr, bytes), "cuda lion: moment differs from the reference");
    uint64_t *b1 = calloc(wbytes, 1), *b2 = calloc(wbytes, 1);
    REF.lion_sign(NULL, mr, g, b1, n, &h);
    C->lion_sign(ctx, dm, dg, db, n, &h);
    C->d2h(ctx, b2, db, wbytes);
    C->sync(ctx);
    T_ASSERT(!memcmp(b1, b2, wbytes), "cuda lion_sign: bits (tie words included) differ");
    REF.lion_apply(NULL, wr, NULL, b1, 1, 1, n, &h);
    C->lion_apply(ctx, dw, NULL, db, 1, 1, n, &h);
    C->d2h(ctx, got, dw, bytes);
    C->sync(ctx);
    T_ASSERT(!memcmp(got, wr, bytes), "cuda lion_apply differs from the reference");
    C->release(ctx, dw), C->release(ctx, dg), C->release(ctx, dm), C->release(ctx, db);
    free(b1);
    free(b2);
    K->release(ctx);
    arena_free();
}
#else
static void test_cuda(void) { T_SKIP("this build has no CUDA path: the CUDA Lion kernels are not built"); }
#endif

int main(void)
{
    kern_ref_lion_fill(&REF);
    REF.name = "reference";
    T_RUN(test_hand);
    T_RUN(test_flops);
    T_RUN(test_fast_equals_ref);
    T_RUN(test_split_step);
    T_RUN(test_cuda);
    T_DONE();
}
