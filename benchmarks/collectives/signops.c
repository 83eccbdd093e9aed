#include "benchmarks/collectives/signops.h"

#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/rng.h"
#include "benchmarks/common/signpack.h"

double sign_in_value(const coll_ctx_t *c, size_t i)
{
    uint64_t h = rng_mix(rng_mix(c->pat->seed ^ 0x7f4a7c159e3779b9ULL) ^
                         ((uint64_t)c->rank + 1) * 0xd6e8feb86659fd93ULL ^ (uint64_t)i);
    return (double)((int)(h % 5) - 2);
}

static int tie_bit(uint64_t seed, size_t i) { return (int)((sp_tie_word(seed, (int64_t)(i / 64)) >> (i % 64)) & 1); }

int sign_bit_of(const coll_pattern_t *pat, int rank, size_t i, double v)
{
    (void)rank;
    return v > 0 ? 1 : v < 0 ? 0 : tie_bit(pat->seed, i);
}

/* sign of a 16-bit float: +1, -1, 0 (zero, or NaN) */
static int sign16(uint16_t h, int bf16)
{
    uint16_t mag = h & 0x7fffu, inf = bf16 ? 0x7f80u : 0x7c00u;
    if (mag == 0 || mag > inf) return 0;
    return h & 0x8000u ? -1 : 1;
}

void sign_pack(coll_dtype_t t, const void *x, size_t n, uint64_t *bits, uint64_t seed)
{
    if (t == DT_F32) {
        sp_pack_f32(x, (int64_t)n, bits, seed);
        return;
    }
    size_t nw = (size_t)sp_words((int64_t)n, 1);
    for (size_t w = 0; w < nw; w++) {
        size_t base = w * 64, m = n - base < 64 ? n - base : 64;
        uint64_t pos = 0, zero = 0;
        for (size_t b = 0; b < m; b++) {
            size_t i = base + b;
            int s;
            switch (t) {
            case DT_F64: {
                double v = ((const double *)x)[i];
                s = v > 0 ? 1 : v < 0 ? -1 : 0;
                break;
            }
            case DT_I32: {
                int32_t v = ((const int32_t *)x)[i];
                s = v > 0 ? 1 : v < 0 ? -1 : 0;
                break;
            }
            case DT_F16: s = sign16(((const uint16_t *)x)[i], 0); break;
            case DT_BF16: s = sign16(((const uint16_t *)x)[i], 1); break;
            default: CHECK(0, "sign_pack: data type %d", (int)t);
            }
            pos |= (uint64_t)(s > 0) << b;
            zero |= (uint64_t)(s == 0) << b;
        }
        bits[w] = pos | (zero ? zero & sp_tie_word(seed, (int64_t)w) : 0);
    }
}

static uint64_t *g_scratch[2];
static size_t g_cap[2];
static signx_buf g_xbuf;

uint64_t *sign_scratch(size_t words, int which)
{
    if (words > g_cap[which]) {
        free(g_scratch[which]);
        g_scratch[which] = XMALLOC(words * sizeof(uint64_t), "sign collective scratch");
        g_cap[which] = words;
    }
    return g_scratch[which];
}

signx_buf *sign_xbuf(void) { return &g_xbuf; }

void sign_store(coll_dtype_t t, void *out, size_t n, const uint64_t *fields, int p,
                const double *table)
{
    size_t es = coll_dtype_size(t);
    unsigned char enc[1 << 10][8];
    CHECK(p >= 1 && p <= 10, "sign_store: %d bits", p);
    /* every value a field can have, encoded once in the type */
    for (int v = 0; v < (1 << p); v++) {
        unsigned char tmp[8];
        coll_set(t, tmp, 0, table[v]);
        memcpy(enc[v], tmp, es);
    }
    size_t per = (size_t)sp_fields_per_word(p);
    uint64_t mask = (1ULL << p) - 1;
    if (t == DT_F32) {
        float f[1 << 10];
        for (int v = 0; v < (1 << p); v++) memcpy(&f[v], enc[v], sizeof(float));
        for (size_t i = 0; i < n; i++)
            ((float *)out)[i] = f[(fields[i / per] >> ((i % per) * (size_t)p)) & mask];
        return;
    }
    for (size_t i = 0; i < n; i++)
        memcpy((char *)out + i * es, enc[(fields[i / per] >> ((i % per) * (size_t)p)) & mask], es);
}

/* ranks that send +1 at element j */
static int ones_at(const coll_ctx_t *c, size_t j)
{
    int k = 0;
    for (int r = 0; r < c->nranks; r++) {
        coll_ctx_t o = *c;
        o.rank = r;
        k += sign_bit_of(c->pat, r, j, sign_in_value(&o, j));
    }
    return k;
}

double sign_expected_vote(const coll_ctx_t *c, size_t j)
{
    int k = ones_at(c, j), n = c->nranks;
    if (2 * k != n) return 2 * k > n ? 1.0 : -1.0;
    return tie_bit(sp_vote_seed(c->pat->seed), j) ? 1.0 : -1.0;
}

double sign_expected_sum(const coll_ctx_t *c, size_t j) { return 2.0 * ones_at(c, j) - c->nranks; }

int64_t sign_wire_bytes(size_t count, int p, int nranks)
{
    int64_t words = sp_words((int64_t)count, p), chunk = (words + nranks - 1) / nranks;
    return 2 * (int64_t)(nranks - 1) * chunk * 8;
}
