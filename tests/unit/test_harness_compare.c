/* compare: change in percent, significance by non-overlapping 95% CIs, the
 * direction that counts as worse, and a planted regression in a table. */
#include <math.h>
#include <string.h>

#include "harness/analysis/compare.h"
#include "tests/unit/tap.h"

static metric_t m(const char *name, int better, double v, double lo, double hi)
{
    metric_t x = {.bench = "stemdl", .program = "stemdl", .kind = "stemdl", .scale = 2,
                  .metric = name, .value = v, .lo = lo, .hi = hi, .unit = "", .better = better};
    return x;
}

static void test_pairs(void)
{
    cmp_row_t r;
    metric_t a = m("throughput_samples_per_s", 1, 10, 9.5, 10.5);
    metric_t b = m("throughput_samples_per_s", 1, 8, 7.8, 8.2);
    compare_pair(&a, &b, 5, &r);
    T_ASSERT(fabs(r.change_pct + 20) < 1e-9 && r.significant == 1 && r.v == V_REGRESSION,
             "-20%% with disjoint CIs is a regression (%g%%, %s)", r.change_pct, verdict_name(r.v));
    compare_pair(&b, &a, 5, &r);
    T_ASSERT(r.v == V_IMPROVED && fabs(r.change_pct - 25) < 1e-9, "the reverse improves");
    metric_t c = m("throughput_samples_per_s", 1, 9.6, 9.0, 10.2);
    compare_pair(&a, &c, 5, &r);
    T_ASSERT(r.v == V_SAME, "-4%% is within a 5%% threshold");
    compare_pair(&a, &c, 1, &r);
    T_ASSERT(r.v == V_WORSE && r.significant == 0, "-4%% past 1%% but overlapping CIs: noise");
    metric_t t1 = m("step_time_s", -1, 1.0, 0.98, 1.02), t2 = m("step_time_s", -1, 1.2, 1.18, 1.22);
    compare_pair(&t1, &t2, 5, &r);
    T_ASSERT(r.v == V_REGRESSION, "a longer step is worse");
    compare_pair(&t2, &t1, 5, &r);
    T_ASSERT(r.v == V_IMPROVED, "a shorter step is better");
    metric_t p1 = m("peak_flops", 1, 10, NAN, NAN), p2 = m("peak_flops", 1, 5, NAN, NAN);
    compare_pair(&p1, &p2, 5, &r);
    T_ASSERT(r.v == V_NOCI && r.significant == -1, "without CIs significance is unknown");
}

static void test_tables(void)
{
    arena_t *ar = ar_new();
    mtable_t a = {0}, b = {0};
    metric_t x[] = {m("throughput_samples_per_s", 1, 10, 9.9, 10.1), m("efficiency", 1, 0.9, 0.88, 0.92),
                    m("step_time_s", -1, 0.4, 0.39, 0.41), m("conv_weights", 0, 5, NAN, NAN)};
    for (int i = 0; i < 4; i++) mtable_add(ar, &a, &x[i]);
    /* B: throughput planted 15% lower, efficiency the same, step time gone */
    metric_t y[] = {m("throughput_samples_per_s", 1, 8.5, 8.4, 8.6), m("efficiency", 1, 0.9, 0.88, 0.92)};
    for (int i = 0; i < 2; i++) mtable_add(ar, &b, &y[i]);
    size_t n;
    int reg;
    cmp_row_t *r = compare_tables(ar, &a, &b, NULL, 0, 0, 5, &n, &reg);
    int only_a = 0;
    for (size_t i = 0; i < n; i++) only_a += r[i].v == V_ONLY_A;
    T_ASSERT(reg == 1 && r[0].v == V_REGRESSION, "the planted regression is found (%d)", reg);
    T_ASSERT(n == 3 && only_a == 1, "default metrics only (conv_weights left out); one only in A");
    const char *only[] = {"efficiency"};
    r = compare_tables(ar, &a, &b, only, 1, 0, 5, &n, &reg);
    T_ASSERT(n == 1 && reg == 0 && r[0].v == V_SAME, "--metric efficiency");
    /* different collective rows do not match each other */
    kv_t p1[] = {{"op", "allreduce"}, {"bytes", "1024"}}, p2[] = {{"op", "allreduce"}, {"bytes", "2048"}};
    metric_t c1 = m("busbw_GBps", 1, 1, 0.9, 1.1), c2 = m("busbw_GBps", 1, 0.5, 0.4, 0.6);
    c1.params = p1, c1.nparams = 2, c2.params = p2, c2.nparams = 2;
    mtable_t ca = {0}, cb = {0};
    mtable_add(ar, &ca, &c1);
    mtable_add(ar, &cb, &c2);
    r = compare_tables(ar, &ca, &cb, NULL, 0, 1, 5, &n, &reg);
    T_ASSERT(n == 2 && reg == 0 && r[0].v == V_ONLY_A && r[1].v == V_ONLY_B, "rows by size");
    ar_free(ar);
}

int main(void)
{
    T_RUN(test_pairs);
    T_RUN(test_tables);
    T_DONE();
}
