/* count: integer arithmetic on sizes and counts (FLOPs, weights, elements,
 * bytes) with overflow checks.  Every product of counts in ExaDL goes through
 * here, so a hostile or absurd configuration gets a clear error instead of a
 * wrapped (negative) count or undefined behaviour.
 *
 * Two forms: count_mul/count_add/count_prod answer -1 on overflow (the caller
 * reports it: a configuration check); count_prod_or_die stops the program
 * naming what overflowed (for code that runs only on validated input, where
 * an overflow would be a bug).  Counts are non-negative: a negative factor is
 * an overflow too.
 *
 * defines: count_mul, count_add, count_prod, count_prod_or_die, COUNT_PROD,
 *   count_size_mul */
#ifndef EXADL_COUNT_H
#define EXADL_COUNT_H

#include <stddef.h>
#include <stdint.h>

/* *out = a * b (or a + b); 0, or -1 (*out untouched) when a factor is negative
 * or the result does not fit in int64_t. */
int count_mul(int64_t a, int64_t b, int64_t *out);
int count_add(int64_t a, int64_t b, int64_t *out);
/* *out = f[0] * ... * f[n-1] (1 for n = 0); 0 or -1 as count_mul. */
int count_prod(const int64_t *f, size_t n, int64_t *out);
/* The product, or a fatal error "WHAT overflows 64 bits" (check_fail). */
int64_t count_prod_or_die(const char *what, const int64_t *f, size_t n);
#define COUNT_PROD(what, ...)                                        \
    count_prod_or_die((what), (const int64_t[]){__VA_ARGS__},       \
                      sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
/* *out = a * b in size_t (bytes of n elements); 0 or -1 on overflow. */
int count_size_mul(size_t a, size_t b, size_t *out);

#endif
