/* The batch plan of batched timing (benchmarks/collectives/timing.c): a batch
 * lasts at least the target, the total matches OSU's count where calls are
 * slow enough, at least 10 batches otherwise, and -n N is the total; with
 * --batch N (bench_nccl.sh: nccl-tests' method) the batch is N, never cut to
 * 2 calls as the target plan cuts -n 20. */
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

static void test_fixed(void)
{
    int k, b;
    /* what bench_nccl.sh asks: nccl-tests' -n 20 as the batch, 5 batches */
    b = coll_batch_fixed(20, 100, 1, &k);
    T_ASSERT(b == 20 && k == 5 && b * k == 100, "--batch 20 -n 100: batch %d x %d", b, k);
    /* -n 20 alone: the target plan gives batches of 2 (the defect of issue
     * 28 item 5); --batch 20 -n 20: one batch of 20, as nccl-tests times */
    b = coll_batch_plan(0.5e-6, 100e-6, 20, 1, &k);
    T_ASSERT(b == 2 && k == 10, "-n 20 planned: batch %d x %d", b, k);
    b = coll_batch_fixed(20, 20, 1, &k);
    T_ASSERT(b == 20 && k == 1, "--batch 20 -n 20: batch %d x %d", b, k);
    /* no -n: the adaptive total in batches of N, at least 10 batches */
    b = coll_batch_fixed(20, 100, 0, &k);
    T_ASSERT(b == 20 && k == 10, "--batch 20, 100 adaptive: batch %d x %d", b, k);
    b = coll_batch_fixed(7, 1000, 0, &k);
    T_ASSERT(b == 7 && k == 143, "--batch 7, 1000 adaptive: batch %d x %d", b, k);
    /* a batch above the total is the total */
    b = coll_batch_fixed(50, 20, 1, &k);
    T_ASSERT(b == 20 && k == 1, "--batch 50 -n 20: batch %d x %d", b, k);
}

int main(void)
{
    T_RUN(test_adaptive);
    T_RUN(test_exact);
    T_RUN(test_fixed);
    T_DONE();
}
