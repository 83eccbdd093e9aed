#include "benchmarks/cosmoflow/model/un_host.h"

#include <math.h>
#include <string.h>

#define AT(t, s, z, y, x) ((t)->p + ((((int64_t)(s) * (t)->e + (z)) * (t)->e + (y)) * (t)->e + (x)) * (t)->ld)

int64_t un_conv(int mode, const un_t *x, float *w, int k, const un_t *y)
{
    int e = y->e, r = k / 2, ci = x->c, co = y->c;
    if (mode == UN_FWD)
        for (int s = 0; s < y->n; s++)
            for (int z = 0; z < e; z++)
                for (int v = 0; v < e; v++)
                    for (int u = 0; u < e; u++) memset(AT(y, s, z, v, u), 0, sizeof(float) * co);
    for (int s = 0; s < y->n; s++)
        for (int z = 0; z < e; z++)
            for (int v = 0; v < e; v++)
                for (int u = 0; u < e; u++) {
                    float *yo = AT(y, s, z, v, u);
                    for (int a = 0; a < k; a++) {
                        int zi = z + a - r;
                        if (zi < 0 || zi >= e) continue;
                        for (int b = 0; b < k; b++) {
                            int vi = v + b - r;
                            if (vi < 0 || vi >= e) continue;
                            for (int c = 0; c < k; c++) {
                                int ui = u + c - r;
                                if (ui < 0 || ui >= e) continue;
                                float *xi = AT(x, s, zi, vi, ui);
                                float *wk = w + (((int64_t)a * k + b) * k + c) * ci * co;
                                for (int i = 0; i < ci; i++) {
                                    float *wr = wk + (int64_t)i * co;
                                    if (mode == UN_FWD) {
                                        float xv = xi[i];
                                        for (int o = 0; o < co; o++) yo[o] += xv * wr[o];
                                    } else if (mode == UN_BWD_DATA) {
                                        float acc = 0;
                                        for (int o = 0; o < co; o++) acc += yo[o] * wr[o];
                                        xi[i] += acc;
                                    } else {
                                        float xv = xi[i];
                                        for (int o = 0; o < co; o++) wr[o] += xv * yo[o];
                                    }
                                }
                            }
                        }
                    }
                }
    /* padding taps included, as flops.h counts a 'same' convolution */
    return 2LL * k * k * k * ci * co * y->n * (int64_t)e * e * e;
}

int64_t un_tconv(int mode, const un_t *x, float *w, const un_t *y)
{
    int e = x->e, ci = x->c, co = y->c;
    for (int s = 0; s < x->n; s++)
        for (int z = 0; z < e; z++)
            for (int v = 0; v < e; v++)
                for (int u = 0; u < e; u++) {
                    float *xi = AT(x, s, z, v, u);
                    for (int q = 0; q < 8; q++) {
                        float *yo = AT(y, s, 2 * z + (q >> 2), 2 * v + ((q >> 1) & 1), 2 * u + (q & 1));
                        float *wk = w + (int64_t)q * ci * co;
                        if (mode == UN_FWD) memset(yo, 0, sizeof(float) * co);
                        for (int i = 0; i < ci; i++) {
                            float *wr = wk + (int64_t)i * co;
                            if (mode == UN_FWD) {
                                for (int o = 0; o < co; o++) yo[o] += xi[i] * wr[o];
                            } else if (mode == UN_BWD_DATA) {
                                float acc = 0;
                                for (int o = 0; o < co; o++) acc += yo[o] * wr[o];
                                xi[i] += acc;
                            } else {
                                for (int o = 0; o < co; o++) wr[o] += xi[i] * yo[o];
                            }
                        }
                    }
                }
    return 2LL * 8 * ci * co * x->n * (int64_t)e * e * e;
}

static int64_t voxels(const un_t *t) { return (int64_t)t->n * t->e * t->e * t->e; }

int64_t un_bnrelu_fwd(const un_t *z, const float *g, const float *b, float *m, float *s,
                      const un_t *a)
{
    int64_t nv = voxels(z);
    for (int c = 0; c < z->c; c++) {
        double sum = 0, sq = 0;
        for (int64_t i = 0; i < nv; i++) sum += z->p[i * z->ld + c];
        double mean = sum / (double)nv;
        for (int64_t i = 0; i < nv; i++) {
            double d = z->p[i * z->ld + c] - mean;
            sq += d * d;
        }
        m[c] = (float)mean;
        s[c] = (float)(1.0 / sqrt(sq / (double)nv + 1e-5));
        for (int64_t i = 0; i < nv; i++) {
            float v = g[c] * (z->p[i * z->ld + c] - m[c]) * s[c] + b[c];
            a->p[i * a->ld + c] = v > 0 ? v : 0;
        }
    }
    return 8 * nv * z->c;
}

int64_t un_bnrelu_bwd(const un_t *z, const float *g, const float *b, const float *m,
                      const float *s, const un_t *a, const un_t *da, const un_t *dz, float *dg,
                      float *db)
{
    (void)b;
    int64_t nv = voxels(z);
    for (int c = 0; c < z->c; c++) {
        /* dy: the gradient at the BN's output (ReLU passed) */
        double sdy = 0, sdyx = 0;
        for (int64_t i = 0; i < nv; i++) {
            if (a->p[i * a->ld + c] <= 0) continue;
            double dy = da->p[i * da->ld + c], xh = (z->p[i * z->ld + c] - m[c]) * s[c];
            sdy += dy, sdyx += dy * xh;
        }
        dg[c] += (float)sdyx, db[c] += (float)sdy;
        double k1 = sdy / (double)nv, k2 = sdyx / (double)nv;
        for (int64_t i = 0; i < nv; i++) {
            double dy = a->p[i * a->ld + c] > 0 ? da->p[i * da->ld + c] : 0;
            double xh = (z->p[i * z->ld + c] - m[c]) * s[c];
            dz->p[i * dz->ld + c] = (float)(g[c] * s[c] * (dy - k1 - xh * k2));
        }
    }
    return 12 * nv * z->c;
}

int64_t un_pool_fwd(const un_t *x, const un_t *y)
{
    int e = y->e;
    for (int s = 0; s < y->n; s++)
        for (int z = 0; z < e; z++)
            for (int v = 0; v < e; v++)
                for (int u = 0; u < e; u++)
                    for (int c = 0; c < y->c; c++) {
                        float mx = -INFINITY;
                        for (int q = 0; q < 8; q++) {
                            float t = AT(x, s, 2 * z + (q >> 2), 2 * v + ((q >> 1) & 1),
                                         2 * u + (q & 1))[c];
                            if (t > mx) mx = t;
                        }
                        AT(y, s, z, v, u)[c] = mx;
                    }
    return 7 * voxels(y) * y->c;
}

int64_t un_pool_bwd(const un_t *x, const un_t *dy, const un_t *dx)
{
    int e = dy->e;
    for (int s = 0; s < dy->n; s++)
        for (int z = 0; z < e; z++)
            for (int v = 0; v < e; v++)
                for (int u = 0; u < e; u++)
                    for (int c = 0; c < dy->c; c++) {
                        int best = 0;
                        float mx = -INFINITY;
                        for (int q = 0; q < 8; q++) {
                            float t = AT(x, s, 2 * z + (q >> 2), 2 * v + ((q >> 1) & 1),
                                         2 * u + (q & 1))[c];
                            if (t > mx) mx = t, best = q;
                        }
                        AT(dx, s, 2 * z + (best >> 2), 2 * v + ((best >> 1) & 1),
                           2 * u + (best & 1))[c] += AT(dy, s, z, v, u)[c];
                    }
    return voxels(dy) * dy->c;
}

double un_xent(const un_t *z, const uint8_t *label, const un_t *dz, int64_t *flops)
{
    int64_t nv = voxels(z);
    double loss = 0;
    for (int64_t i = 0; i < nv; i++) {
        const float *zi = z->p + i * z->ld;
        float *di = dz->p + i * dz->ld;
        float mx = zi[0];
        for (int c = 1; c < z->c; c++) mx = zi[c] > mx ? zi[c] : mx;
        double sum = 0;
        for (int c = 0; c < z->c; c++) sum += exp((double)(zi[c] - mx));
        loss += log(sum) - (double)(zi[label[i]] - mx);
        for (int c = 0; c < z->c; c++)
            di[c] = (float)((exp((double)(zi[c] - mx)) / sum - (c == label[i])) / (double)nv);
    }
    *flops = 6 * nv * z->c;
    return loss / (double)nv;
}
