/* The batch plan of batched timing (benchmarks/collectives/timing.c): a batch
 * lasts at least the target, the total matches OSU's count where calls are
 * slow enough, at least 10 batches otherwise, and -n N is the total. */
#include "benchmarks/collectives/timing.h"
#include "tests/unit/tap.h"

static void test_adaptive(void)
{
    int k, b;
    /* 0.5 us calls, 1000 iterations: 200 per batch, 10 batches (2000 calls) */
    b = coll_batch_plan(0.5e-6, 100e-6, 1000, 0, &k);
    T_ASSERT(b == 200 && k == 10, "0.5 us: batch %d x %d", b, k);
    /* 20 us calls: 5 per batch (100 us), 200 batches = OSU's 1000 calls */
    b = coll_batch_plan(20e-6, 100e-6, 1000, 0, &k);
    T_ASSERT(b == 5 && k == 200 && b * k == 1000, "20 us: batch %d x %d", b, k);
    /* 5 ms calls above 8 KiB: one per batch, OSU's 100 */
    b = coll_batch_plan(5e-3, 100e-6, 100, 0, &k);
    T_ASSERT(b == 1 && k == 100, "5 ms: batch %d x %d", b, k);
    /* no estimate (0): one call per batch */
    b = coll_batch_plan(0, 100e-6, 100, 0, &k);
    T_ASSERT(b == 1 && k == 100, "no estimate: batch %d x %d", b, k);
}

static void test_exact(void)
{
    int k, b;
    /* -n 400 of 0.5 us calls: the batch is capped so that 10 batches remain */
    b = coll_batch_plan(0.5e-6, 100e-6, 400, 1, &k);
    T_ASSERT(b == 40 && k == 10 && b * k == 400, "-n 400: batch %d x %d", b, k);
    /* -n 3: three single calls */
    b = coll_batch_plan(0.5e-6, 100e-6, 3, 1, &k);
    T_ASSERT(b == 1 && k == 3, "-n 3: batch %d x %d", b, k);
    /* -n 1000 of 30 us calls: 4 per batch (120 us), 250 batches */
    b = coll_batch_plan(30e-6, 100e-6, 1000, 1, &k);
    T_ASSERT(b == 4 && k == 250, "-n 1000, 30 us: batch %d x %d", b, k);
}

int main(void)
{
    T_RUN(test_adaptive);
    T_RUN(test_exact);
    T_DONE();
}
