/* verdict and ratio: identical observations are never a regression; a
 * planted one is; one launch per side is inconclusive; a drift between
 * baseline runs widens what counts; the ratio CI of a planted 1.5x holds it. */
#include <math.h>
#include <string.h>

#include "harness/analysis/ratio.h"
#include "harness/analysis/verdict.h"
#include "tests/unit/tap.h"

static void test_verdict(void)
{
    rjudge_t j;
    double base[] = {10.0, 10.2, 9.9, 10.1}, same[] = {10.05, 9.95, 10.15};
    verdict_judge(base, 4, same, 3, 10.05, NULL, 0, 1, 5, &j);
    T_ASSERT(j.v == RV_SAME, "identical launches: same (%s)", rverdict_name(j.v));
    verdict_judge(base, 4, same, 3, 10.05, NULL, 0, 1, 0, &j);
    T_ASSERT(j.v != RV_REGRESSION, "identical launches, threshold 0: not a regression (%s)",
             rverdict_name(j.v));
    double slow[] = {8.0, 8.1, 7.9};
    verdict_judge(base, 4, slow, 3, 8.0, NULL, 0, 1, 5, &j);
    T_ASSERT(j.v == RV_REGRESSION && fabs(j.change_pct + 20.6) < 0.5, "-20%% in every launch: "
             "REGRESSION (%s, %.1f%%)", rverdict_name(j.v), j.change_pct);
    verdict_judge(base, 4, slow, 3, 8.0, NULL, 0, -1, 5, &j);
    T_ASSERT(j.v == RV_IMPROVEMENT, "lower is better: an improvement");
    double one[] = {10}, other[] = {7.2};
    verdict_judge(one, 1, other, 1, 7.2, NULL, 0, 1, 5, &j);
    T_ASSERT(j.v == RV_INCONCLUSIVE && j.need >= 2, "one launch a side: inconclusive (need %d)", j.need);
    double noisy[] = {10, 14, 6, 12, 8}, lower[] = {8.5, 9.5};
    verdict_judge(noisy, 5, lower, 2, 9.0, NULL, 0, 1, 5, &j);
    T_ASSERT(j.v == RV_INCONCLUSIVE && j.need > 2, "-10%% within a wide spread: inconclusive, "
             "%d launches per side", j.need);
    /* launches agree within each run, but the runs drift: the runs decide */
    double pool[] = {10, 10, 12, 12, 8, 8}, runs[] = {10, 12, 8}, nw[] = {8.9, 8.9};
    verdict_judge(pool, 6, nw, 2, 8.9, runs, 3, 1, 5, &j);
    T_ASSERT(j.v == RV_INCONCLUSIVE, "inside the runs' prediction interval: inconclusive (%s)",
             rverdict_name(j.v));
    T_ASSERT(verdict_tcrit(1) > 12.7 && verdict_tcrit(1) < 12.71 && fabs(verdict_tcrit(30) - 2.042) < 0.01 &&
                 verdict_tcrit(1e9) < 1.961,
             "t quantiles (1, 30, inf df)");
}

static void test_ratio(void)
{
    double la[] = {0.100, 0.101, 0.099}, lb[] = {0.150, 0.151, 0.149};
    metric_t a = {.metric = "step_time_s", .value = 0.1, .lo = 0.099, .hi = 0.101, .better = -1,
                  .launch = la, .nlaunch = 3};
    metric_t b = a;
    b.value = 0.15, b.lo = 0.149, b.hi = 0.151, b.launch = lb;
    ratio_t q;
    ratio_of(&a, &b, &q);
    T_ASSERT(fabs(q.r - 1.5) < 1e-12 && q.lo < 1.5 && q.hi > 1.5 && q.lo > 1.4 && q.winner == 1,
             "1.5x in [%.3g, %.3g], winner A (shorter time)", q.lo, q.hi);
    metric_t c = a;
    c.lo = c.hi = NAN, c.nlaunch = 0;
    ratio_of(&c, &b, &q);
    T_ASSERT(q.winner == -1 && isnan(q.lo), "no CI on a side: no CI, no winner");
    double x[] = {2, 0.5, 1};
    ratio_summary_t s;
    ratio_summarize(x, 3, &s);
    T_ASSERT(fabs(s.gmean - 1) < 1e-12 && s.min == 0.5 && s.max == 2 && s.gsd > 1.9,
             "geometric mean of 2, 0.5, 1 is 1 (gsd %.3g)", s.gsd);
}

int main(void)
{
    T_RUN(test_verdict);
    T_RUN(test_ratio);
    T_DONE();
}
