/* The FLOP formula of every kernel of kern.h (flops.h) against the reference
 * loops counting their own operations.
 *
 * kern_ref.c is compiled into this test with KERN_REF_COUNT defined: every
 * FL(n) in its loops then adds n to kern_ref_flops (defined here).  This file
 * therefore defines kern_ref_ops() itself; kern_ref.o of libtrain.a is never
 * pulled in because nothing left undefined here names it.
 *
 * Each kernel runs on several shapes (k = 1, 3, 5; odd and even sizes; kernels
 * wider than the image; batch > 1; channel windows whose samples lie further
 * apart than c*h*w) and the count must equal the formula exactly.  Then the
 * same calls go through counted.c (kc_*): the table row must get the same
 * FLOPs, and dry mode must count without running. */
#define KERN_REF_COUNT 1
#include "benchmarks/train/kernels/ref/kern_ref.c"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/rng.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/kernels/flops.h"
#include "tests/unit/train_fixture.h"
#include "tests/unit/tap.h"

int64_t kern_ref_flops;

/* ---- buffers and channel windows ------------------------------------------ */

/* A view of channels [c0, c0 + c) of a buffer of ctot channels per sample,
 * filled with uniform numbers in [-1, 1). */
static tview window(int n, int c, int h, int w, int c0, int ctot)
{
    size_t total = (size_t)n * ctot * h * w;
    float *b = talloc(total);
    rng_t r = rng_stream(7, (uint64_t)total, (uint64_t)c, (uint64_t)c0);
    for (size_t i = 0; i < total; i++) b[i] = (float)(2 * rng_uniform(&r) - 1);
    tview v = {b + (size_t)c0 * h * w, n, c, h, w, (int64_t)ctot * h * w};
    return v;
}

/* Dense (sstride == c*h*w) or windowed (channels 2.. of c+3) */
static tview mk(int n, int c, int h, int w, int windowed)
{
    return windowed ? window(n, c, h, w, 2, c + 3) : window(n, c, h, w, 0, c);
}

static float *rand_floats(size_t n, uint64_t seed)
{
    float *p = talloc(n);
    rng_t r = rng_stream(seed, n, 0, 0);
    for (size_t i = 0; i < n; i++) p[i] = (float)(2 * rng_uniform(&r) - 1);
    return p;
}

/* The FLOPs one call counts. */
#define COUNT(call) (kern_ref_flops = 0, (call), kern_ref_flops)

#define EXPECT_EQ(got, want, what)                                                         \
    T_ASSERT((got) == (want), "%s: instrumented loop counted %lld, formula says %lld", what, \
             (long long)(got), (long long)(want))

typedef struct {
    int n, c_in, c_out, h, w, windowed;
} shape;

static const shape shapes[] = {
    {1, 3, 4, 5, 7, 0},  /* odd sizes */
    {2, 2, 3, 6, 4, 0},  /* even sizes, batch 2 */
    {3, 5, 2, 3, 2, 1},  /* image smaller than a 5x5 kernel, windowed, batch 3 */
    {2, 9, 11, 4, 5, 1}, /* channels not multiples of 8, windowed */
    {1, 1, 1, 1, 1, 0},  /* a single pixel */
};
#define NSHAPES (sizeof shapes / sizeof *shapes)

static void test_conv(void)
{
    const kern_ops *ops = kern_ref_ops();
    for (size_t s = 0; s < NSHAPES; s++) {
        const shape *S = &shapes[s];
        for (int k = 1; k <= 5; k += 2) {
            tview x = mk(S->n, S->c_in, S->h, S->w, S->windowed);
            tview y = mk(S->n, S->c_out, S->h, S->w, S->windowed);
            float *w = rand_floats((size_t)k * k * S->c_in * S->c_out, 3);
            float *dw = talloc((size_t)k * k * S->c_in * S->c_out);
            char what[96];
            snprintf(what, sizeof what, "k=%d n=%d %dx%dx%d -> %d%s", k, S->n, S->c_in, S->h, S->w,
                     S->c_out, S->windowed ? " windowed" : "");
            EXPECT_EQ(COUNT(ops->conv_fwd(NULL, &x, w, k, &y)),
                      flops_conv_fwd(S->n, S->c_in, S->c_out, k, S->h, S->w), what);
            EXPECT_EQ(COUNT(ops->conv_bwd_data(NULL, &y, w, k, &x)),
                      flops_conv_bwd_data(S->n, S->c_in, S->c_out, k, S->h, S->w), what);
            EXPECT_EQ(COUNT(ops->conv_bwd_weights(NULL, &x, &y, k, dw)),
                      flops_conv_bwd_weights(S->n, S->c_in, S->c_out, k, S->h, S->w), what);
        }
        arena_free();
    }
}

/* The FLOPs by hand for one case, so that a formula and a loop that are wrong
 * the same way still fail: 3x3 conv, 2 samples, 4 -> 5 channels, 6x7 pixels. */
static void test_conv_by_hand(void)
{
    T_ASSERT(flops_conv_fwd(2, 4, 5, 3, 6, 7) == 2LL * 2 * 9 * 4 * 5 * 6 * 7, "conv_fwd");
    T_ASSERT(flops_tconv_fwd(2, 4, 5, 6, 7) == 2LL * 2 * 4 * 5 * 6 * 7, "tconv_fwd");
    T_ASSERT(flops_pool_fwd(10) == 40 && flops_pool_bwd(10) == 40, "pool");
    T_ASSERT(flops_l1_fwd(10) == 31 && flops_l1_bwd(10) == 20, "l1");
    T_ASSERT(flops_adam(10) == 130 && flops_relu_bwd(10) == 20 && flops_add(10) == 10, "others");
    /* gb2019's conv_init layer: 2*25*1024*256*512*512 does not fit in 32 bits */
    T_ASSERT(flops_conv_fwd(1, 1024, 256, 5, 512, 512) == 3435973836800LL, "64-bit");
}

static void test_tconv(void)
{
    const kern_ops *ops = kern_ref_ops();
    for (size_t s = 0; s < NSHAPES; s++) {
        const shape *S = &shapes[s];
        tview x = mk(S->n, S->c_in, S->h, S->w, S->windowed);
        tview y = mk(S->n, S->c_out, 2 * S->h, 2 * S->w, S->windowed);
        float *w = rand_floats((size_t)S->c_in * S->c_out, 4);
        float *dw = talloc((size_t)S->c_in * S->c_out);
        char what[96];
        snprintf(what, sizeof what, "n=%d %dx%dx%d -> %d%s", S->n, S->c_in, S->h, S->w, S->c_out,
                 S->windowed ? " windowed" : "");
        EXPECT_EQ(COUNT(ops->tconv_fwd(NULL, &x, w, &y)),
                  flops_tconv_fwd(S->n, S->c_in, S->c_out, S->h, S->w), what);
        EXPECT_EQ(COUNT(ops->tconv_bwd_data(NULL, &y, w, &x)),
                  flops_tconv_bwd_data(S->n, S->c_in, S->c_out, S->h, S->w), what);
        EXPECT_EQ(COUNT(ops->tconv_bwd_weights(NULL, &x, &y, dw)),
                  flops_tconv_bwd_weights(S->n, S->c_in, S->c_out, S->h, S->w), what);
        arena_free();
    }
}

static void test_elementwise(void)
{
    const kern_ops *ops = kern_ref_ops();
    for (size_t s = 0; s < NSHAPES; s++) {
        const shape *S = &shapes[s];
        int64_t elems = (int64_t)S->n * S->c_in * S->h * S->w;
        tview x = mk(S->n, S->c_in, S->h, S->w, S->windowed);
        tview y = mk(S->n, S->c_in, S->h, S->w, S->windowed);
        tview t = mk(S->n, S->c_in, S->h, S->w, S->windowed);
        float *b = rand_floats((size_t)S->c_in, 5);
        char what[96];
        snprintf(what, sizeof what, "n=%d %dx%dx%d%s", S->n, S->c_in, S->h, S->w,
                 S->windowed ? " windowed" : "");
        EXPECT_EQ(COUNT(ops->bias_fwd(NULL, &y, b)), flops_bias_fwd(elems), what);
        EXPECT_EQ(COUNT(ops->bias_bwd(NULL, &y, b)), flops_bias_bwd(elems), what);
        EXPECT_EQ(COUNT(ops->relu_fwd(NULL, &x, &y)), flops_relu_fwd(elems), what);
        EXPECT_EQ(COUNT(ops->relu_fwd(NULL, &x, &x)), flops_relu_fwd(elems), what);
        EXPECT_EQ(COUNT(ops->relu_bwd(NULL, &x, &y, &t)), flops_relu_bwd(elems), what);
        EXPECT_EQ(COUNT((void)ops->l1_fwd(NULL, &y, &t)), flops_l1_fwd(elems), what);
        EXPECT_EQ(COUNT(ops->l1_bwd(NULL, &y, &t, &x)), flops_l1_bwd(elems), what);
        EXPECT_EQ(COUNT(ops->add(NULL, &x, &y)), flops_add(elems), what);
        EXPECT_EQ(COUNT(ops->copy(NULL, &x, &y)), 0, what);
        EXPECT_EQ(COUNT(ops->zero(NULL, &y)), 0, what);

        /* pooling: x is 2h x 2w, y is h x w */
        tview px = mk(S->n, S->c_in, 2 * S->h, 2 * S->w, S->windowed);
        EXPECT_EQ(COUNT(ops->pool_fwd(NULL, &px, &x)), flops_pool_fwd(elems), what);
        EXPECT_EQ(COUNT(ops->pool_bwd(NULL, &x, &px)), flops_pool_bwd(elems), what);
        arena_free();
    }
}

static void test_adam(void)
{
    const kern_ops *ops = kern_ref_ops();
    const int64_t sizes[] = {1, 7, 37, 1000};
    adam_hyper hp = {1e-3, 0.9, 0.999, 1e-8, 3, 0.5};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        int64_t n = sizes[i];
        float *w = rand_floats((size_t)n, 1), *g = rand_floats((size_t)n, 2);
        float *m = talloc((size_t)n), *v = talloc((size_t)n), *wc = talloc((size_t)n);
        char what[32];
        snprintf(what, sizeof what, "adam n=%lld", (long long)n);
        EXPECT_EQ(COUNT(ops->adam(NULL, w, NULL, g, m, v, n, &hp)), flops_adam(n), what);
        EXPECT_EQ(COUNT(ops->adam(NULL, w, wc, g, m, v, n, &hp)), flops_adam(n), what);
        arena_free();
    }
}

/* ---- counted.c -------------------------------------------------------------- */

static int64_t row_flops(ktab_t *t, const char *kernel, const char *layer, int64_t *calls)
{
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->rows[i].kernel, kernel) && !strcmp(t->rows[i].layer, layer)) {
            if (calls) *calls = t->rows[i].calls;
            return t->rows[i].flops;
        }
    T_ASSERT(0, "no table row (%s, %s)", kernel, layer);
    return -1;
}

/* The operands of one call of every kc_* on shape S. */
typedef struct {
    tview x, y, ty, t, px, d;
    float *wt, *dw, *b, *db, *mw, *g, *m, *v;
    int64_t np;
    int k;
} operands;

static operands setup(const shape *S, int k)
{
    const int n = S->n, ci = S->c_in, co = S->c_out, h = S->h, w = S->w;
    operands o;
    o.k = k;
    o.x = mk(n, ci, h, w, S->windowed);
    o.y = mk(n, co, h, w, S->windowed);
    o.ty = mk(n, co, 2 * h, 2 * w, S->windowed);
    o.t = mk(n, co, h, w, S->windowed);
    o.px = mk(n, co, 2 * h, 2 * w, S->windowed);
    o.d = mk(n, co, h, w, S->windowed);
    o.wt = rand_floats((size_t)k * k * ci * co, 8);
    o.dw = rand_floats((size_t)k * k * ci * co, 9);
    o.b = rand_floats((size_t)co, 10);
    o.db = rand_floats((size_t)co, 11);
    o.np = 29;
    o.mw = rand_floats((size_t)o.np, 12);
    o.g = rand_floats((size_t)o.np, 13);
    o.m = talloc((size_t)o.np);
    o.v = talloc((size_t)o.np);
    return o;
}

/* Every kc_* once, through the reference set.  Outside dry mode each call's
 * row must grow by exactly what the loops counted.  Returns the FLOPs the
 * rows gained. */
static int64_t kc_all(kc_t *kc, operands *o)
{
    adam_hyper hp = {1e-3, 0.9, 0.999, 1e-8, 1, 1.0};
    int64_t total = 0;
    const int k = o->k;
#define ROW(KERNEL, LAYER, CALL)                                                              \
    do {                                                                                      \
        int64_t row0 = 0, calls0 = 0;                                                         \
        for (int i_ = 0; i_ < kc->tab->n; i_++)                                               \
            if (!strcmp(kc->tab->rows[i_].kernel, KERNEL) &&                                  \
                !strcmp(kc->tab->rows[i_].layer, LAYER))                                      \
                row0 = kc->tab->rows[i_].flops, calls0 = kc->tab->rows[i_].calls;             \
        int64_t before = kern_ref_flops, calls;                                               \
        CALL;                                                                                 \
        int64_t ran = kern_ref_flops - before;                                                \
        int64_t got = row_flops(kc->tab, KERNEL, LAYER, &calls) - row0;                       \
        T_ASSERT(calls == calls0 + 1, KERNEL ": calls went from %lld to %lld",                \
                 (long long)calls0, (long long)calls);                                        \
        if (!kc->dry) EXPECT_EQ(ran, got, KERNEL " through counted.c");                       \
        total += got;                                                                         \
    } while (0)
    ROW("conv_fwd", "L1", kc_conv_fwd(kc, "L1", &o->x, o->wt, k, &o->y));
    ROW("conv_bwd_data", "L1", kc_conv_bwd_data(kc, "L1", &o->y, o->wt, k, &o->x));
    ROW("conv_bwd_weights", "L1", kc_conv_bwd_weights(kc, "L1", &o->x, &o->y, k, o->dw));
    ROW("tconv_fwd", "T", kc_tconv_fwd(kc, "T", &o->x, o->wt, &o->ty));
    ROW("tconv_bwd_data", "T", kc_tconv_bwd_data(kc, "T", &o->ty, o->wt, &o->x));
    ROW("tconv_bwd_weights", "T", kc_tconv_bwd_weights(kc, "T", &o->x, &o->ty, o->dw));
    ROW("bias_fwd", "L1", kc_bias_fwd(kc, "L1", &o->y, o->b));
    ROW("bias_bwd", "L1", kc_bias_bwd(kc, "L1", &o->y, o->db));
    ROW("relu_fwd", "L1", kc_relu_fwd(kc, "L1", &o->y, &o->y));
    ROW("relu_bwd", "L1", kc_relu_bwd(kc, "L1", &o->y, &o->t, &o->y));
    ROW("pool_fwd", "P", kc_pool_fwd(kc, "P", &o->px, &o->y));
    ROW("pool_bwd", "P", kc_pool_bwd(kc, "P", &o->y, &o->px));
    ROW("l1_fwd", "loss", (void)kc_l1_fwd(kc, "loss", &o->y, &o->t));
    ROW("l1_bwd", "loss", kc_l1_bwd(kc, "loss", &o->y, &o->t, &o->d));
    ROW("adam", "opt", kc_adam(kc, "opt", o->mw, NULL, o->g, o->m, o->v, o->np, &hp));
    ROW("add", "L1", kc_add(kc, "L1", &o->t, &o->y));
    ROW("copy", "L1", kc_copy(kc, "L1", &o->t, &o->y));
    ROW("zero", "L1", kc_zero(kc, "L1", &o->t));
#undef ROW
    return total;
}

static void test_counted(void)
{
    for (size_t s = 0; s < NSHAPES; s++) {
        for (int k = 1; k <= 5; k += 2) {
            ktab_t tab;
            ktab_init(&tab, 64);
            kc_t kc = {.ops = kern_ref_ops(), .tab = &tab, .dry = 0, .timing = 1};
            operands o = setup(&shapes[s], k);
            kern_ref_flops = 0;
            int64_t total = kc_all(&kc, &o);
            T_ASSERT(total == kern_ref_flops, "sum of rows %lld, loops counted %lld",
                     (long long)total, (long long)kern_ref_flops);
            T_ASSERT(ktab_total_flops(&tab) == kern_ref_flops, "ktab_total_flops %lld != %lld",
                     (long long)ktab_total_flops(&tab), (long long)kern_ref_flops);
            T_ASSERT(ktab_total_time(&tab) > 0, "timing on, but no time recorded");
            /* a second round, untimed, adds to the same rows */
            int rows = tab.n;
            kc.timing = 0;
            double t1 = ktab_total_time(&tab);
            kern_ref_flops = 0;
            kc_all(&kc, &o);
            T_ASSERT(tab.n == rows, "second round made new rows (%d -> %d)", rows, tab.n);
            T_ASSERT(ktab_total_flops(&tab) == 2 * kern_ref_flops, "second round: %lld != 2 x %lld",
                     (long long)ktab_total_flops(&tab), (long long)kern_ref_flops);
            T_ASSERT(ktab_total_time(&tab) == t1, "timing off, but time was added");
            ktab_free(&tab);
            arena_free();
        }
    }
}

/* Dry mode: every row gets the formula's FLOPs and a call, nothing runs (the
 * loops count nothing and no buffer changes, inputs or outputs). */
static void test_dry(void)
{
    for (size_t s = 0; s < NSHAPES; s++) {
        const int k = 5;
        /* the FLOPs a real run counts */
        ktab_t wet;
        ktab_init(&wet, 64);
        kc_t kw = {.ops = kern_ref_ops(), .tab = &wet, .dry = 0, .timing = 0};
        operands o = setup(&shapes[s], k);
        kern_ref_flops = 0;
        kc_all(&kw, &o);
        int64_t want = kern_ref_flops;
        arena_free();

        o = setup(&shapes[s], k);
        int nbuf = narena;
        for (int i = 0; i < nbuf; i++) {
            float *copy = talloc(arena_len[i]);
            memcpy(copy, arena[i], arena_len[i] * sizeof *copy);
        }
        ktab_t tab;
        ktab_init(&tab, 64);
        kc_t kc = {.ops = kern_ref_ops(), .tab = &tab, .dry = 1, .timing = 1};
        kern_ref_flops = 0;
        int64_t total = kc_all(&kc, &o);
        T_ASSERT(kern_ref_flops == 0, "dry mode ran kernels (%lld FLOPs counted by the loops)",
                 (long long)kern_ref_flops);
        T_ASSERT(total == want && ktab_total_flops(&tab) == want,
                 "dry total %lld (table %lld), a real run counts %lld", (long long)total,
                 (long long)ktab_total_flops(&tab), (long long)want);
        T_ASSERT(tab.n == wet.n, "dry table has %d rows, real %d", tab.n, wet.n);
        for (int i = 0; i < tab.n; i++) {
            T_ASSERT(tab.rows[i].flops == wet.rows[i].flops, "row %s/%s: dry %lld, real %lld",
                     tab.rows[i].kernel, tab.rows[i].layer, (long long)tab.rows[i].flops,
                     (long long)wet.rows[i].flops);
            T_ASSERT(tab.rows[i].calls == 1 && tab.rows[i].time_s == 0,
                     "row %s/%s: calls %lld time %g", tab.rows[i].kernel, tab.rows[i].layer,
                     (long long)tab.rows[i].calls, tab.rows[i].time_s);
        }
        for (int i = 0; i < nbuf; i++)
            T_ASSERT(memcmp(arena[i], arena[nbuf + i], arena_len[i] * sizeof(float)) == 0,
                     "dry mode changed buffer %d (shape %zu)", i, s);
        ktab_free(&tab);
        ktab_free(&wet);
        arena_free();
    }
}

static void test_ktab(void)
{
    ktab_t a, b;
    ktab_init(&a, 4);
    ktab_init(&b, 4);
    ktab_row *r1 = ktab_row_for(&a, "conv_fwd", "x");
    ktab_row *r2 = ktab_row_for(&a, "conv_fwd", "y");
    T_ASSERT(r1 != r2 && ktab_row_for(&a, "conv_fwd", "x") == r1, "row lookup");
    r1->flops = 5, r1->calls = 1, r2->flops = 7, r2->calls = 2, r1->time_s = 0.5;
    ktab_row_for(&b, "conv_fwd", "y")->flops = 100;
    ktab_accumulate(&b, &a);
    T_ASSERT(b.n == 2 && ktab_total_flops(&b) == 112, "accumulate: %d rows, %lld FLOPs", b.n,
             (long long)ktab_total_flops(&b));
    T_ASSERT(ktab_total_time(&b) == 0.5, "accumulate time %g", ktab_total_time(&b));
    ktab_reset(&a);
    T_ASSERT(a.n == 2 && ktab_total_flops(&a) == 0 && a.rows[1].calls == 0, "reset");
    ktab_free(&a);
    ktab_free(&b);
}

int main(void)
{
    T_RUN(test_conv_by_hand);
    T_RUN(test_conv);
    T_RUN(test_tconv);
    T_RUN(test_elementwise);
    T_RUN(test_adam);
    T_RUN(test_counted);
    T_RUN(test_dry);
    T_RUN(test_ktab);
    arena_free();
    T_DONE();
}
