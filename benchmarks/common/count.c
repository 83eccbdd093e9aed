#include "benchmarks/common/count.h"

#include "benchmarks/common/check.h"

int count_mul(int64_t a, int64_t b, int64_t *out)
{
    int64_t r;
    if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r)) return -1;
    *out = r;
    return 0;
}

int count_add(int64_t a, int64_t b, int64_t *out)
{
    int64_t r;
    if (a < 0 || b < 0 || __builtin_add_overflow(a, b, &r)) return -1;
    *out = r;
    return 0;
}

int count_prod(const int64_t *f, size_t n, int64_t *out)
{
    int64_t r = 1;
    for (size_t i = 0; i < n; i++)
        if (count_mul(r, f[i], &r)) return -1;
    *out = r;
    return 0;
}

int64_t count_prod_or_die(const char *what, const int64_t *f, size_t n)
{
    int64_t r;
    CHECK(count_prod(f, n, &r) == 0, "%s overflows 64 bits (or has a negative factor)", what);
    return r;
}

int count_size_mul(size_t a, size_t b, size_t *out)
{
    size_t r;
    if (__builtin_mul_overflow(a, b, &r)) return -1;
    *out = r;
    return 0;
}
