/* signpack (benchmarks/common/signpack.h): the wire formats of Lion's signs
 * against plain per-element references written here: packing (zeros, NaN,
 * -0, sizes that are not multiples of 8, 32 or 64 bits), the bit-sliced
 * majority vote for 1..7 ranks (odd and even counts, forced ties, a word
 * offset), p-bit fields and their integer sums, disagreement counts, and
 * that tie bits are unbiased and the same for the same (seed, word). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/rng.h"
#include "benchmarks/common/signpack.h"
#include "tests/unit/tap.h"

static const int64_t sizes[] = {1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1000, 4097};
enum { NSIZES = sizeof sizes / sizeof *sizes };

static int tie_ref(uint64_t seed, int64_t i) { return (int)((sp_tie_word(seed, i / 64) >> (i % 64)) & 1); }
static int bit_at(const uint64_t *w, int64_t i) { return (int)((w[i / 64] >> (i % 64)) & 1); }

static void test_bits(void)
{
    const int want[] = {0, 1, 2, 2, 3, 3, 3, 3, 4, 4};
    for (int n = 1; n <= 9; n++) T_ASSERT(sp_bits(n) == want[n], "sp_bits(%d) = %d", n, sp_bits(n));
    T_ASSERT(sp_bits(127) == 7 && sp_bits(128) == 8 && sp_bits(255) == 8, "sp_bits 127/128/255");
    for (int p = 1; p <= 8; p++)
        for (int n = 1; n <= 4; n++) {
            int64_t per = 64 / p;
            T_ASSERT(sp_words(n * per, p) == n && sp_words(n * per + 1, p) == n + 1,
                     "sp_words p=%d", p);
        }
}

static void test_pack(void)
{
    for (int s = 0; s < NSIZES; s++) {
        int64_t n = sizes[s];
        float *x = malloc((size_t)n * sizeof *x);
        uint64_t *b = malloc((size_t)sp_words(n, 1) * sizeof *b);
        rng_t r = rng_stream(3, (uint64_t)n, 0, 0);
        for (int64_t i = 0; i < n; i++) {
            int k = (int)(rng_next(&r) % 6);
            x[i] = k == 0 ? 0.0f : k == 1 ? -0.0f : k == 2 ? NAN : k == 3 ? 1e-30f : k == 4 ? -2.5f : 7.0f;
        }
        uint64_t seed = 99 + (uint64_t)n;
        sp_pack_f32(x, n, b, seed);
        for (int64_t i = 0; i < n; i++) {
            int want = x[i] > 0 ? 1 : x[i] < 0 ? 0 : tie_ref(seed, i);
            T_ASSERT(bit_at(b, i) == want, "n=%lld element %lld (%g): bit %d, want %d", (long long)n,
                     (long long)i, x[i], bit_at(b, i), want);
        }
        for (int64_t i = n; i < sp_words(n, 1) * 64; i++)
            T_ASSERT(bit_at(b, i) == 0, "n=%lld: padding bit %lld set", (long long)n, (long long)i);
        /* one word at a time, the SSE masks against the plain compares */
        for (int m = 1; m <= 64 && m <= n; m++) {
            uint64_t pos, zero, p2 = 0, z2 = 0;
            sp_sign_word(x, m, &pos, &zero);
            for (int k = 0; k < m; k++) {
                p2 |= (uint64_t)(x[k] > 0) << k;
                z2 |= (uint64_t)!(x[k] > 0 || x[k] < 0) << k;
            }
            T_ASSERT(pos == p2 && zero == z2, "sp_sign_word m=%d", m);
        }
        free(x);
        free(b);
    }
}

/* nranks random bit vectors, with every `tie_every`-th word made of complementary pairs */
static void random_ranks(uint64_t *in, int nranks, int64_t nw, uint64_t seed)
{
    rng_t r = rng_stream(seed, (uint64_t)nranks, (uint64_t)nw, 1);
    for (int q = 0; q < nranks; q++)
        for (int64_t w = 0; w < nw; w++) in[q * nw + w] = rng_next(&r);
    if (nranks % 2 == 0)
        for (int64_t w = 0; w < nw; w += 3)
            for (int q = 0; q + 1 < nranks; q += 2) in[(q + 1) * nw + w] = ~in[q * nw + w];
}

static void test_vote(void)
{
    for (int nranks = 1; nranks <= 7; nranks++)
        for (int s = 0; s < NSIZES; s++) {
            int64_t nw = sizes[s], w0 = 5 * nranks;
            uint64_t *in = malloc((size_t)(nranks * nw) * sizeof *in);
            uint64_t *out = malloc((size_t)nw * sizeof *out);
            random_ranks(in, nranks, nw, 17);
            uint64_t seed = 1234;
            sp_vote(in, nw, nranks, nw, out, seed, w0);
            int64_t ties = 0;
            for (int64_t i = 0; i < nw * 64; i++) {
                int ones = 0;
                for (int q = 0; q < nranks; q++) ones += bit_at(in + q * nw, i);
                int want;
                if (2 * ones > nranks) want = 1;
                else if (2 * ones < nranks) want = 0;
                else want = tie_ref(sp_vote_seed(seed), w0 * 64 + i), ties++;
                T_ASSERT(bit_at(out, i) == want, "%d ranks, %lld words: bit %lld has %d ones: "
                         "voted %d, want %d", nranks, (long long)nw, (long long)i, ones,
                         bit_at(out, i), want);
            }
            T_ASSERT(nranks % 2 || ties > 0, "%d ranks: no tie was exercised", nranks);
            free(in);
            free(out);
        }
}

static void test_fields(void)
{
    for (int nranks = 1; nranks <= 9; nranks++) {
        int p = sp_bits(nranks);
        for (int s = 0; s < NSIZES; s++) {
            int64_t n = sizes[s], nb = sp_words(n, 1), nf = sp_words(n, p);
            uint64_t *bits = calloc((size_t)(nranks * nb), sizeof *bits);
            uint64_t *f = calloc((size_t)(nranks * nf), sizeof *f);
            uint64_t *sum = calloc((size_t)nf, sizeof *sum);
            rng_t r = rng_stream(5, (uint64_t)nranks, (uint64_t)n, 2);
            for (int q = 0; q < nranks; q++) {
                for (int64_t i = 0; i < n; i++)
                    bits[q * nb + i / 64] |= (rng_next(&r) & 1) << (i % 64);
                sp_spread(bits + q * nb, n, p, f + q * nf);
                for (int64_t i = 0; i < n; i++)
                    T_ASSERT((int)sp_field(f + q * nf, p, i) == bit_at(bits + q * nb, i),
                             "spread p=%d n=%lld element %lld", p, (long long)n, (long long)i);
                for (int64_t i = n; i < nf * (64 / p); i++)
                    T_ASSERT(sp_field(f + q * nf, p, i) == 0, "spread: field %lld past n set",
                             (long long)i);
            }
            sp_sum(f, nf, nranks, nf, sum);
            for (int64_t i = 0; i < n; i++) {
                unsigned ones = 0;
                for (int q = 0; q < nranks; q++) ones += (unsigned)bit_at(bits + q * nb, i);
                T_ASSERT(sp_field(sum, p, i) == ones, "%d ranks p=%d element %lld: sum %u, want %u",
                         nranks, p, (long long)i, sp_field(sum, p, i), ones);
            }
            /* disagreement of rank 0 with the vote and with the sum's sign */
            uint64_t *vote = calloc((size_t)nb, sizeof *vote);
            sp_vote(bits, nb, nranks, nb, vote, 7, 0);
            int64_t dv = 0, ds = 0;
            for (int64_t i = 0; i < n; i++) {
                int mine = bit_at(bits, i), c = 2 * (int)sp_field(sum, p, i) - nranks;
                dv += mine != bit_at(vote, i);
                ds += c == 0 || (c > 0) != mine;
            }
            T_ASSERT(sp_disagree_bits(bits, vote, n) == dv, "disagree_bits n=%lld", (long long)n);
            T_ASSERT(sp_disagree_fields(f, sum, p, nranks, n) == ds,
                     "disagree_fields %d ranks n=%lld: %lld, want %lld", nranks, (long long)n,
                     (long long)sp_disagree_fields(f, sum, p, nranks, n), (long long)ds);
            free(vote);
            free(bits);
            free(f);
            free(sum);
        }
    }
}

static void test_ties(void)
{
    /* unbiased: about half the bits of many tie words are 1 */
    int64_t ones = 0, words = 4096;
    for (int64_t w = 0; w < words; w++) ones += __builtin_popcountll(sp_tie_word(42, w));
    double frac = (double)ones / (double)(words * 64);
    T_ASSERT(frac > 0.49 && frac < 0.51, "tie bits: %.4f of them 1", frac);
    /* the same (seed, word) gives the same word; another seed another */
    T_ASSERT(sp_tie_word(42, 7) == sp_tie_word(42, 7), "tie word not a function of its inputs");
    T_ASSERT(sp_tie_word(42, 7) != sp_tie_word(43, 7) && sp_tie_word(42, 7) != sp_tie_word(42, 8),
             "tie words of different seeds or words are equal");
    T_ASSERT(sp_vote_seed(42) != 42, "the vote's ties use the zero signs' seed");
}

int main(void)
{
    T_RUN(test_bits);
    T_RUN(test_pack);
    T_RUN(test_vote);
    T_RUN(test_fields);
    T_RUN(test_ties);
    T_DONE();
}
