/* peak_cpu: this machine's peak fp32 FLOP/s, measured with a loop of
 * independent fused multiply-adds at the widest vector width the CPU has.
 *
 *   peak_cpu [--threads N] [--reps R] [--seconds S] [--isa avx512|avx2|sse] [--no-bf16]
 *
 * The ISA is detected at run time (__builtin_cpu_supports): AVX-512F (16
 * floats per vector), else AVX2 + FMA (8 floats), else SSE (4 floats, a
 * multiply and an add instead of an FMA).  Each kernel is compiled for its ISA
 * with __attribute__((target(...))), so the program runs on any x86-64.
 *
 * Independent accumulators: an FMA has a latency of about 4 cycles and modern
 * cores issue 2 per cycle, so at least 4 x 2 = 8 independent chains are needed
 * to keep both pipes busy; the kernels use 12 (AVX2, SSE: 16 registers) and 24
 * (AVX-512: 32 registers), which also covers cores with 5-cycle latency.
 *
 * Formula, per repetition:
 *   flops = threads * iterations * accumulators * lanes * flops_per_lane
 *   (2 FLOPs per lane per FMA; for SSE one multiply + one add per lane; 4 per
 *   lane of a vdpbf16ps, two bf16 products and their sum added)
 *   peak  = flops / (wall time from the common start to the last thread's end)
 * The result is the median over the repetitions (min and max printed too).
 * One run measures 1 thread and N threads (default: every online CPU; one
 * thread per core, pinned where the system allows).
 *
 * Output: YAML lines (key: value), for scripts.  After the fp32 lines, the
 * bf16 peak where oneDNN finds AVX512-BF16 or AMX, or a line saying there is
 * none; --no-bf16 leaves it out.  Two bf16 measurements (peak_bf16.c), the
 * peak the larger: the instructions (where the CPU has AVX512-BF16: the same
 * threads and formula as the fp32 loop, over a loop of 24 independent
 * vdpbf16ps, peak_bf16_isa.c: 16 lanes x 2 products x 2 FLOPs = 64 FLOPs
 * each) and oneDNN's bf16 matmul (the rate a library reaches; with AMX, the
 * tiles, beyond any vector loop). */
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "benchmarks/peak/peak_bf16.h"
#include "benchmarks/peak/peak_bf16_isa.h"

#define MAX_THREADS 1024
#define MAX_REPS 101

typedef struct {
    const char *name;
    int bits, lanes, accumulators;
    int flops_per_lane;           /* per instruction: 2 (FMA), 4 (bf16 pair dot product) */
    double (*run)(int64_t iters); /* returns a value that depends on every chain */
} isa_t;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* acc = acc * a + b converges to b / (1 - a) = 1: no overflow, no denormals. */
#define A_MUL 0.999999f
#define B_ADD 0.000001f

__attribute__((target("avx512f"))) static double run_avx512(int64_t iters)
{
    __m512 a = _mm512_set1_ps(A_MUL), b = _mm512_set1_ps(B_ADD);
    __m512 c[24];
    for (int i = 0; i < 24; i++) c[i] = _mm512_set1_ps((float)i * 0.01f);
    for (int64_t it = 0; it < iters; it++) {
#pragma GCC unroll 24
        for (int i = 0; i < 24; i++) c[i] = _mm512_fmadd_ps(c[i], a, b);
    }
    __m512 s = c[0];
    for (int i = 1; i < 24; i++) s = _mm512_add_ps(s, c[i]);
    return (double)_mm512_reduce_add_ps(s);
}

__attribute__((target("avx2,fma"))) static double run_avx2(int64_t iters)
{
    __m256 a = _mm256_set1_ps(A_MUL), b = _mm256_set1_ps(B_ADD);
    __m256 c0 = _mm256_set1_ps(0.00f), c1 = _mm256_set1_ps(0.01f), c2 = _mm256_set1_ps(0.02f),
           c3 = _mm256_set1_ps(0.03f), c4 = _mm256_set1_ps(0.04f), c5 = _mm256_set1_ps(0.05f),
           c6 = _mm256_set1_ps(0.06f), c7 = _mm256_set1_ps(0.07f), c8 = _mm256_set1_ps(0.08f),
           c9 = _mm256_set1_ps(0.09f), c10 = _mm256_set1_ps(0.10f), c11 = _mm256_set1_ps(0.11f);
    for (int64_t it = 0; it < iters; it++) {
        c0 = _mm256_fmadd_ps(c0, a, b);
        c1 = _mm256_fmadd_ps(c1, a, b);
        c2 = _mm256_fmadd_ps(c2, a, b);
        c3 = _mm256_fmadd_ps(c3, a, b);
        c4 = _mm256_fmadd_ps(c4, a, b);
        c5 = _mm256_fmadd_ps(c5, a, b);
        c6 = _mm256_fmadd_ps(c6, a, b);
        c7 = _mm256_fmadd_ps(c7, a, b);
        c8 = _mm256_fmadd_ps(c8, a, b);
        c9 = _mm256_fmadd_ps(c9, a, b);
        c10 = _mm256_fmadd_ps(c10, a, b);
        c11 = _mm256_fmadd_ps(c11, a, b);
    }
    __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(c0, c1), _mm256_add_ps(c2, c3)),
                             _mm256_add_ps(_mm256_add_ps(c4, c5), _mm256_add_ps(c6, c7)));
    s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(c8, c9), _mm256_add_ps(c10, c11)));
    float out[8];
    _mm256_storeu_ps(out, s);
    return (double)out[0] + out[1] + out[2] + out[3] + out[4] + out[5] + out[6] + out[7];
}

/* SSE has no FMA: a multiply and an add per lane, 2 FLOPs, as with an FMA. */
static double run_sse(int64_t iters)
{
    __m128 a = _mm_set1_ps(A_MUL), b = _mm_set1_ps(B_ADD);
    __m128 c[12];
    for (int i = 0; i < 12; i++) c[i] = _mm_set1_ps((float)i * 0.01f);
    for (int64_t it = 0; it < iters; it++) {
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++) c[i] = _mm_add_ps(_mm_mul_ps(c[i], a), b);
    }
    __m128 s = c[0];
    for (int i = 1; i < 12; i++) s = _mm_add_ps(s, c[i]);
    float out[4];
    _mm_storeu_ps(out, s);
    return (double)out[0] + out[1] + out[2] + out[3];
}

static const isa_t isas[] = {
    {"avx512f", 512, 16, 24, 2, run_avx512},
    {"avx2+fma", 256, 8, 12, 2, run_avx2},
    {"sse", 128, 4, 12, 2, run_sse},
};

/* the bf16 instructions' loop (peak_bf16_isa.c), timed as the fp32 ones */
static const isa_t bf16_loop = {"avx512_bf16", 512, PEAK_BF16_ISA_LANES,
                                PEAK_BF16_ISA_ACCUMULATORS, PEAK_BF16_ISA_FLOPS_PER_LANE,
                                peak_bf16_isa_run};

static int isa_usable(int i)
{
    __builtin_cpu_init();
    if (i == 0) return __builtin_cpu_supports("avx512f");
    if (i == 1) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return 1;
}

/* ---- threads: all start together, each runs `iters` iterations ----------- */

typedef struct {
    const isa_t *isa;
    int64_t iters;
    int nthreads;
    pthread_barrier_t start;
    double t_start;
    double t_end[MAX_THREADS];
    double sink;
    pthread_mutex_t lock;
} job_t;

typedef struct {
    job_t *job;
    int id;
} arg_t;

static void *worker(void *p)
{
    arg_t *a = p;
    job_t *j = a->job;
    cpu_set_t set;
    CPU_ZERO(&set);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    CPU_SET((int)(a->id % (ncpu > 0 ? ncpu : 1)), &set);
    (void)pthread_setaffinity_np(pthread_self(), sizeof set, &set); /* best effort */
    pthread_barrier_wait(&j->start);
    if (a->id == 0) j->t_start = now_s();
    double v = j->isa->run(j->iters);
    j->t_end[a->id] = now_s();
    pthread_mutex_lock(&j->lock);
    j->sink += v;
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

/* One repetition on n threads: seconds from the common start to the end. */
static double timed(const isa_t *isa, int n, int64_t iters)
{
    job_t j;
    memset(&j, 0, sizeof j);
    j.isa = isa;
    j.iters = iters;
    j.nthreads = n;
    pthread_barrier_init(&j.start, NULL, (unsigned)n);
    pthread_mutex_init(&j.lock, NULL);
    pthread_t tid[MAX_THREADS];
    arg_t args[MAX_THREADS];
    for (int i = 0; i < n; i++) {
        args[i] = (arg_t){&j, i};
        if (pthread_create(&tid[i], NULL, worker, &args[i]) != 0) {
            fprintf(stderr, "peak_cpu: error: pthread_create failed for thread %d\n", i);
            exit(1);
        }
    }
    for (int i = 0; i < n; i++) pthread_join(tid[i], NULL);
    double end = 0;
    for (int i = 0; i < n; i++) end = j.t_end[i] > end ? j.t_end[i] : end;
    pthread_barrier_destroy(&j.start);
    pthread_mutex_destroy(&j.lock);
    if (j.sink != j.sink) fprintf(stderr, "peak_cpu: warning: accumulators are NaN\n");
    return end - j.t_start;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static peak_rate_t measure(const isa_t *isa, int n, int reps, double seconds)
{
    /* calibrate on one thread: iterations for about `seconds` per repetition */
    int64_t iters = 1 << 16;
    for (;;) {
        double t = timed(isa, 1, iters);
        if (t >= 0.05 || iters > ((int64_t)1 << 40)) {
            iters = (int64_t)((double)iters * seconds / (t > 1e-9 ? t : 1e-9));
            break;
        }
        iters *= 4;
    }
    if (iters < 1) iters = 1;
    double r[MAX_REPS];
    double flops = (double)n * (double)iters * isa->accumulators * isa->lanes * isa->flops_per_lane;
    (void)timed(isa, n, iters / 10 + 1); /* warm-up: clocks up, threads placed */
    for (int i = 0; i < reps; i++) r[i] = flops / timed(isa, n, iters);
    qsort(r, (size_t)reps, sizeof *r, cmp_d);
    peak_rate_t out = {reps % 2 ? r[reps / 2] : 0.5 * (r[reps / 2 - 1] + r[reps / 2]), r[0], r[reps - 1]};
    return out;
}

/* peak_bf16.c's instruction measurement: the bf16 loop on n threads */
static peak_rate_t measure_bf16(int n, int reps, double seconds)
{
    return measure(&bf16_loop, n, reps, seconds);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: peak_cpu [--threads N] [--reps R] [--seconds S] [--isa avx512|avx2|sse] [--no-bf16]\n"
               "  --threads N   threads of the all-cores measurement (default: online CPUs)\n"
               "  --reps R      timed repetitions per measurement, median reported (default 7)\n"
               "  --seconds S   length of one repetition (default 0.2)\n"
               "  --isa NAME    use a narrower vector ISA than the widest detected\n"
               "  --no-bf16     skip the bf16 peak (where oneDNN finds AVX512-BF16 or AMX: a loop\n"
               "                of vdpbf16ps on the same threads, and oneDNN's bf16 matmul; the\n"
               "                peak is the larger, peak_bf16_method names it)\n"
               "exit status: 0 measured, 1 a failure (thread, oneDNN), 2 bad options\n");
}

int main(int argc, char **argv)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = ncpu > 0 ? (int)ncpu : 1, reps = 7, force = -1, bf16 = 1;
    double seconds = 0.2;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(o, "--threads") && v) {
            threads = atoi(v), i++;
        } else if (!strcmp(o, "--reps") && v) {
            reps = atoi(v), i++;
        } else if (!strcmp(o, "--seconds") && v) {
            seconds = atof(v), i++;
        } else if (!strcmp(o, "--no-bf16")) {
            bf16 = 0;
        } else if (!strcmp(o, "--isa") && v) {
            force = !strcmp(v, "avx512") ? 0 : !strcmp(v, "avx2") ? 1 : !strcmp(v, "sse") ? 2 : -2;
            i++;
            if (force == -2) {
                fprintf(stderr, "peak_cpu: error: unknown --isa '%s' (avx512, avx2 or sse)\n", v);
                return 2;
            }
        } else {
            fprintf(stderr, "peak_cpu: error: unknown or incomplete option '%s'\n", o);
            usage(stderr);
            return 2;
        }
    }
    if (threads < 1 || threads > MAX_THREADS || reps < 1 || reps > MAX_REPS || !(seconds > 0)) {
        fprintf(stderr, "peak_cpu: error: need 1 <= threads <= %d, 1 <= reps <= %d, seconds > 0\n",
                MAX_THREADS, MAX_REPS);
        return 2;
    }
    int pick = 0;
    while (!isa_usable(pick)) pick++;
    if (force >= 0) {
        if (force < pick) {
            fprintf(stderr, "peak_cpu: error: this CPU lacks %s\n", isas[force].name);
            return 2;
        }
        pick = force;
    }
    const isa_t *isa = &isas[pick];
    printf("isa: %s\n", isa->name);
    printf("vector_bits: %d\n", isa->bits);
    printf("accumulators: %d\n", isa->accumulators);
    printf("flops_per_iteration: %d\n", isa->accumulators * isa->lanes * isa->flops_per_lane);
    printf("repetitions: %d\n", reps);
    printf("online_cpus: %ld\n", ncpu);
    peak_rate_t one = measure(isa, 1, reps, seconds);
    printf("peak_1thread_flops_per_s: %.4e\n", one.median);
    printf("peak_1thread_min_flops_per_s: %.4e\n", one.min);
    printf("peak_1thread_max_flops_per_s: %.4e\n", one.max);
    peak_rate_t all = threads == 1 ? one : measure(isa, threads, reps, seconds);
    printf("threads: %d\n", threads);
    printf("peak_flops_per_s: %.4e\n", all.median);
    printf("peak_min_flops_per_s: %.4e\n", all.min);
    printf("peak_max_flops_per_s: %.4e\n", all.max);
    printf("peak_per_thread_flops_per_s: %.4e\n", all.median / threads);
    fflush(stdout);
    if (bf16) {
        char what[128];
        snprintf(what, sizeof what, "a loop of %d independent vdpbf16ps zmm (%s), %d FLOPs per iteration",
                 bf16_loop.accumulators, bf16_loop.name,
                 bf16_loop.accumulators * bf16_loop.lanes * bf16_loop.flops_per_lane);
        peak_bf16_print(threads, reps, seconds, peak_bf16_isa_usable() ? measure_bf16 : NULL, what);
    }
    return 0;
}
