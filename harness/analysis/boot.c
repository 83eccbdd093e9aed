/* boot (boot.h). */
#include "harness/analysis/boot.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/stats.h"

size_t boot_count(const vside_t *s)
{
    return s->ngroup ? s->gend[s->ngroup - 1] : 0;
}

double boot_median(const vside_t *s)
{
    size_t n = boot_count(s);
    return n ? stats_median(s->x, n) : NAN;
}

/* splitmix64 (Steele, Lea & Flood 2014): small, fast, and the same sequence
 * on every machine */
static uint64_t next_u64(uint64_t *st)
{
    uint64_t z = (*st += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* uniform in [0, n): the high half of a 64x64 product (no modulo bias worth
 * the name at these n) */
static size_t draw(uint64_t *st, size_t n)
{
    return (size_t)(((unsigned __int128)next_u64(st) * n) >> 64);
}

static int cmp_dbl(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

/* the k-th smallest (0-based) of x[0..n), x reordered around it (Wirth's
 * selection, Algorithms + Data Structures = Programs, 1976): linear on average */
static double select_k(double *x, size_t n, size_t k)
{
    long l = 0, r = (long)n - 1, kk = (long)k;
    while (l < r) {
        double p = x[kk];
        long i = l, j = r;
        do {
            while (x[i] < p) i++;
            while (p < x[j]) j--;
            if (i <= j) {
                double t = x[i];
                x[i] = x[j], x[j] = t;
                i++, j--;
            }
        } while (i <= j);
        if (j < kk) l = i;
        if (kk < i) r = j;
    }
    return x[kk];
}

static double median_inplace(double *x, size_t n)
{
    double m = select_k(x, n, n / 2);
    if (n % 2) return m;
    double below = x[0]; /* the largest of the lower half */
    for (size_t i = 1; i < n / 2; i++)
        if (x[i] > below) below = x[i];
    return (below + m) / 2;
}

/* one observation of a side: a group drawn, then an item of it */
static double draw_one(const vside_t *s, uint64_t *st)
{
    size_t g = draw(st, s->ngroup), b = g ? s->gend[g - 1] : 0;
    return s->x[b + draw(st, s->gend[g] - b)];
}

/* the groups of a run */
static void run_span(const vside_t *s, size_t r, size_t *g0, size_t *g1)
{
    if (s->nrun < 2) *g0 = 0, *g1 = s->ngroup;
    else *g0 = r ? s->rend[r - 1] : 0, *g1 = s->rend[r];
}

/* the median of one resample of a side into buf: runs (where there are two or
 * more), then as many groups of each drawn run as it holds, then as many
 * observations of each drawn group as it holds */
static double resample(const vside_t *s, uint64_t *st, double *buf)
{
    size_t k = 0, nr = s->nrun < 2 ? 1 : s->nrun;
    for (size_t r = 0; r < nr; r++) {
        size_t g0, g1;
        run_span(s, nr > 1 ? draw(st, nr) : 0, &g0, &g1);
        for (size_t i = g0; i < g1; i++) {
            size_t g = g0 + draw(st, g1 - g0), b = g ? s->gend[g - 1] : 0, n = s->gend[g] - b;
            for (size_t j = 0; j < n; j++) buf[k++] = s->x[b + draw(st, n)];
        }
    }
    return median_inplace(buf, k);
}

/* each run's median over the side's median: the run-to-run factors a side of
 * one run borrows (NULL when the side has fewer than two runs) */
static double *run_factors(const vside_t *s, double med)
{
    if (s->nrun < 2) return NULL;
    double *f = malloc(s->nrun * sizeof *f);
    if (!f) return NULL;
    for (size_t r = 0; r < s->nrun; r++) {
        size_t g0, g1;
        run_span(s, r, &g0, &g1);
        size_t b = g0 ? s->gend[g0 - 1] : 0;
        f[r] = stats_median(s->x + b, s->gend[g1 - 1] - b) / med;
    }
    return f;
}

/* the largest group */
static size_t max_group(const vside_t *s)
{
    size_t m = 0;
    for (size_t g = 0; g < s->ngroup; g++) {
        size_t n = s->gend[g] - (g ? s->gend[g - 1] : 0);
        if (n > m) m = n;
    }
    return m;
}

/* the most groups one resample can hold: every run drawn may be the one with
 * the most groups */
static size_t max_drawn(const vside_t *s)
{
    if (s->nrun < 2) return s->ngroup;
    size_t m = 0;
    for (size_t r = 0; r < s->nrun; r++) {
        size_t g0, g1;
        run_span(s, r, &g0, &g1);
        if (g1 - g0 > m) m = g1 - g0;
    }
    return m > SIZE_MAX / s->nrun ? 0 : m * s->nrun;
}

static int sound(const vside_t *s)
{
    for (size_t g = 0; g < s->ngroup; g++)
        if (s->gend[g] <= (g ? s->gend[g - 1] : 0)) return 0; /* an empty group */
    for (size_t r = 0; s->nrun > 1 && r < s->nrun; r++)
        if (s->rend[r] <= (r ? s->rend[r - 1] : 0) || s->rend[r] > s->ngroup) return 0;
    return s->ngroup > 0 && (s->nrun < 2 || s->rend[s->nrun - 1] == s->ngroup);
}

void boot_ratio(const vside_t *base, const vside_t *nw, double *r, double *lo, double *hi)
{
    *r = *lo = *hi = NAN;
    if (!sound(base) || !sound(nw)) return;
    double mb = boot_median(base), mn = boot_median(nw);
    if (!(mb > 0) || !(mn > 0) || !isfinite(mb) || !isfinite(mn)) {
        if (isfinite(mb) && isfinite(mn) && mb == mn) *r = 1; /* 0 against 0 */
        return;
    }
    *r = mn / mb;
    size_t cb = boot_count(base), cn = boot_count(nw);
    if (cb == 1 && cn == 1) return; /* no spread on either side */
    size_t gb = max_group(base), gn = max_group(nw), db = max_drawn(base), dn = max_drawn(nw);
    if (!db || !dn || gb > SIZE_MAX / sizeof(double) / db || gn > SIZE_MAX / sizeof(double) / dn)
        return;
    double *bb = malloc(gb * db * sizeof *bb), *bn = malloc(gn * dn * sizeof *bn);
    double *q = malloc(BOOT_RESAMPLES * sizeof *q);
    /* a side of one run borrows the other's run-to-run factors */
    double *fb = nw->nrun < 2 ? run_factors(base, mb) : NULL;
    double *fn = base->nrun < 2 ? run_factors(nw, mn) : NULL;
    int ok = (fb || base->nrun < 2 || nw->nrun >= 2) && (fn || nw->nrun < 2 || base->nrun >= 2);
    if (bb && bn && q && ok) {
        uint64_t st = 0x457861444c2d3237ULL; /* fixed: the same input, the same CI */
        for (size_t i = 0; i < BOOT_RESAMPLES; i++) {
            double xb, xn;
            if (cb == 1) xb = mb * draw_one(nw, &st) / mn; /* borrows the new side's spread */
            else xb = resample(base, &st, bb);
            if (cn == 1) xn = mn * draw_one(base, &st) / mb;
            else xn = resample(nw, &st, bn);
            if (fn && cb != 1) xb *= fn[draw(&st, nw->nrun)]; /* (one value: borrowed above) */
            if (fb && cn != 1) xn *= fb[draw(&st, base->nrun)];
            q[i] = xb > 0 ? xn / xb : INFINITY;
        }
        qsort(q, BOOT_RESAMPLES, sizeof *q, cmp_dbl);
        *lo = q[BOOT_RESAMPLES / 40];                     /* the 2.5% point */
        *hi = q[BOOT_RESAMPLES - BOOT_RESAMPLES / 40 - 1]; /* the 97.5% point */
    }
    free(bb);
    free(bn);
    free(q);
    free(fb);
    free(fn);
}
