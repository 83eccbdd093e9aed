#include "benchmarks/peak/peak_bf16.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <oneapi/dnnl/dnnl.h>

enum { MAX_REPS = 101 };

/* peak_cpu has no check library: a failed oneDNN call ends it with the call */
#define DN(call)                                                                             \
    do {                                                                                     \
        dnnl_status_t st_ = (call);                                                          \
        if (st_ != dnnl_success) {                                                           \
            fprintf(stderr, "peak_cpu: error: %s failed (oneDNN status %d)\n", #call, (int)st_); \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static const char *isa_name(dnnl_cpu_isa_t isa)
{
    switch (isa) {
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_sse41: return "sse4.1";
    default: return "other";
    }
}

/* The side of the square matmul for n threads: 1024 on one (2 GFLOP, 6 MB of
 * operands: long enough for a few repetitions, in the caches of one core),
 * growing as the cube root of n so that each thread keeps as much work. */
static int64_t side(int n)
{
    int64_t s = (int64_t)(1024.0 * cbrt((double)n) / 256.0 + 0.5) * 256;
    return s < 1024 ? 1024 : s;
}

/* the rate of S x S x S bf16 matmuls on n threads */
static peak_rate_t measure(dnnl_engine_t eng, int n, int reps, double seconds)
{
    omp_set_num_threads(n);
    int64_t s = side(n);
    dnnl_dims_t d = {s, s};
    dnnl_memory_desc_t a, b, c;
    DN(dnnl_memory_desc_init_by_tag(&a, 2, d, dnnl_bf16, dnnl_ab));
    DN(dnnl_memory_desc_init_by_tag(&b, 2, d, dnnl_bf16, dnnl_ab));
    DN(dnnl_memory_desc_init_by_tag(&c, 2, d, dnnl_f32, dnnl_ab));
    dnnl_matmul_desc_t md;
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t mm;
    DN(dnnl_matmul_desc_init(&md, &a, &b, NULL, &c));
    DN(dnnl_primitive_desc_create(&pd, &md, NULL, eng, NULL));
    DN(dnnl_primitive_create(&mm, pd));
    DN(dnnl_primitive_desc_destroy(pd));
    dnnl_memory_t ma, mb, mc;
    DN(dnnl_memory_create(&ma, &a, eng, DNNL_MEMORY_ALLOCATE));
    DN(dnnl_memory_create(&mb, &b, eng, DNNL_MEMORY_ALLOCATE));
    DN(dnnl_memory_create(&mc, &c, eng, DNNL_MEMORY_ALLOCATE));
    /* small bf16 values (the upper halves of floats in [0.01, 0.1]) */
    void *pa, *pb;
    DN(dnnl_memory_get_data_handle(ma, &pa));
    DN(dnnl_memory_get_data_handle(mb, &pb));
    for (int64_t i = 0; i < s * s; i++) {
        float v = 0.01f * (float)(1 + i % 10);
        uint32_t u;
        memcpy(&u, &v, sizeof u);
        ((uint16_t *)pa)[i] = ((uint16_t *)pb)[i] = (uint16_t)(u >> 16);
    }
    dnnl_stream_t str;
    DN(dnnl_stream_create(&str, eng, dnnl_stream_default_flags));
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}};
    double flops = 2.0 * (double)s * (double)s * (double)s, r[MAX_REPS];
    for (int i = -1; i < reps; i++) { /* i = -1: warm-up (clocks up, JIT, pages) */
        int64_t calls = 0;
        double t0 = now_s(), t;
        do {
            DN(dnnl_primitive_execute(mm, str, 3, args));
            DN(dnnl_stream_wait(str));
            calls++;
        } while ((t = now_s() - t0) < seconds);
        if (i >= 0) r[i] = flops * (double)calls / t;
    }
    DN(dnnl_stream_destroy(str));
    DN(dnnl_memory_destroy(ma));
    DN(dnnl_memory_destroy(mb));
    DN(dnnl_memory_destroy(mc));
    DN(dnnl_primitive_destroy(mm));
    /* a few repetitions: insertion sort, then the middle one (two: their mean) */
    for (int i = 1; i < reps; i++)
        for (int j = i; j > 0 && r[j - 1] > r[j]; j--) {
            double t = r[j];
            r[j] = r[j - 1], r[j - 1] = t;
        }
    int h = reps / 2;
    return (peak_rate_t){reps % 2 ? r[h] : 0.5 * (r[h - 1] + r[h]), r[0], r[reps - 1]};
}

static void print_rate(const char *key, const char *what, peak_rate_t r)
{
    printf("%s_%sflops_per_s: %.4e\n", key, what, r.median);
}

/* the larger median of the two; *which: its name ("instr" or "matmul") */
static peak_rate_t larger(const peak_rate_t *instr, peak_rate_t mm, const char **which)
{
    if (instr && instr->median > mm.median) return *which = "instr", *instr;
    return *which = "matmul", mm;
}

void peak_bf16_print(int threads, int reps, double seconds, peak_bf16_instr_fn instr,
                     const char *instr_what)
{
    dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
    unsigned bf = dnnl_cpu_isa_avx512_core_bf16;
    /* the ISA values are bit sets: AMX's holds avx512_core_bf16's bits */
    if (((unsigned)isa & bf) != bf) {
        printf("peak_bf16_isa: none\n");
        printf("peak_bf16: none, oneDNN finds neither AVX512-BF16 nor AMX here (its cpu isa %s)\n",
               isa_name(isa));
        return;
    }
    if (reps > MAX_REPS) reps = MAX_REPS;
    const dnnl_version_t *v = dnnl_version();
    printf("peak_bf16_isa: %s\n", isa_name(isa));
    if (instr)
        printf("peak_bf16_instr_method: %s, timed as the fp32 loop (1 thread, then %d pinned), "
               "median of %d\n",
               instr_what, threads, reps);
    else
        printf("peak_bf16_instr_method: none, the CPU lacks AVX512-BF16 (oneDNN's matmul alone)\n");
    printf("peak_bf16_matmul_method: oneDNN %d.%d.%d matmul, bf16 x bf16 -> fp32, square, side %lld "
           "(1 thread) and %lld (%d threads), median of %d\n",
           v->major, v->minor, v->patch, (long long)side(1), (long long)side(threads), threads,
           reps);
    fflush(stdout);
    /* the instruction loop first: it runs on peak_cpu's pinned threads, before
     * oneDNN's OpenMP threads exist (they may spin a while after each call) */
    peak_rate_t i1 = {0, 0, 0}, in = {0, 0, 0};
    if (instr) {
        i1 = instr(1, reps, seconds);
        in = threads == 1 ? i1 : instr(threads, reps, seconds);
        print_rate("peak_bf16_instr", "1thread_", i1);
        print_rate("peak_bf16_instr", "", in);
        fflush(stdout);
    }
    dnnl_engine_t eng;
    DN(dnnl_engine_create(&eng, dnnl_cpu, 0));
    peak_rate_t m1 = measure(eng, 1, reps, seconds);
    peak_rate_t mn = threads == 1 ? m1 : measure(eng, threads, reps, seconds);
    DN(dnnl_engine_destroy(eng));
    print_rate("peak_bf16_matmul", "1thread_", m1);
    print_rate("peak_bf16_matmul", "", mn);
    /* the peak is the highest rate measured, at each thread count */
    const char *w1, *wn;
    peak_rate_t one = larger(instr ? &i1 : NULL, m1, &w1);
    peak_rate_t all = larger(instr ? &in : NULL, mn, &wn);
    if (!strcmp(w1, wn))
        printf("peak_bf16_method: %s (the larger of the two measurements at each thread count)\n",
               w1);
    else
        printf("peak_bf16_method: %s on 1 thread, %s on %d threads (the larger of the "
               "measurements at each thread count)\n",
               w1, wn, threads);
    printf("peak_bf16_1thread_flops_per_s: %.4e\n", one.median);
    printf("peak_bf16_1thread_min_flops_per_s: %.4e\n", one.min);
    printf("peak_bf16_1thread_max_flops_per_s: %.4e\n", one.max);
    printf("peak_bf16_flops_per_s: %.4e\n", all.median);
    printf("peak_bf16_min_flops_per_s: %.4e\n", all.min);
    printf("peak_bf16_max_flops_per_s: %.4e\n", all.max);
    printf("peak_bf16_per_thread_flops_per_s: %.4e\n", all.median / threads);
}
