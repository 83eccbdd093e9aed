#include "benchmarks/common/signpack.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "benchmarks/common/check.h"
#include "benchmarks/common/rng.h"

int sp_bits(int nranks)
{
    CHECK(nranks >= 1 && nranks < (1 << 20), "sp_bits: %d ranks", nranks);
    int p = 1;
    while ((1 << p) < nranks + 1) p++;
    return p;
}

uint64_t sp_tie_word(uint64_t seed, int64_t w)
{
    return rng_mix(rng_mix(seed) ^ ((uint64_t)w * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL));
}

void sp_sign_word(const float *x, int m, uint64_t *pos, uint64_t *zero)
{
    uint64_t p = 0, z = 0;
    int b = 0;
#if defined(__SSE2__)
    const __m128 z4 = _mm_setzero_ps();
    for (; b + 4 <= m; b += 4) {
        __m128 v = _mm_loadu_ps(x + b);
        uint64_t gt = (uint64_t)_mm_movemask_ps(_mm_cmpgt_ps(v, z4));
        uint64_t lt = (uint64_t)_mm_movemask_ps(_mm_cmplt_ps(v, z4));
        p |= gt << b;
        z |= (~(gt | lt) & 15u) << b;
    }
#endif
    for (; b < m; b++) {
        p |= (uint64_t)(x[b] > 0) << b;
        z |= (uint64_t)!(x[b] > 0 || x[b] < 0) << b;
    }
    *pos = p;
    *zero = z;
}

void sp_pack_f32(const float *x, int64_t n, uint64_t *bits, uint64_t seed)
{
    int64_t nw = sp_words(n, 1);
    for (int64_t w = 0; w < nw; w++) {
        int64_t base = w * 64, m = n - base < 64 ? n - base : 64;
        uint64_t pos, zero;
        sp_sign_word(x + base, (int)m, &pos, &zero);
        bits[w] = pos | (zero ? zero & sp_tie_word(seed, w) : 0);
    }
}

void sp_vote(const uint64_t *in, int64_t stride, int nranks, int64_t nwords, uint64_t *out,
             uint64_t seed, int64_t w0)
{
    int p = sp_bits(nranks);
    unsigned half = (unsigned)nranks / 2; /* more than half votes +1: 1 */
    int even = nranks % 2 == 0;
    uint64_t vseed = sp_vote_seed(seed);
    for (int64_t w = 0; w < nwords; w++) {
        /* c[k]: bit k of every bit position's count of ones */
        uint64_t c[32] = {0};
        for (int r = 0; r < nranks; r++) {
            uint64_t carry = in[(int64_t)r * stride + w];
            for (int k = 0; k < p && carry; k++) {
                uint64_t t = c[k] & carry;
                c[k] ^= carry;
                carry = t;
            }
        }
        /* count > half, count == half: compared from the top bit down */
        uint64_t gt = 0, eq = ~0ULL;
        for (int k = p - 1; k >= 0; k--) {
            uint64_t hk = (half >> k) & 1 ? ~0ULL : 0;
            gt |= eq & c[k] & ~hk;
            eq &= ~(c[k] ^ hk);
        }
        uint64_t v = gt;
        if (even && eq) v |= eq & sp_tie_word(vseed, w0 + w);
        out[w] = v;
    }
}

void sp_sum(const uint64_t *in, int64_t stride, int nranks, int64_t nwords, uint64_t *out)
{
    for (int64_t w = 0; w < nwords; w++) {
        uint64_t s = 0;
        for (int r = 0; r < nranks; r++) s += in[(int64_t)r * stride + w];
        out[w] = s;
    }
}

void sp_spread(const uint64_t *bits, int64_t n, int p, uint64_t *fields)
{
    if (p == 1) {
        memcpy(fields, bits, (size_t)sp_words(n, 1) * sizeof *fields);
        return;
    }
    int64_t per = sp_fields_per_word(p), nw = sp_words(n, p);
    if (p == 2) { /* 32 bits to every other bit of a word (the bits past n are 0) */
        for (int64_t w = 0; w < nw; w++) {
            uint64_t x = (bits[w >> 1] >> ((w & 1) * 32)) & 0xffffffffULL;
            x = (x | (x << 16)) & 0x0000ffff0000ffffULL;
            x = (x | (x << 8)) & 0x00ff00ff00ff00ffULL;
            x = (x | (x << 4)) & 0x0f0f0f0f0f0f0f0fULL;
            x = (x | (x << 2)) & 0x3333333333333333ULL;
            x = (x | (x << 1)) & 0x5555555555555555ULL;
            fields[w] = x;
        }
        return;
    }
    for (int64_t w = 0; w < nw; w++) {
        int64_t base = w * per, m = n - base < per ? n - base : per;
        uint64_t f = 0;
        for (int64_t j = 0; j < m; j++) {
            int64_t i = base + j;
            f |= ((bits[i >> 6] >> (i & 63)) & 1) << (j * p);
        }
        fields[w] = f;
    }
}

int64_t sp_disagree_bits(const uint64_t *a, const uint64_t *b, int64_t n)
{
    int64_t d = 0, full = n / 64;
    for (int64_t w = 0; w < full; w++) d += __builtin_popcountll(a[w] ^ b[w]);
    if (n % 64) d += __builtin_popcountll((a[full] ^ b[full]) & ((1ULL << (n % 64)) - 1));
    return d;
}

/* Per field of a word of p-bit counts (planes: bit k of every field, at the
 * field's lowest bit): the fields whose count exceeds t. */
static uint64_t fields_gt(const uint64_t *plane, int p, unsigned t)
{
    uint64_t gt = 0, eq = ~0ULL;
    for (int k = p - 1; k >= 0; k--) {
        uint64_t tk = (t >> k) & 1 ? ~0ULL : 0;
        gt |= eq & plane[k] & ~tk;
        eq &= ~(plane[k] ^ tk);
    }
    return gt;
}

int64_t sp_disagree_fields(const uint64_t *mine, const uint64_t *sum, int p, int nranks,
                           int64_t n)
{
    int64_t per = sp_fields_per_word(p), nw = sp_words(n, p), d = 0;
    uint64_t low = 0; /* the lowest bit of every field of a word */
    for (int64_t j = 0; j < per; j++) low |= 1ULL << (j * p);
    unsigned up = (unsigned)nranks / 2, down = (unsigned)(nranks + 1) / 2 - 1;
    for (int64_t w = 0; w < nw; w++) {
        uint64_t plane[32];
        for (int k = 0; k < p; k++) plane[k] = (sum[w] >> k) & low;
        /* 2 count > n: the mean moves up; 2 count < n: down (count <= ceil(n/2) - 1) */
        uint64_t plus = fields_gt(plane, p, up), minus = ~fields_gt(plane, p, down) & low;
        uint64_t me = mine[w] & low;
        uint64_t agree = (me & plus) | (~me & minus & low);
        int64_t m = n - w * per < per ? n - w * per : per;
        uint64_t valid = m == per ? low : low & ((1ULL << (m * p)) - 1);
        d += __builtin_popcountll(valid & ~agree);
    }
    return d;
}
