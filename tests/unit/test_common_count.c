/* count.h: products and sums of counts with overflow checks (issue 12, D6). */
#include <stdint.h>

#include "benchmarks/common/count.h"
#include "tests/unit/tap.h"

static void test_mul_add(void)
{
    int64_t r = 7;
    T_ASSERT(count_mul(3, 4, &r) == 0 && r == 12, "3 x 4 = %lld", (long long)r);
    T_ASSERT(count_mul(INT64_MAX, 1, &r) == 0 && r == INT64_MAX, "max x 1");
    T_ASSERT(count_mul(INT64_MAX / 2 + 1, 2, &r) == -1, "max/2+1 x 2 did not overflow");
    T_ASSERT(count_mul((int64_t)1 << 32, (int64_t)1 << 31, &r) == -1, "2^63 did not overflow");
    T_ASSERT(count_mul(-1, 5, &r) == -1, "a negative count accepted");
    T_ASSERT(count_add(INT64_MAX, 0, &r) == 0 && r == INT64_MAX, "max + 0");
    T_ASSERT(count_add(INT64_MAX, 1, &r) == -1, "max + 1 did not overflow");
    r = 5;
    T_ASSERT(count_add(INT64_MAX, 1, &r) == -1 && r == 5, "*out changed on overflow");
}

static void test_prod(void)
{
    int64_t r;
    /* the conv formula of gb2019's widest layer fits; growth 1e9 does not */
    T_ASSERT(count_prod((const int64_t[]){2, 5, 5, 2304, 256, 512, 512}, 7, &r) == 0 &&
                 r == INT64_C(7730941132800),
             "conv FLOPs %lld", (long long)r);
    T_ASSERT(count_prod((const int64_t[]){2, 3, 3, 2000000009, 1000000000, 8, 8}, 7, &r) == -1,
             "growth 1e9 conv FLOPs did not overflow");
    T_ASSERT(count_prod(NULL, 0, &r) == 0 && r == 1, "empty product");
    T_ASSERT(COUNT_PROD("test", 2, 3, 7) == 42, "COUNT_PROD");
    size_t s;
    T_ASSERT(count_size_mul(SIZE_MAX / 2, 2, &s) == 0, "size max/2 x 2");
    T_ASSERT(count_size_mul(SIZE_MAX / 2 + 1, 2, &s) == -1, "size overflow");
}

int main(void)
{
    T_RUN(test_mul_add);
    T_RUN(test_prod);
    T_DONE();
}
