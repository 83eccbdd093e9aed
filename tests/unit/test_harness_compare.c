/* compare: which rows of two runs are the same row, which metrics are shown,
 * and a value with its CI written in the metric's unit (history printed
 * "18.4 GFLOP/s [1.821e+10, 1.877e+10]"). */
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

static void test_rows(void)
{
    metric_t a = m("throughput_samples_per_s", 1, 10, 9.5, 10.5), b = a;
    b.value = 8;
    T_ASSERT(compare_same_row(&a, &b), "the same metric, benchmark and scale: the same row");
    b.scale = 4;
    T_ASSERT(!compare_same_row(&a, &b), "another scale: another row");
    kv_t p1[] = {{"op", "allreduce"}, {"bytes", "1024"}}, p2[] = {{"op", "allreduce"}, {"bytes", "2048"}},
         p3[] = {{"op", "allreduce"}, {"bytes", "1024.0"}};
    metric_t c1 = m("busbw_GBps", 1, 1, 0.9, 1.1), c2 = c1, c3 = c1;
    c1.params = p1, c1.nparams = 2, c2.params = p2, c2.nparams = 2, c3.params = p3, c3.nparams = 2;
    T_ASSERT(!compare_same_row(&c1, &c2) && compare_same_row(&c1, &c3), "collective rows by size, numerically");
    const char *only[] = {"efficiency"};
    metric_t e = m("efficiency", 1, 1, 1, 1), k = m("conv_weights", 0, 5, NAN, NAN);
    T_ASSERT(compare_wanted(&e, NULL, 0, 0) && !compare_wanted(&k, NULL, 0, 0) &&
                 compare_wanted(&k, NULL, 0, 1) && compare_wanted(&e, only, 1, 0) &&
                 !compare_wanted(&a, only, 1, 0),
             "the default set, --all and --metric");
}

static void test_format(void)
{
    char b[128];
    compare_fmt_ci(b, sizeof b, 1.84e10, 1.821e10, 1.877e10, "FLOP/s");
    T_ASSERT(!strcmp(b, "18.4 [18.21, 18.77] GFLOP/s"), "FLOP/s with one prefix: '%s'", b);
    compare_fmt_ci(b, sizeof b, 3.96, 3.9, 4.01, "samples/s");
    T_ASSERT(!strcmp(b, "3.96 [3.9, 4.01] samples/s"), "a plain unit: '%s'", b);
    compare_fmt_ci(b, sizeof b, 0.5, NAN, NAN, "s");
    T_ASSERT(!strcmp(b, "0.5 s"), "no CI: the value alone: '%s'", b);
    compare_fmt_ci(b, sizeof b, 0.08, NAN, NAN, "");
    T_ASSERT(!strcmp(b, "0.08"), "no unit: '%s'", b);
    compare_fmt_value(b, sizeof b, NULL);
    T_ASSERT(!strcmp(b, "-"), "no row: '-'");
}

int main(void)
{
    T_RUN(test_rows);
    T_RUN(test_format);
    T_DONE();
}
