/* doubling: "is this parser linear?" asked without a wall-clock threshold.
 * The work is run at size n and 2n, five times each, interleaved, and the
 * smallest CPU time of each size is kept (CPU time of this thread: time other
 * jobs take from a loaded machine is not counted; the minimum drops the
 * tries a cache or a page fault slowed).  A linear (or n log n) parser gives
 * a ratio near 2 (2.4 seen on a machine with load 14 on 2 cores), a
 * quadratic one near 4 (3.9 to 4.4 measured before the fixes); tests
 * assert at most 3. */
#ifndef EXADL_TEST_DOUBLING_H
#define EXADL_TEST_DOUBLING_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#define DOUBLING_MAX_RATIO 3.0

/* The sanitizer build (tests/run.sh: every malloc unwinds the stack) runs
 * 10 to 100 times slower: DOUBLING_N(n, d) is n there divided by d (the
 * ratio is what is tested, not the size). */
#if defined(__SANITIZE_ADDRESS__)
#define DOUBLING_N(n, d) ((size_t)(n) / (d))
#else
#define DOUBLING_N(n, d) ((size_t)(n))
#endif

static inline double doubling_cpu_s_(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* work(ctx, n) does the job at size n; returns t(2n) / t(n), with the two
 * minimum times in *t1_s and *t2_s (for the message) */
static inline double doubling_ratio(void (*work)(void *ctx, size_t n), void *ctx, size_t n,
                                    double *t1_s, double *t2_s)
{
    double best1 = 1e300, best2 = 1e300;
    for (int i = 0; i < 5; i++) {
        double t0 = doubling_cpu_s_();
        work(ctx, n);
        double t1 = doubling_cpu_s_();
        work(ctx, 2 * n);
        double t2 = doubling_cpu_s_();
        if (t1 - t0 < best1) best1 = t1 - t0;
        if (t2 - t1 < best2) best2 = t2 - t1;
    }
    *t1_s = best1, *t2_s = best2;
    return best1 > 0 ? best2 / best1 : 0;
}

/* Run work at n and 2n, print the times and fail the test (tests/unit/tap.h)
 * when the ratio is above DOUBLING_MAX_RATIO; what names the input. */
#define DOUBLING_CHECK(work, ctx, n, what)                                                     \
    do {                                                                                       \
        double t1_, t2_, r_ = doubling_ratio((work), (ctx), (n), &t1_, &t2_);                  \
        printf("# %s: n=%zu %.3f s, 2n %.3f s (%.2fx)\n", (what), (size_t)(n), t1_, t2_, r_); \
        T_ASSERT(r_ <= DOUBLING_MAX_RATIO, "%s: n=%zu %.3f s, 2n %.3f s: %.2fx (at most %.1fx: "   \
                 "a linear reader takes about 2x, a quadratic one 4x)", (what), (size_t)(n),    \
                 t1_, t2_, r_, DOUBLING_MAX_RATIO);                                             \
    } while (0)

#endif
