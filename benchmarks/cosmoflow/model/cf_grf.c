#include "benchmarks/cosmoflow/model/cf_grf.h"

#include <math.h>
#include <stdlib.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/rng.h"

#define GRF_MODES 24

void cf_grf_box(int D, int C, int T, uint64_t seed, int split, int64_t index, const int o[3],
                const int e[3], float *input, float *target)
{
    rng_t r = rng_stream(seed, 0x6A7F, (uint64_t)split, (uint64_t)index);
    double t[4] = {0, 0, 0, 0};
    for (int j = 0; j < T; j++) {
        double v = 2 * rng_uniform(&r) - 1;
        target[j] = j < 4 ? (float)v : 0.0f;
        if (j < 4) t[j] = v;
    }
    double sigma = pow(2.0, t[0]), slope = 2 + t[1];
    int K = D / 4 > 1 ? D / 4 : 1;
    int k[GRF_MODES][3];
    double amp[GRF_MODES], phase[GRF_MODES], norm = 0;
    for (int m = 0; m < GRF_MODES; m++) {
        do
            for (int a = 0; a < 3; a++) k[m][a] = (int)(rng_uniform(&r) * (2 * K + 1)) - K;
        while (k[m][0] == 0 && k[m][1] == 0 && k[m][2] == 0);
        double kk = sqrt((double)k[m][0] * k[m][0] + (double)k[m][1] * k[m][1] +
                         (double)k[m][2] * k[m][2]);
        amp[m] = pow(kk, -slope / 2) * rng_normal(&r);
        phase[m] = 2 * M_PI * rng_uniform(&r);
        norm += amp[m] * amp[m] / 2;
    }
    /* the field's variance is sum amp^2 / 2 over the modes: scaled to sigma^2 */
    double scale = sigma / sqrt(norm > 0 ? norm : 1);
    /* cos(kz z + ky y + kx x + phase) as Re(a(z, y) * b(x)), per mode */
    double *bx = XMALLOC((size_t)GRF_MODES * e[2] * 2 * sizeof *bx, "GRF tables");
    for (int m = 0; m < GRF_MODES; m++)
        for (int x = 0; x < e[2]; x++) {
            double a = 2 * M_PI * k[m][2] * (o[2] + x) / D;
            bx[(m * e[2] + x) * 2] = cos(a), bx[(m * e[2] + x) * 2 + 1] = sin(a);
        }
    double gain[64];
    for (int c = 0; c < C && c < 64; c++)
        gain[c] = 1 + t[2] * (C > 1 ? (double)c / (C - 1) - 0.5 : 0);
    size_t i = 0;
    for (int z = 0; z < e[0]; z++)
        for (int y = 0; y < e[1]; y++) {
            double ar[GRF_MODES], ai[GRF_MODES];
            for (int m = 0; m < GRF_MODES; m++) {
                double a = 2 * M_PI * (k[m][0] * (o[0] + z) + k[m][1] * (o[1] + y)) / D + phase[m];
                ar[m] = amp[m] * scale * cos(a), ai[m] = amp[m] * scale * sin(a);
            }
            for (int x = 0; x < e[2]; x++) {
                double f = 0;
                for (int m = 0; m < GRF_MODES; m++) {
                    const double *b = &bx[(m * e[2] + x) * 2];
                    f += ar[m] * b[0] - ai[m] * b[1];
                }
                for (int c = 0; c < C; c++) input[i++] = (float)(f * gain[c < 64 ? c : 63] + t[3] / 2);
            }
        }
    free(bx);
}
