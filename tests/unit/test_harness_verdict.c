/* verdict: the ratio of medians with its two-stage bootstrap CI.  Identical
 * samples are never a regression nor an improvement; the 7.9x-slower
 * run against 9 noisy baseline launches is a REGRESSION (main said
 * "inconclusive: ~2 launches per side"); a 1.3x slowdown is one; a noisy
 * small change is inconclusive with advice that asks for more launches than
 * there are; interference gates only the verdicts it could have caused; the
 * numbers are the same on every call; procurement's overall CI. */
#include <math.h>
#include <string.h>

#include "harness/analysis/ratio.h"
#include "harness/analysis/verdict.h"
#include "tests/unit/tap.h"

/* a side of g launches of k steps around `med`, each launch shifted by up to
 * +-launch_spread and each step by up to +-step_spread (relative), from a
 * fixed sequence */
typedef struct {
    double x[4096];
    size_t gend[256];
    vside_t s;
} side_t;

static unsigned long long lcg = 1;
static double unit_noise(void) /* in [-1, 1) */
{
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg >> 11) / 4503599627370496.0 - 1;
}

static void make(side_t *d, size_t g, size_t k, double med, double launch_spread, double step_spread)
{
    size_t n = 0;
    for (size_t i = 0; i < g; i++) {
        double lm = med * (1 + launch_spread * unit_noise());
        for (size_t j = 0; j < k; j++) d->x[n++] = lm * (1 + step_spread * unit_noise());
        d->gend[i] = n;
    }
    d->s = (vside_t){.x = d->x, .gend = d->gend, .ngroup = g};
}

static void scaled(side_t *d, const side_t *src, double f)
{
    *d = *src;
    for (size_t i = 0; i < boot_count(&src->s); i++) d->x[i] = src->x[i] * f;
    d->s = (vside_t){.x = d->x, .gend = d->gend, .ngroup = src->s.ngroup};
}

static side_t b, n, c;

static void test_identical(void)
{
    vjudge_t j;
    lcg = 7;
    make(&b, 3, 6, 0.036, 0.5, 0.3); /* noisy: launches differ by up to 50% */
    verdict_judge(&b.s, &b.s, -1, 5, 0, 0, &j);
    T_ASSERT(j.r == 1 && j.lo < 1 && j.hi > 1 && j.v != RV_REGRESSION && j.v != RV_IMPROVEMENT,
             "the same samples: r 1 [%.3g, %.3g], %s", j.lo, j.hi, rverdict_name(j.v));
    T_ASSERT(j.v == RV_INCONCLUSIVE && j.why == RW_WIDE && j.need_base > 3 && j.need_new > 3,
             "noisy and identical: inconclusive, asking for more than the 3/3 launches there are "
             "(%zu/%zu)", j.need_base, j.need_new);
    verdict_judge(&b.s, &b.s, 1, 0, 0, 0, &j);
    T_ASSERT(j.v != RV_REGRESSION && j.v != RV_IMPROVEMENT, "threshold 0: still neither (%s)",
             rverdict_name(j.v));
    make(&c, 4, 20, 1.0, 0.005, 0.01); /* quiet */
    verdict_judge(&c.s, &c.s, -1, 5, 0, 0, &j);
    T_ASSERT(j.v == RV_NOCHANGE, "quiet and identical: no change ([%.4g, %.4g])", j.lo, j.hi);
}

static void test_slower(void)
{
    vjudge_t j;
    lcg = 11;
    /* the issue: 9 baseline launches around 0.0362 s (0.0176 to 0.0747), the new
     * run's 3 around 0.2855 s (0.24 to 0.35) */
    make(&b, 9, 6, 0.0362, 0.45, 0.35);
    make(&n, 3, 6, 0.2855, 0.15, 0.1);
    verdict_judge(&b.s, &n.s, -1, 5, 0, 0, &j);
    T_ASSERT(j.v == RV_REGRESSION && j.lo > 4 && j.r > 6, "7.9x slower: REGRESSION (%.3gx [%.3g, %.3g])",
             j.r, j.lo, j.hi);
    size_t runs3[] = {3, 6, 9}; /* the 9 launches are 3 runs of 3 */
    vside_t pool = b.s;
    pool.rend = runs3, pool.nrun = 3;
    verdict_judge(&pool, &n.s, -1, 5, 0, 0, &j);
    T_ASSERT(j.v == RV_REGRESSION, "7.9x slower, the runs a stage of their own: REGRESSION "
             "(%.3gx [%.3g, %.3g])", j.r, j.lo, j.hi);
    verdict_judge(&b.s, &n.s, -1, 5, 0, 1, &j);
    T_ASSERT(j.v == RV_INCONCLUSIVE && j.why == RW_BUSY_NEW,
             "the slower new run measured on a busy machine: inconclusive (%s)", rverdict_name(j.v));
    verdict_judge(&b.s, &n.s, -1, 5, 1, 0, &j);
    T_ASSERT(j.v == RV_REGRESSION, "a busy baseline and a slower new run: still a regression");
    verdict_judge(&n.s, &b.s, -1, 5, 0, 1, &j);
    T_ASSERT(j.v == RV_IMPROVEMENT, "a busy new run that is faster: still an improvement");
    verdict_judge(&n.s, &b.s, -1, 5, 1, 0, &j);
    T_ASSERT(j.v == RV_INCONCLUSIVE && j.why == RW_BUSY_BASE,
             "faster than a busy baseline: inconclusive (%s)", rverdict_name(j.v));
    /* 1.3x: every step of the baseline's 3 launches, scaled */
    lcg = 13;
    make(&b, 3, 6, 0.1, 0.08, 0.1);
    scaled(&n, &b, 1.3);
    verdict_judge(&b.s, &n.s, -1, 5, 0, 0, &j);
    T_ASSERT(j.v == RV_REGRESSION && fabs(j.r - 1.3) < 1e-9 && fabs(j.change_pct - 30) < 1e-6,
             "1.3x slower: REGRESSION (%.3gx [%.3g, %.3g])", j.r, j.lo, j.hi);
    /* the same as throughput (higher is better): the rate falls */
    side_t rb, rn;
    rb = b, rn = n;
    for (size_t i = 0; i < boot_count(&b.s); i++) rb.x[i] = 64 / b.x[i], rn.x[i] = 64 / n.x[i];
    rb.s = (vside_t){.x = rb.x, .gend = rb.gend, .ngroup = b.s.ngroup};
    rn.s = (vside_t){.x = rn.x, .gend = rn.gend, .ngroup = n.s.ngroup};
    verdict_judge(&rb.s, &rn.s, 1, 5, 0, 0, &j);
    T_ASSERT(j.v == RV_REGRESSION, "its throughput: a REGRESSION too (%.3gx)", j.r);
    verdict_judge(&b.s, &n.s, 0, 5, 0, 0, &j);
    T_ASSERT(j.v == RV_CHANGED, "a metric with no better direction: changed");
}

static void test_inconclusive(void)
{
    vjudge_t j, k;
    lcg = 17;
    make(&b, 3, 6, 1.0, 0.3, 0.2);
    make(&n, 3, 6, 1.1, 0.3, 0.2);
    verdict_judge(&b.s, &n.s, -1, 5, 0, 0, &j);
    T_ASSERT(j.v == RV_INCONCLUSIVE && j.why == RW_WIDE && j.need_base > 3 && j.need_new > 3 &&
                 j.half_pct > j.need_pct,
             "+10%% in a 30%% spread: inconclusive, ~%zu/%zu launches (now 3/3) would narrow "
             "+-%.3g%% to +-%.3g%%", j.need_base, j.need_new, j.half_pct, j.need_pct);
    verdict_judge(&b.s, &n.s, -1, 5, 0, 0, &k);
    T_ASSERT(memcmp(&j, &k, sizeof j) == 0, "the same input: the same numbers (fixed seed)");
    double one[] = {10}, other[] = {7.2};
    size_t e1[] = {1};
    vside_t s1 = {.x = one, .gend = e1, .ngroup = 1}, s2 = {.x = other, .gend = e1, .ngroup = 1};
    verdict_judge(&s1, &s2, 1, 5, 0, 0, &j);
    T_ASSERT(j.v == RV_INCONCLUSIVE && j.why == RW_ONE_EACH, "one value a side: inconclusive");
    /* three baseline runs, one new value: the new side borrows their spread */
    double runs[] = {10, 10.2, 9.9}, nv[] = {7};
    size_t e3[] = {1, 2, 3};
    vside_t sr = {.x = runs, .gend = e3, .ngroup = 3}, sn = {.x = nv, .gend = e1, .ngroup = 1};
    verdict_judge(&sr, &sn, 1, 5, 0, 0, &j);
    T_ASSERT(j.v == RV_REGRESSION, "-30%% beyond 3 runs within 3%%: REGRESSION ([%.3g, %.3g])", j.lo, j.hi);
    /* launches agree within each run, but the runs drift (10, 12, 8): the
     * new run's 8.9 is within that drift, 5 is not */
    double drift[] = {10, 10.1, 9.9, 12, 12.1, 11.9, 8, 8.1, 7.9}, at89[] = {8.9, 8.95, 8.85},
           at5[] = {5, 5.05, 4.95};
    size_t g9[] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, r3[] = {3, 6, 9};
    vside_t sd = {.x = drift, .gend = g9, .ngroup = 9, .rend = r3, .nrun = 3};
    vside_t s89 = {.x = at89, .gend = e3, .ngroup = 3}, s5 = {.x = at5, .gend = e3, .ngroup = 3};
    verdict_judge(&sd, &s89, 1, 5, 0, 0, &j);
    T_ASSERT(j.v == RV_INCONCLUSIVE, "-11%% within the runs' drift: inconclusive ([%.3g, %.3g])", j.lo, j.hi);
    sd.nrun = 0, sd.rend = NULL;
    verdict_judge(&sd, &s89, 1, 5, 0, 0, &k);
    T_ASSERT(k.hi < j.hi && k.lo > j.lo, "the runs' stage widens the CI ([%.3g, %.3g] without it)", k.lo, k.hi);
    size_t r_uneven[] = {1, 9}; /* a run of 1 launch and one of 8: a resample may draw the big one twice */
    vside_t su = {.x = drift, .gend = g9, .ngroup = 9, .rend = r_uneven, .nrun = 2};
    verdict_judge(&su, &s89, 1, 5, 0, 0, &k);
    T_ASSERT(isfinite(k.lo) && k.lo <= k.r && k.r <= k.hi, "runs of unequal size: a CI [%.3g, %.3g]", k.lo, k.hi);
    sd.nrun = 3, sd.rend = r3;
    verdict_judge(&sd, &s5, 1, 5, 0, 0, &j);
    T_ASSERT(j.v == RV_REGRESSION, "-50%% beyond the drift: REGRESSION ([%.3g, %.3g])", j.lo, j.hi);
    double zb[] = {0, 0}, zn[] = {0};
    size_t e2[] = {1, 2};
    vside_t z1 = {.x = zb, .gend = e2, .ngroup = 2}, z2 = {.x = zn, .gend = e1, .ngroup = 1};
    verdict_judge(&z1, &z2, 1, 5, 0, 0, &j);
    T_ASSERT(j.v == RV_NOCHANGE, "0 against 0: no change (%s)", rverdict_name(j.v));
}

static void test_ratio(void)
{
    double la[] = {0.100, 0.101, 0.099}, lb[] = {0.150, 0.151, 0.149};
    metric_t a = {.metric = "step_time_s", .value = 0.1, .lo = 0.099, .hi = 0.101, .better = -1,
                  .launch = la, .nlaunch = 3};
    metric_t mb = a;
    mb.value = 0.15, mb.lo = 0.149, mb.hi = 0.151, mb.launch = lb;
    ratio_t q;
    ratio_of(&a, &mb, &q);
    T_ASSERT(fabs(q.r - 1.5) < 1e-12 && q.lo < 1.5 && q.hi > 1.5 && q.lo > 1.4 && q.winner == 1,
             "1.5x in [%.3g, %.3g], winner A (shorter time)", q.lo, q.hi);
    double x[] = {2, 0.5, 1}, lo[] = {1.8, 0.45, 0.9}, hi[] = {2.2, 0.55, 1.1};
    ratio_summary_t s;
    ratio_summarize(x, lo, hi, 3, &s);
    T_ASSERT(fabs(s.gmean - 1) < 1e-12 && s.min == 0.5 && s.max == 2 && s.gsd > 1.9 && s.lo < 1 &&
                 s.hi > 1 && s.lo > 0.85,
             "geometric mean of 2, 0.5, 1 is 1 [%.3g, %.3g]: a tie", s.lo, s.hi);
    double y[] = {0.466}, ylo[] = {0.2}, yhi[] = {1.1};
    ratio_summarize(y, ylo, yhi, 1, &s);
    T_ASSERT(s.lo <= 1 && s.hi >= 1, "one row that is a tie: the overall is a tie ([%.3g, %.3g])", s.lo, s.hi);
    double nan[] = {NAN};
    ratio_summarize(y, nan, nan, 1, &s);
    T_ASSERT(isnan(s.lo) && fabs(s.gmean - 0.466) < 1e-12, "a row without CI: no overall CI");
}

int main(void)
{
    T_RUN(test_identical);
    T_RUN(test_slower);
    T_RUN(test_inconclusive);
    T_RUN(test_ratio);
    T_DONE();
}
