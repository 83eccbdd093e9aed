/* pattern: input data whose reductions are exact in every type (coll.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/collectives/coll.h"
#include "benchmarks/common/check.h"
#include "benchmarks/common/rng.h"

static int64_t hash_range(uint64_t key, int64_t m)
{
    if (m <= 0) return 0;
    return (int64_t)(rng_mix(key) % (uint64_t)(2 * m + 1)) - m;
}

static int64_t k_of(const coll_pattern_t *p, size_t i)
{
    return hash_range(p->seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1)), p->a);
}

static int64_t g_of(const coll_pattern_t *p, int r)
{
    return hash_range(rng_mix(p->seed + 0x5bd1e995ULL) ^ (0xc2b2ae3d27d4eb4fULL * (uint64_t)(r + 1)),
                      p->b);
}

void coll_pattern_init(coll_pattern_t *p, coll_dtype_t t, coll_redop_t op, int nranks,
                       int reducing, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    p->dtype = t;
    p->redop = op;
    p->nranks = nranks;
    p->seed = seed;
    p->scale = t == DT_I32 ? 1.0 : 0.25;
    double lim = coll_dtype_exact_limit(t);
    /* ranks that add into one element: all of them, unless that leaves fewer
     * than 2 units of range each; then only every stride-th rank is non-zero */
    int64_t half = (int64_t)(lim / 2);
    p->stride = 1;
    if (reducing && nranks > half) p->stride = (int)((nranks + half - 1) / half);
    int64_t contributors = reducing ? (nranks + p->stride - 1) / p->stride : 1;
    int64_t budget = (int64_t)floor(lim / (double)contributors); /* |k + g| <= budget */
    p->b = budget / 4 < 1024 ? budget / 4 : 1024;
    p->a = budget - p->b < (1 << 20) ? budget - p->b : (1 << 20);
    int s = p->stride;
    p->cls_n = XCALLOC((size_t)s, sizeof *p->cls_n, "pattern classes");
    p->cls_sum = XCALLOC((size_t)s, sizeof *p->cls_sum, "pattern classes");
    p->cls_min = XCALLOC((size_t)s, sizeof *p->cls_min, "pattern classes");
    p->cls_max = XCALLOC((size_t)s, sizeof *p->cls_max, "pattern classes");
    for (int r = 0; r < nranks; r++) {
        int c = r % s;
        int64_t g = g_of(p, r);
        if (p->cls_n[c] == 0 || g < p->cls_min[c]) p->cls_min[c] = g;
        if (p->cls_n[c] == 0 || g > p->cls_max[c]) p->cls_max[c] = g;
        p->cls_sum[c] += g;
        p->cls_n[c]++;
    }
}

void coll_pattern_free(coll_pattern_t *p)
{
    free(p->cls_n);
    free(p->cls_sum);
    free(p->cls_min);
    free(p->cls_max);
    memset(p, 0, sizeof *p);
}

double coll_pattern_value(const coll_pattern_t *p, int rank, size_t i)
{
    if (p->stride > 1 && ((size_t)rank + i) % (size_t)p->stride != 0) return 0.0;
    return p->scale * (double)(k_of(p, i) + g_of(p, rank));
}

double coll_pattern_reduced(const coll_pattern_t *p, size_t i)
{
    size_t s = (size_t)p->stride;
    int c = (int)((s - i % s) % s); /* ranks r with (r + i) % s == 0 */
    int64_t n = p->cls_n[c], k = k_of(p, i);
    int zeros = n < p->nranks; /* other ranks hold 0 at this element */
    int64_t v;
    switch (p->redop) {
    case RED_SUM: v = n * k + p->cls_sum[c]; break;
    case RED_MIN:
        v = n ? k + p->cls_min[c] : 0;
        if (zeros && v > 0) v = 0;
        break;
    case RED_MAX:
        v = n ? k + p->cls_max[c] : 0;
        if (zeros && v < 0) v = 0;
        break;
    default: CHECK(0, "unknown reduction %d", (int)p->redop);
    }
    return p->scale * (double)v;
}
