/* The synthetic climate samples (cl_data.h).  Per sample, from a stream
 * keyed by (seed, step, sample):
 *   - 1 .. max_blobs discs, centre uniform, radius in [h/16, h/8] (at least
 *     2 pixels): class 1;
 *   - 0 .. max_bands straight bands across the image, through a uniform
 *     point at a uniform angle, half-width in [h/32, h/16] (at least 1):
 *     class 2 where no disc is;
 *   - channel c of pixel p: uniform noise in [-0.5, 0.5) from a hash of
 *     (sample stream, p, c), plus the class's signature on that channel
 *     (blob: +1 on even channels, -0.5 on odd ones; band: +0.75 on every
 *     third channel, +0.25 elsewhere; background: 0).
 * The signature is larger than the noise, so a network can learn the masks
 * and the loss falls; the classes are unbalanced as in DeepCAM (background
 * is most pixels), which is what the class weights of the loss are for. */
#include "benchmarks/networks/deepcam/cl_data.h"

#include <math.h>
#include <stddef.h>

#include "benchmarks/common/rng.h"

enum { MAX_SHAPES = 16 };

typedef struct {
    double cy, cx, r2;         /* discs: centre, radius squared */
    double py, px, ny, nx, hw; /* bands: a point, the unit normal, half-width */
} shape_t;

static double span(rng_t *r, double lo, double hi) { return lo + (hi - lo) * rng_uniform(r); }

static int label_of(const shape_t *disc, int nd, const shape_t *band, int nb, int y, int x)
{
    for (int i = 0; i < nd; i++) {
        double dy = y - disc[i].cy, dx = x - disc[i].cx;
        if (dy * dy + dx * dx < disc[i].r2)
            return 1;
    }
    for (int i = 0; i < nb; i++)
        if (fabs((y - band[i].py) * band[i].ny + (x - band[i].px) * band[i].nx) < band[i].hw)
            return 2;
    return 0;
}

static float signature(int cls, int c)
{
    if (cls == 1)
        return c % 2 ? -0.5f : 1.0f;
    if (cls == 2)
        return c % 3 ? 0.25f : 0.75f;
    return 0.0f;
}

static void one_sample(const cl_data_shape *s, uint64_t seed, int64_t step, int64_t g, float *in,
                       float *tg)
{
    rng_t r = rng_stream(seed, 0x434c494dULL /* "CLIM" */, (uint64_t)step, (uint64_t)g);
    int maxb = s->max_blobs < 1 ? 1 : s->max_blobs > MAX_SHAPES ? MAX_SHAPES : s->max_blobs;
    int maxr = s->max_bands < 0 ? 0 : s->max_bands > MAX_SHAPES ? MAX_SHAPES : s->max_bands;
    int nd = 1 + (int)(rng_next(&r) % (uint64_t)maxb),
        nb = (int)(rng_next(&r) % (uint64_t)(maxr + 1));
    shape_t disc[MAX_SHAPES], band[MAX_SHAPES];
    double rmin = fmax(2.0, s->h / 16.0), rmax = fmax(rmin, s->h / 8.0);
    double wmin = fmax(1.0, s->h / 32.0), wmax = fmax(wmin, s->h / 16.0);
    for (int i = 0; i < nd; i++) {
        double rad = span(&r, rmin, rmax);
        disc[i].cy = span(&r, 0, s->h), disc[i].cx = span(&r, 0, s->w), disc[i].r2 = rad * rad;
    }
    for (int i = 0; i < nb; i++) {
        double th = span(&r, 0, 3.141592653589793);
        band[i].py = span(&r, 0, s->h), band[i].px = span(&r, 0, s->w);
        band[i].ny = cos(th), band[i].nx = sin(th), band[i].hw = span(&r, wmin, wmax);
    }
    uint64_t key = rng_next(&r);
    size_t hw = (size_t)s->h * (size_t)s->w;
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++) {
            size_t p = (size_t)y * (size_t)s->w + (size_t)x;
            int cls = label_of(disc, nd, band, nb, y, x);
            tg[p] = (float)cls;
            for (int c = 0; c < s->channels; c++) {
                uint64_t h = rng_mix(key ^ ((uint64_t)p * (uint64_t)s->channels + (uint64_t)c));
                float noise = (float)((double)(h >> 11) * 0x1.0p-53 - 0.5);
                in[(size_t)c * hw + p] = noise + signature(cls, c);
            }
        }
}

void cl_data_generate(const cl_data_shape *s, uint64_t seed, int64_t step, int64_t first, int batch,
                      float *input, float *target)
{
    size_t hw = (size_t)s->h * (size_t)s->w, per = (size_t)s->channels * hw;
    for (int i = 0; i < batch; i++)
        one_sample(s, seed, step, first + i, input + (size_t)i * per, target + (size_t)i * hw);
}
