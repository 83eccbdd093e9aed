/* Least-squares fits of the model's constants (model.h): the ring model's
 * alpha and beta from an allreduce sweep, and straight lines for the
 * orchestration cycle's cost against ranks. */
#include <math.h>

#include "harness/model/model.h"

/* Two unknowns: minimise sum (a u_i + b v_i - y_i)^2.  Returns -1 when singular. */
static int solve2(const double *u, const double *v, const double *y, size_t n, double *a,
                  double *b)
{
    double suu = 0, svv = 0, suv = 0, suy = 0, svy = 0;
    for (size_t i = 0; i < n; i++) {
        suu += u[i] * u[i], svv += v[i] * v[i], suv += u[i] * v[i];
        suy += u[i] * y[i], svy += v[i] * y[i];
    }
    double det = suu * svv - suv * suv;
    if (!(fabs(det) > 1e-300 * (suu * svv + 1e-300)) || det == 0) return -1;
    *a = (suy * svv - svy * suv) / det;
    *b = (svy * suu - suy * suv) / det;
    return 0;
}

/* one unknown: minimise sum (a u_i - y_i)^2 */
static double solve1(const double *u, const double *y, size_t n)
{
    double suu = 0, suy = 0;
    for (size_t i = 0; i < n; i++) suu += u[i] * u[i], suy += u[i] * y[i];
    return suu > 0 ? suy / suu : 0;
}

/* a u + b v ~ y with a, b >= 0 */
static int fit_nonneg(const double *u, const double *v, const double *y, size_t n, double *a,
                      double *b)
{
    if (solve2(u, v, y, n, a, b) == 0 && *a >= 0 && *b >= 0) return 0;
    double a1 = solve1(u, y, n), b1 = solve1(v, y, n);
    if (a1 < 0) a1 = 0;
    if (b1 < 0) b1 = 0;
    double ea = 0, eb = 0; /* keep whichever single term fits better */
    for (size_t i = 0; i < n; i++) {
        ea += (a1 * u[i] - y[i]) * (a1 * u[i] - y[i]);
        eb += (b1 * v[i] - y[i]) * (b1 * v[i] - y[i]);
    }
    if (ea <= eb) *a = a1, *b = 0;
    else *a = 0, *b = b1;
    return 0;
}

int model_fit_ring(const double *bytes, const int *p, const double *time_s, size_t n,
                   mlink_t *out, double *rms_rel)
{
    double u[4096], v[4096], y[4096];
    size_t m = 0;
    for (size_t i = 0; i < n && m < 4096; i++) {
        if (p[i] < 2 || !(time_s[i] > 0) || !(bytes[i] >= 0)) continue;
        double q = (double)(p[i] - 1) / p[i];
        /* T = 2(p-1) a + 2 q n b, every row divided by its T: relative error */
        u[m] = 2.0 * (p[i] - 1) / time_s[i];
        v[m] = 2 * q * bytes[i] / time_s[i];
        y[m] = 1;
        m++;
    }
    if (m == 0) return -1;
    double a, b;
    if (m == 1) { /* one row: all of it latency unless it carries bytes */
        a = 0, b = 0;
        if (v[0] > 0) b = 1 / v[0];
        else a = 1 / u[0];
    } else {
        fit_nonneg(u, v, y, m, &a, &b);
    }
    out->alpha_s = a, out->beta_s = b, out->gamma_s = 0;
    if (rms_rel) {
        double e = 0;
        for (size_t i = 0; i < m; i++) e += (a * u[i] + b * v[i] - 1) * (a * u[i] + b * v[i] - 1);
        *rms_rel = sqrt(e / (double)m);
    }
    return 0;
}

int model_fit_line(const double *x, const double *y, size_t n, double *c0, double *c1)
{
    if (n == 0) return -1;
    double one[4096];
    size_t m = n < 4096 ? n : 4096;
    int distinct = 0;
    for (size_t i = 0; i < m; i++) {
        one[i] = 1;
        if (x[i] != x[0]) distinct = 1;
    }
    if (!distinct) { /* one x: a line through the origin, or a constant at x = 0 */
        *c0 = *c1 = 0;
        if (x[0] != 0) *c1 = solve1(x, y, m);
        else *c0 = solve1(one, y, m);
        if (*c1 < 0) *c1 = 0;
        if (*c0 < 0) *c0 = 0;
        return 0;
    }
    return fit_nonneg(one, x, y, m, c0, c1);
}
