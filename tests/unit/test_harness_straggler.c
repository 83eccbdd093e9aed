/* The straggler term (harness/model/straggler.c) on synthetic per-rank
 * samples of a known distribution: each step a level mu_s (drifting between
 * steps), each rank mu_s + N(0, sigma).  The fit must find sigma, its own
 * check must agree with the samples, and the expected slowest of p must match
 * the mean of the maximum of p draws simulated independently. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/common/rng.h"
#include "harness/model/straggler.h"
#include "tests/unit/tap.h"

#define NEAR(x, y, rel) (fabs((double)(x) - (double)(y)) <= (rel) * fabs((double)(y)))

static double *synth(size_t steps, size_t ranks, double mean, double sigma, double drift,
                     uint64_t seed)
{
    double *x = malloc(steps * ranks * sizeof *x);
    rng_t g = rng_stream(seed, 1, 2, 3);
    for (size_t s = 0; s < steps; s++) {
        double mu = mean * (1 + drift * rng_normal(&g));
        for (size_t r = 0; r < ranks; r++) x[s * ranks + r] = mu + sigma * rng_normal(&g);
    }
    return x;
}

static void test_fit_recovers_sigma(void)
{
    /* mean 0.2 s, sigma 0.01 s (cv 0.05), the steps' level drifting by 10% */
    size_t S = 4000, R = 8;
    double *x = synth(S, R, 0.2, 0.01, 0.10, 7);
    straggler_t f;
    T_ASSERT(straggler_fit(x, S, R, &f) == 0, "fit failed");
    T_ASSERT(NEAR(f.cv, 0.05, 0.03), "cv %.5f, expected 0.05 (the drift must not count)", f.cv);
    T_ASSERT(NEAR(f.mean_s, 0.2, 0.01), "mean %.5f", f.mean_s);
    /* the normal's E[max - mean] of 8 agrees with the samples' own */
    T_ASSERT(NEAR(f.excess_measured_s, f.excess_normal_s, 0.03), "check: measured %.6f, normal %.6f",
             f.excess_measured_s, f.excess_normal_s);
    free(x);
}

static void test_expected_max_of_p(void)
{
    size_t S = 3000, R = 4;
    double *x = synth(S, R, 1.0, 0.04, 0, 11);
    straggler_t f;
    T_ASSERT(straggler_fit(x, S, R, &f) == 0, "fit failed");
    /* the slowest of 64 and of 1000, simulated: mean over 3000 draws */
    int ps[2] = {64, 1000};
    for (int k = 0; k < 2; k++) {
        int p = ps[k];
        rng_t g = rng_stream(99, (uint64_t)p, 0, 0);
        double sum = 0;
        for (int t = 0; t < 3000; t++) {
            double mx = -INFINITY;
            for (int r = 0; r < p; r++) {
                double v = 1.0 + 0.04 * rng_normal(&g);
                if (v > mx) mx = v;
            }
            sum += mx;
        }
        double sim = sum / 3000, got = straggler_expected_max(&f, p);
        /* compare the excess over the mean: 2% of it is ~0.2% of the time */
        T_ASSERT(NEAR(got - 1.0, sim - 1.0, 0.03), "p=%d: model %.5f, simulated %.5f", p, got, sim);
    }
    free(x);
}

static void test_pool_and_refusals(void)
{
    double *a = synth(500, 2, 1.0, 0.02, 0, 3), *b = synth(500, 6, 2.0, 0.04, 0, 4);
    straggler_t f[2], p;
    T_ASSERT(straggler_fit(a, 500, 2, &f[0]) == 0 && straggler_fit(b, 500, 6, &f[1]) == 0, "fits");
    T_ASSERT(straggler_pool(f, 2, &p) == 0, "pool");
    /* both have cv 0.02: so has the pool, whatever the levels */
    T_ASSERT(NEAR(p.cv, 0.02, 0.05), "pooled cv %.5f", p.cv);
    T_ASSERT(p.dof == 500.0 * 1 + 500.0 * 5, "dof %g", p.dof);
    straggler_t z;
    T_ASSERT(straggler_fit(a, 500, 1, &z) == -1, "one rank has no spread");
    a[3] = NAN;
    T_ASSERT(straggler_fit(a, 500, 2, &z) == -1, "NaN sample accepted");
    T_ASSERT(straggler_pool(f, 0, &z) == -1, "empty pool accepted");
    free(a), free(b);
}

int main(void)
{
    T_RUN(test_fit_recovers_sigma);
    T_RUN(test_expected_max_of_p);
    T_RUN(test_pool_and_refusals);
    T_DONE();
}
