#include "benchmarks/networks/fcdensenet/data.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/rng.h"

#define STREAM_DATA 0x44415441ULL   /* "DATA": keeps data and weight streams apart */
#define STREAM_GEOM 0x47454f4dULL   /* "GEOM" */

typedef struct {
    float x, y, z;
} atom_t;

/* Atoms of one sample: a square lattice of spacing a, rotated and shifted at
 * random, each site jittered, 10% vacancies, Z uniform in [0.5, 1.5]. */
static int make_atoms(rng_t *r, int h, int w, double a, atom_t **out)
{
    double theta = 6.283185307179586 * rng_uniform(r);
    double ct = cos(theta), st = sin(theta);
    double ox = a * rng_uniform(r), oy = a * rng_uniform(r);
    int reach = (int)ceil(sqrt((double)h * h + (double)w * w) / a) + 1;
    int cap = (2 * reach + 1) * (2 * reach + 1), n = 0;
    atom_t *at = XMALLOC((size_t)cap * sizeof *at, "atoms");
    for (int i = -reach; i <= reach; i++)
        for (int j = -reach; j <= reach; j++) {
            double u = i * a + ox + 0.15 * a * (2 * rng_uniform(r) - 1);
            double v = j * a + oy + 0.15 * a * (2 * rng_uniform(r) - 1);
            double x = 0.5 * w + ct * u - st * v, y = 0.5 * h + st * u + ct * v;
            double vacancy = rng_uniform(r), z = 0.5 + rng_uniform(r);
            if (vacancy < 0.1 || x < -a || y < -a || x > w + a || y > h + a) continue;
            at[n].x = (float)x, at[n].y = (float)y, at[n].z = (float)z;
            n++;
        }
    *out = at;
    return n;
}

/* Add amp * f(distance) around (cx, cy) within radius rad; disk when gauss == 0. */
static void splat(float *img, int h, int w, double cx, double cy, double rad, double amp,
                  double sigma, int gauss)
{
    int y0 = (int)floor(cy - rad), y1 = (int)ceil(cy + rad);
    int x0 = (int)floor(cx - rad), x1 = (int)ceil(cx + rad);
    if (y0 < 0) y0 = 0;
    if (x0 < 0) x0 = 0;
    if (y1 > h - 1) y1 = h - 1;
    if (x1 > w - 1) x1 = w - 1;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            double d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
            if (d2 > rad * rad) continue;
            img[(size_t)y * w + x] += (float)(gauss ? amp * exp(-d2 / (2 * sigma * sigma)) : amp);
        }
}

void data_generate(const cfg_t *c, uint64_t seed, int64_t step, int64_t first_sample, int batch,
                   float *input, float *target)
{
    int h = c->height, w = c->width;
    int side = h < w ? h : w;
    double a = side / 16.0; /* lattice spacing: about 16 atoms across the image */
    if (a < 4) a = 4;
    if (a > 16) a = 16;
    double sigma = 0.2 * a;
    size_t plane = (size_t)h * w;
    for (int s = 0; s < batch; s++) {
        rng_t r = rng_stream(seed, STREAM_DATA, (uint64_t)step, (uint64_t)(first_sample + s));
        atom_t *atoms;
        int na = make_atoms(&r, h, w, a, &atoms);
        float *tg = target + (size_t)s * c->c_out * plane;
        memset(tg, 0, (size_t)c->c_out * plane * sizeof *tg);
        for (int o = 0; o < c->c_out; o++) {
            double so = sigma * (1.0 + 0.5 * o);
            for (int k = 0; k < na; k++)
                splat(tg + o * plane, h, w, atoms[k].x, atoms[k].y, 3 * so, atoms[k].z, so, 1);
        }
        float *in = input + (size_t)s * c->c_in * plane;
        for (int ch = 0; ch < c->c_in; ch++) {
            /* the channel's geometry: the same for every sample and step */
            rng_t g = rng_stream(seed, STREAM_GEOM, (uint64_t)ch, 0);
            double rad = sigma * (0.75 + 1.5 * rng_uniform(&g));
            double dx = 0.25 * a * (2 * rng_uniform(&g) - 1), dy = 0.25 * a * (2 * rng_uniform(&g) - 1);
            double gamma = 0.5 + 1.5 * rng_uniform(&g);
            float *img = in + (size_t)ch * plane;
            /* detector noise, uniform with standard deviation 0.02 (cheaper than normal) */
            for (size_t i = 0; i < plane; i++) img[i] = (float)(0.0693 * (rng_uniform(&r) - 0.5));
            for (int k = 0; k < na; k++)
                splat(img, h, w, atoms[k].x + dx, atoms[k].y + dy, rad, pow(atoms[k].z, gamma), 0, 0);
        }
        free(atoms);
    }
}
