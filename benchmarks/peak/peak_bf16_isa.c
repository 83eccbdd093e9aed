#include "benchmarks/peak/peak_bf16_isa.h"

#include <cpuid.h>
#include <immintrin.h>

/* __builtin_cpu_supports("avx512f") also checks that the OS saves the zmm
 * state; AVX512-BF16 itself is CPUID leaf 7, subleaf 1, EAX bit 5 (asked
 * directly: not every compiler's __builtin_cpu_supports knows its name). */
int peak_bf16_isa_usable(void)
{
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f")) return 0;
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || a < 1) return 0; /* a: the last subleaf */
    if (!__get_cpuid_count(7, 1, &a, &b, &c, &d)) return 0;
    return (a >> 5) & 1;
}

/* Each vdpbf16ps adds 2^-4 * 2^-4 twice (2^-7) to every lane of its
 * accumulator.  vdpbf16ps treats denormal inputs as zero and flushes denormal
 * results, so no input or result is slow; the accumulators start at
 * 0.01 * i and grow until the increment is below half their last bit (about
 * 2^17): finite, normal, and every instruction still does its full work. */
__attribute__((target("avx512f,avx512bf16"))) double peak_bf16_isa_run(int64_t iters)
{
    enum { N = PEAK_BF16_ISA_ACCUMULATORS };
    __m512bh a = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.0625f), _mm512_set1_ps(0.0625f));
    __m512bh b = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.0625f), _mm512_set1_ps(0.0625f));
    __m512 c[N];
    for (int i = 0; i < N; i++) c[i] = _mm512_set1_ps((float)i * 0.01f);
    for (int64_t it = 0; it < iters; it++) {
#pragma GCC unroll 24
        for (int i = 0; i < N; i++) c[i] = _mm512_dpbf16_ps(c[i], a, b);
    }
    __m512 s = c[0];
    for (int i = 1; i < N; i++) s = _mm512_add_ps(s, c[i]);
    return (double)_mm512_reduce_add_ps(s);
}
