/* The climate workload's synthetic data (benchmarks/networks/deepcam/cl_data.c):
 *  - deterministic: the same (seed, step, samples) give bit-identical
 *    inputs and masks; a sample generated inside a batch equals the same
 *    sample generated alone (what lets R ranks of batch b see the samples
 *    one rank of batch R b sees); another seed, step or sample differs;
 *  - a learnable signal: every sample has blob pixels, background is the
 *    majority class, bands appear in some samples, and channel 0's mean over
 *    each class is apart from the others by more than the noise's spread
 *    (uniform in [-0.5, 0.5): standard deviation 0.29);
 *  - masks are classes 0, 1, 2 only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/networks/deepcam/cl_data.h"
#include "tests/unit/tap.h"

static const cl_data_shape S = {.channels = 4, .h = 48, .w = 72, .max_blobs = 3, .max_bands = 2};
enum { BATCH = 6 };

static float *in_a, *in_b, *tg_a, *tg_b;
static size_t per_in, per_tg;

static void test_deterministic(void)
{
    cl_data_generate(&S, 7, 3, 10, BATCH, in_a, tg_a);
    cl_data_generate(&S, 7, 3, 10, BATCH, in_b, tg_b);
    T_ASSERT(!memcmp(in_a, in_b, BATCH * per_in * sizeof *in_a) &&
                 !memcmp(tg_a, tg_b, BATCH * per_tg * sizeof *tg_a),
             "two generations of the same samples differ");
    /* sample 10 + i alone equals sample i of the batch */
    for (int i = 0; i < BATCH; i++) {
        cl_data_generate(&S, 7, 3, 10 + i, 1, in_b, tg_b);
        T_ASSERT(!memcmp(in_a + i * per_in, in_b, per_in * sizeof *in_a) &&
                     !memcmp(tg_a + i * per_tg, tg_b, per_tg * sizeof *tg_a),
                 "sample %d alone differs from the same sample in a batch", 10 + i);
    }
    uint64_t seeds[3][3] = {{8, 3, 10}, {7, 4, 10}, {7, 3, 11}};
    for (int k = 0; k < 3; k++) {
        cl_data_generate(&S, seeds[k][0], (int64_t)seeds[k][1], (int64_t)seeds[k][2], 1, in_b,
                         tg_b);
        T_ASSERT(memcmp(in_a, in_b, per_in * sizeof *in_a),
                 "seed %llu step %llu sample %llu gives the input of seed 7 step 3 sample 10",
                 (unsigned long long)seeds[k][0], (unsigned long long)seeds[k][1],
                 (unsigned long long)seeds[k][2]);
    }
}

static void test_signal(void)
{
    enum { N = 32 };
    float *in = malloc(N * per_in * sizeof *in), *tg = malloc(N * per_tg * sizeof *tg);
    T_ASSERT(in && tg, "out of memory");
    cl_data_generate(&S, 1, 0, 0, N, in, tg);
    double count[3] = {0}, sum0[3] = {0};
    int with_band = 0;
    for (int i = 0; i < N; i++) {
        int blob = 0, band = 0;
        for (size_t p = 0; p < per_tg; p++) {
            float t = tg[i * per_tg + p];
            T_ASSERT(t == 0.0f || t == 1.0f || t == 2.0f, "sample %d pixel %zu: class %g", i, p,
                     (double)t);
            int c = (int)t;
            count[c]++;
            sum0[c] += in[i * per_in + p]; /* channel 0 */
            blob |= c == 1, band |= c == 2;
        }
        T_ASSERT(blob, "sample %d has no blob pixel", i);
        with_band += band;
    }
    free(in);
    free(tg);
    double total = count[0] + count[1] + count[2];
    T_ASSERT(count[0] > 0.5 * total, "background is %.1f%% of the pixels", 100 * count[0] / total);
    T_ASSERT(with_band > 0 && with_band < N, "%d of %d samples have a band", with_band, N);
    double m[3];
    for (int c = 0; c < 3; c++)
        m[c] = sum0[c] / count[c];
    T_ASSERT(fabs(m[1] - m[0]) > 0.5 && fabs(m[2] - m[0]) > 0.5 && fabs(m[1] - m[2]) > 0.2,
             "channel 0 means by class %.3f %.3f %.3f are not apart", m[0], m[1], m[2]);
    printf("# classes: %.1f%% background, %.1f%% blob, %.1f%% band; channel-0 means %.3f %.3f "
           "%.3f\n",
           100 * count[0] / total, 100 * count[1] / total, 100 * count[2] / total, m[0], m[1],
           m[2]);
}

int main(void)
{
    per_in = (size_t)S.channels * S.h * S.w;
    per_tg = (size_t)S.h * S.w;
    in_a = malloc(BATCH * per_in * sizeof *in_a);
    in_b = malloc(BATCH * per_in * sizeof *in_b);
    tg_a = malloc(BATCH * per_tg * sizeof *tg_a);
    tg_b = malloc(BATCH * per_tg * sizeof *tg_b);
    if (!in_a || !in_b || !tg_a || !tg_b)
        return 1;
    T_RUN(test_deterministic);
    T_RUN(test_signal);
    free(in_a);
    free(in_b);
    free(tg_a);
    free(tg_b);
    T_DONE();
}
