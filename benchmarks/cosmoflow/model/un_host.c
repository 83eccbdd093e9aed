#include "benchmarks/cosmoflow/model/un_host.h"

#include <math.h>
#include <string.h>

#include "benchmarks/common/mpi/comm.h"

#define AT(t, s, z, y, x) ((t)->p + ((((int64_t)(s) * (t)->d + (z)) * (t)->e + (y)) * (t)->e + (x)) * (t)->ld)

/* Sum n doubles over comm in place (nothing alone). */
static void allsum(double *v, int n, MPI_Comm comm)
{
    if (comm != MPI_COMM_NULL) CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, comm));
}

int64_t un_conv(int mode, const un_t *x, float *w, int k, const un_t *y)
{
    int e = y->e, d = y->d, r = k / 2, ci = x->c, co = y->c, zoff = (x->d - y->d) / 2;
    if (mode == UN_FWD)
        for (int s = 0; s < y->n; s++)
            for (int z = 0; z < d; z++)
                for (int v = 0; v < e; v++)
                    for (int u = 0; u < e; u++) memset(AT(y, s, z, v, u), 0, sizeof(float) * co);
    for (int s = 0; s < y->n; s++)
        for (int z = 0; z < d; z++)
            for (int v = 0; v < e; v++)
                for (int u = 0; u < e; u++) {
                    float *yo = AT(y, s, z, v, u);
                    for (int a = 0; a < k; a++) {
                        int zi = z + a - r + zoff;
                        if (zi < 0 || zi >= x->d) continue;
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
    return 2LL * k * k * k * ci * co * y->n * (int64_t)d * e * e;
}

int64_t un_tconv(int mode, const un_t *x, float *w, const un_t *y)
{
    int e = x->e, ci = x->c, co = y->c;
    for (int s = 0; s < x->n; s++)
        for (int z = 0; z < x->d; z++)
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
    return 2LL * 8 * ci * co * x->n * (int64_t)x->d * e * e;
}

static int64_t voxels(const un_t *t) { return (int64_t)t->n * t->d * t->e * t->e; }

int64_t un_bnrelu_fwd(const un_t *z, const float *g, const float *b, float *m, float *s,
                      const un_t *a, MPI_Comm comm, double *sum)
{
    int64_t nv = voxels(z);
    int C = z->c;
    /* the statistics over the whole sample: sums, then squared deviations,
     * each summed over the ranks that split it */
    sum[C] = (double)nv;
    for (int c = 0; c < C; c++) {
        sum[c] = 0;
        for (int64_t i = 0; i < nv; i++) sum[c] += z->p[i * z->ld + c];
    }
    allsum(sum, C + 1, comm);
    double nall = sum[C];
    for (int c = 0; c < C; c++) m[c] = (float)(sum[c] / nall);
    for (int c = 0; c < C; c++) {
        sum[c] = 0;
        for (int64_t i = 0; i < nv; i++) {
            double dv = z->p[i * z->ld + c] - m[c];
            sum[c] += dv * dv;
        }
    }
    allsum(sum, C, comm);
    for (int c = 0; c < C; c++) {
        s[c] = (float)(1.0 / sqrt(sum[c] / nall + 1e-5));
        for (int64_t i = 0; i < nv; i++) {
            float v = g[c] * (z->p[i * z->ld + c] - m[c]) * s[c] + b[c];
            a->p[i * a->ld + c] = v > 0 ? v : 0;
        }
    }
    return 8 * nv * C;
}

int64_t un_bnrelu_bwd(const un_t *z, const float *g, const float *m, const float *s,
                      const un_t *a, const un_t *da, const un_t *dz, float *dg, float *db,
                      MPI_Comm comm, double *sum)
{
    int64_t nv = voxels(z);
    int C = z->c;
    /* dy: the gradient at the BN's output (ReLU passed); sums of dy and
     * dy * xhat, this rank's into dg, db, all ranks' for dz */
    for (int c = 0; c < C; c++) {
        double sdy = 0, sdyx = 0;
        for (int64_t i = 0; i < nv; i++) {
            if (a->p[i * a->ld + c] <= 0) continue;
            double dy = da->p[i * da->ld + c], xh = (z->p[i * z->ld + c] - m[c]) * s[c];
            sdy += dy, sdyx += dy * xh;
        }
        dg[c] += (float)sdyx, db[c] += (float)sdy;
        sum[c] = sdy, sum[C + c] = sdyx;
    }
    sum[2 * C] = (double)nv;
    allsum(sum, 2 * C + 1, comm);
    double nall = sum[2 * C];
    for (int c = 0; c < C; c++) {
        double k1 = sum[c] / nall, k2 = sum[C + c] / nall;
        for (int64_t i = 0; i < nv; i++) {
            double dy = a->p[i * a->ld + c] > 0 ? da->p[i * da->ld + c] : 0;
            double xh = (z->p[i * z->ld + c] - m[c]) * s[c];
            dz->p[i * dz->ld + c] = (float)(g[c] * s[c] * (dy - k1 - xh * k2));
        }
    }
    return 12 * nv * C;
}

int64_t un_pool_fwd(const un_t *x, const un_t *y)
{
    int e = y->e;
    for (int s = 0; s < y->n; s++)
        for (int z = 0; z < y->d; z++)
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
        for (int z = 0; z < dy->d; z++)
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

double un_xent(const un_t *z, const uint8_t *label, const un_t *dz, MPI_Comm comm,
               int64_t *flops)
{
    int64_t nv = voxels(z);
    double tot[2] = {0, (double)nv};
    allsum(tot + 1, 1, comm);
    double nall = tot[1], loss = 0;
    for (int64_t i = 0; i < nv; i++) {
        const float *zi = z->p + i * z->ld;
        float *di = dz->p + i * dz->ld;
        float mx = zi[0];
        for (int c = 1; c < z->c; c++) mx = zi[c] > mx ? zi[c] : mx;
        double sum = 0;
        for (int c = 0; c < z->c; c++) sum += exp((double)(zi[c] - mx));
        loss += log(sum) - (double)(zi[label[i]] - mx);
        for (int c = 0; c < z->c; c++)
            di[c] = (float)((exp((double)(zi[c] - mx)) / sum - (c == label[i])) / nall);
    }
    *flops = 6 * nv * z->c;
    tot[0] = loss;
    allsum(tot, 1, comm);
    return tot[0] / nall;
}
