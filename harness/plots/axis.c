/* Axis lines of gnuplot scripts, chosen from the data (axis.h). */
#define _GNU_SOURCE
#include "harness/plots/axis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define AXIS_MAX_TICS 9
#define AXIS_MAX_BYTE_TICS 12 /* 8 B to 16 MiB: every 4x */

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

const char *axis_ranks(arena_t *a, const int *r, size_t n)
{
    int *v = ar_alloc(a, (n + 1) * sizeof *v);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i] > 0) v[m++] = r[i];
    if (!m) return "";
    qsort(v, m, sizeof *v, cmp_int);
    size_t u = 1; /* distinct */
    for (size_t i = 1; i < m; i++)
        if (v[i] != v[u - 1]) v[u++] = v[i];
    int lo = v[0], hi = v[u - 1];
    int logx = hi > 8 * lo;
    sb_t b = {0};
    if (logx)
        sb_printf(&b, "set logscale x 2\nset xrange [%g:%g]\n", lo / 1.25, hi * 1.25);
    else {
        double pad = (hi - lo) * 0.06 > 0.25 ? (hi - lo) * 0.06 : 0.25;
        sb_printf(&b, "set xrange [%g:%g]\n", lo - pad, hi + pad);
    }
    /* every scale a tick while they fit; else every k-th, the largest kept */
    size_t step = (u + AXIS_MAX_TICS * 2 - 1) / (AXIS_MAX_TICS * 2);
    if (step < 1) step = 1;
    sb_puts(&b, "set xtics (");
    size_t k = 0;
    for (size_t i = 0; i < u; i++)
        if (i % step == 0 || i == u - 1) sb_printf(&b, "%s%d", k++ ? ", " : "", v[i]);
    sb_puts(&b, ")\nunset mxtics\n");
    char *s = ar_strdup(a, sb_str(&b));
    sb_free(&b);
    return s;
}

/* x rounded away from zero (up when dir > 0, down when < 0) to a multiple of q */
static double round_to(double x, double q, int dir)
{
    double k = x / q;
    double r = (dir > 0 ? ceil(k - 1e-9) : floor(k + 1e-9)) * q;
    /* %g prints six digits: never a printed edge inside the data */
    return dir > 0 ? (r < x ? x : r) : (r > x ? x : r);
}

const char *axis_yfit(arena_t *a, const double *v, size_t n, double lo, double hi)
{
    double dlo = lo, dhi = hi;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i])) continue;
        if (v[i] < dlo) dlo = v[i];
        if (v[i] > dhi) dhi = v[i];
    }
    double span = dhi - dlo > 0 ? dhi - dlo : fabs(dhi) > 0 ? fabs(dhi) : 1;
    double q = pow(10, floor(log10(span)) - 1); /* two significant digits of the span */
    if (dhi > hi) dhi = round_to(dhi + 0.04 * span, q, 1);
    if (dlo < lo) dlo = round_to(dlo - 0.04 * span, q, -1);
    return ar_printf(a, "set yrange [%.10g:%.10g]\n", dlo, dhi);
}

void axis_bytes_label(double bytes, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int e;
    double f = frexp(bytes, &e); /* a power of two: f == 0.5 */
    if (!(bytes >= 1) || f != 0.5 || e - 1 >= 60) {
        snprintf(buf, len, "%.0f B", bytes);
        return;
    }
    int p = e - 1, u = p / 10;
    snprintf(buf, len, "%.0f %s", ldexp(1, p - 10 * u), unit[u]);
}

const char *axis_bytes(arena_t *a, double lo, double hi)
{
    if (!(lo > 0) || !(hi >= lo) || !isfinite(hi)) return "set logscale x 2\n";
    int e0 = (int)floor(log2(lo) + 1e-9), e1 = (int)ceil(log2(hi) - 1e-9);
    if (e0 < 0) e0 = 0;
    if (e1 > 62) e1 = 62;
    if (e1 < e0) e1 = e0;
    int span = e1 - e0, step = 1;
    while (span / step + 1 > AXIS_MAX_BYTE_TICS) step++;
    /* whole binary units (2^10 apart) line up when the step divides 10 */
    while (step < 10 && 10 % step) step++;
    e0 -= e0 % step;
    sb_t b = {0};
    sb_printf(&b, "set logscale x 2\nset xrange [%.17g:%.17g]\nset xtics (", lo / 1.4, hi * 1.4);
    for (int e = e0, k = 0; e <= e1 + step - 1; e += step) {
        double x = ldexp(1, e);
        if (x < lo / 1.4 || x > hi * 1.4) continue;
        char l[32];
        axis_bytes_label(x, l, sizeof l);
        sb_printf(&b, "%s\"%s\" %.17g", k++ ? ", " : "", l, x);
    }
    sb_puts(&b, ")\nunset mxtics\n");
    char *s = ar_strdup(a, sb_str(&b));
    sb_free(&b);
    return s;
}

const char *axis_si(double top, double *div)
{
    static const char *const pre[] = {"", "k", "M", "G", "T", "P", "E"};
    int k = 0;
    if (isfinite(top))
        while (k < 6 && top >= 1000 * pow(10, 3 * k)) k++;
    *div = pow(10, 3 * k);
    return pre[k];
}
