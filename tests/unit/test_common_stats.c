/* stats: confidence-interval ranks (Hoefler & Belli, SC15) worked by hand,
 * summaries of known samples, medians, harmonic means. */
#include <math.h>
#include <string.h>

#include "benchmarks/common/stats.h"
#include "tests/unit/tap.h"

/* lo = floor((n - 1.96 sqrt n) / 2), hi = ceil(1 + (n + 1.96 sqrt n) / 2),
 * clamped to [1, n], worked by hand:
 *   n = 6:   1.96 sqrt 6   = 4.801   lo = floor(0.600) = 0 -> 1   hi = ceil(6.400) = 7 -> 6
 *   n = 10:  1.96 sqrt 10  = 6.198   lo = floor(1.901) = 1        hi = ceil(9.099) = 10
 *   n = 20:  1.96 sqrt 20  = 8.765   lo = floor(5.617) = 5        hi = ceil(15.383) = 16
 *   n = 100: 1.96 sqrt 100 = 19.6    lo = floor(40.2)  = 40       hi = ceil(60.8) = 61
 *   n = 1000: 1.96 sqrt 1000 = 61.98 lo = floor(469.01) = 469     hi = ceil(531.99) = 532 */
static void test_ci_ranks(void)
{
    const struct {
        size_t n, lo, hi;
    } want[] = {{6, 1, 6}, {10, 1, 10}, {20, 5, 16}, {100, 40, 61}, {1000, 469, 532}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        size_t lo = 0, hi = 0;
        int exact = stats_ci_ranks(want[i].n, &lo, &hi);
        T_ASSERT(exact == 1, "n = %zu: rank formula not applied", want[i].n);
        T_ASSERT(lo == want[i].lo && hi == want[i].hi, "n = %zu: ranks [%zu, %zu], want [%zu, %zu]",
                 want[i].n, lo, hi, want[i].lo, want[i].hi);
    }
    for (size_t n = 0; n <= 5; n++) {
        size_t lo = 99, hi = 99;
        T_ASSERT(stats_ci_ranks(n, &lo, &hi) == 0, "n = %zu: formula claimed for n <= 5", n);
        T_ASSERT(lo == 1 && hi == n, "n = %zu: [%zu, %zu], want [1, n]", n, lo, hi);
    }
    /* always inside [1, n] and around the median */
    for (size_t n = 6; n <= 2000; n++) {
        size_t lo, hi;
        stats_ci_ranks(n, &lo, &hi);
        T_ASSERT(lo >= 1 && hi <= n && lo <= (n + 1) / 2 && hi >= n / 2 + 1,
                 "n = %zu: [%zu, %zu]", n, lo, hi);
    }
}

static void test_summary(void)
{
    /* n = 6, even: median is the mean of the middle two; CI = [min, max] */
    const double a[] = {5, 1, 4, 2, 3, 6.5};
    double a_copy[6];
    memcpy(a_copy, a, sizeof a);
    stats_summary_t s;
    stats_summarize(a_copy, 6, &s);
    T_ASSERT(memcmp(a, a_copy, sizeof a) == 0, "input was modified");
    T_ASSERT(s.n == 6 && s.median == 3.5, "median %g, want 3.5", s.median);
    T_ASSERT(s.min == 1 && s.max == 6.5, "min %g max %g", s.min, s.max);
    T_ASSERT(s.ci_exact == 1 && s.ci_lo == 1 && s.ci_hi == 6.5, "CI [%g, %g] (exact %d)", s.ci_lo,
             s.ci_hi, s.ci_exact);
    T_ASSERT(s.mean == 21.5 / 6, "mean %g", s.mean);

    /* n = 20: 1..20 reversed; median 10.5, CI ranks 5 and 16 -> values 5 and 16 */
    double b[20];
    for (int i = 0; i < 20; i++) b[i] = 20 - i;
    stats_summarize(b, 20, &s);
    T_ASSERT(s.median == 10.5, "median %g", s.median);
    T_ASSERT(s.ci_lo == 5 && s.ci_hi == 16, "CI [%g, %g], want [5, 16]", s.ci_lo, s.ci_hi);
    T_ASSERT(s.min == 1 && s.max == 20 && s.mean == 10.5, "min/max/mean");

    /* n = 100: (37 i mod 100) + 0.5 is a shuffle of 0.5 .. 99.5 (37 is prime
     * to 100); sorted here by insertion sort, independently of stats_sort */
    double c[100], sorted[100];
    for (int i = 0; i < 100; i++) c[i] = (double)((i * 37) % 100) + 0.5;
    memcpy(sorted, c, sizeof c);
    for (int i = 1; i < 100; i++)
        for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            double t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    stats_summarize(c, 100, &s);
    T_ASSERT(sorted[0] == 0.5 && sorted[99] == 99.5, "test data");
    T_ASSERT(s.median == 50, "median %g, want 50 (mean of 49.5 and 50.5)", s.median);
    T_ASSERT(s.ci_lo == sorted[39] && s.ci_hi == sorted[60], "CI [%g, %g], want ranks 40, 61 = [%g, %g]",
             s.ci_lo, s.ci_hi, sorted[39], sorted[60]);

    /* n <= 5: CI is [min, max], not exact */
    const double d[] = {3, 1, 2};
    stats_summarize(d, 3, &s);
    T_ASSERT(s.median == 2 && s.ci_exact == 0 && s.ci_lo == 1 && s.ci_hi == 3, "n = 3");
    stats_summarize(d, 1, &s);
    T_ASSERT(s.median == 3 && s.min == 3 && s.max == 3 && s.ci_lo == 3 && s.ci_hi == 3, "n = 1");

    /* n = 0: everything NaN */
    stats_summarize(d, 0, &s);
    T_ASSERT(s.n == 0 && isnan(s.median) && isnan(s.ci_lo) && isnan(s.ci_hi) && isnan(s.min) &&
                 isnan(s.max) && isnan(s.mean),
             "n = 0 must give NaN");
}

static void test_median(void)
{
    const double odd[] = {9, 2, 7, 4, 5};
    T_ASSERT(stats_median(odd, 5) == 5, "odd median %g", stats_median(odd, 5));
    const double even[] = {9, 2, 7, 4};
    T_ASSERT(stats_median(even, 4) == 5.5, "even median %g", stats_median(even, 4));
    const double neg[] = {-1, -3, 2, -2};
    T_ASSERT(stats_median(neg, 4) == -1.5, "median with negatives %g", stats_median(neg, 4));
    T_ASSERT(isnan(stats_median(odd, 0)), "median of nothing");
    double s[] = {3, -1, 2, 2, 0};
    stats_sort(s, 5);
    T_ASSERT(s[0] == -1 && s[1] == 0 && s[2] == 2 && s[3] == 2 && s[4] == 3, "sort");
}

static void test_hmean(void)
{
    const double r[] = {1, 2, 4};
    double h = stats_hmean(r, 3);
    T_ASSERT(fabs(h - 12.0 / 7) < 1e-15, "hmean %g, want 12/7", h);
    /* two equal-work runs at 10 and 30 units/s take 1/10 + 1/30 s: mean rate 15 */
    const double q[] = {10, 30};
    T_ASSERT(fabs(stats_hmean(q, 2) - 15) < 1e-12, "hmean %g, want 15", stats_hmean(q, 2));
    const double z[] = {1, 0, 2};
    T_ASSERT(isnan(stats_hmean(z, 3)), "hmean with a zero rate must be NaN");
    const double ng[] = {1, -2};
    T_ASSERT(isnan(stats_hmean(ng, 2)), "hmean with a negative rate must be NaN");
    const double nn[] = {1, NAN};
    T_ASSERT(isnan(stats_hmean(nn, 2)), "hmean with NaN must be NaN");
    T_ASSERT(isnan(stats_hmean(r, 0)), "hmean of nothing must be NaN");
}

int main(void)
{
    T_RUN(test_ci_ranks);
    T_RUN(test_summary);
    T_RUN(test_median);
    T_RUN(test_hmean);
    T_DONE();
}
