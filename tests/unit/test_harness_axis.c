/* The axis lines of the report's figures (harness/plots/axis.h, issue 27):
 * rank ticks are the integer scales run, the y range holds every CI bound,
 * message sizes tick at powers of two in binary units, rates take one SI
 * prefix, and nothing asks gnuplot for a %f-style label. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/plots/axis.h"
#include "tests/unit/tap.h"

static arena_t *A;

/* the numbers of "set xtics (a, b, ...)" or of its "label" x pairs */
static size_t tics(const char *gp, double *out, size_t cap)
{
    const char *p = strstr(gp, "set xtics (");
    T_ASSERT(p, "no explicit xtics in:\n%s", gp);
    p += strlen("set xtics (");
    size_t n = 0;
    while (*p && *p != ')' && n < cap) {
        if (*p == '"') p = strchr(p + 1, '"') + 1; /* a label */
        char *end;
        double v = strtod(p, &end);
        T_ASSERT(end != p, "unreadable tick at '%s'", p);
        out[n++] = v;
        p = end;
        while (*p == ',' || *p == ' ') p++;
    }
    return n;
}

static void test_ranks_integer_ticks(void)
{
    int r[] = {2, 1, 2, 1, 1};
    const char *gp = axis_ranks(A, r, 5);
    double t[16];
    size_t n = tics(gp, t, 16);
    T_ASSERT(n == 2 && t[0] == 1 && t[1] == 2, "ticks of 1,2: %s", gp);
    T_ASSERT(strstr(gp, "unset mxtics"), "minor ticks would fall between ranks: %s", gp);
    /* padded: no point on the border */
    double lo, hi;
    T_ASSERT(sscanf(strstr(gp, "set xrange"), "set xrange [%lf:%lf]", &lo, &hi) == 2, "%s", gp);
    T_ASSERT(lo < 1 && hi > 2, "range [%g, %g] puts a point on the border", lo, hi);
    int big[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
    gp = axis_ranks(A, big, 11);
    T_ASSERT(strstr(gp, "set logscale x 2"), "1..1024 on a linear axis: %s", gp);
    n = tics(gp, t, 16);
    for (size_t i = 0; i < n; i++) T_ASSERT(t[i] == floor(t[i]), "tick %g", t[i]);
    T_ASSERT(t[n - 1] == 1024, "the largest scale is a tick: %s", gp);
    T_ASSERT(!strcmp(axis_ranks(A, r, 0), ""), "no scale, no axis");
}

static void test_yfit_holds_every_ci(void)
{
    /* the default suite's efficiency CIs that [0, 1.2] cut */
    double v[] = {1, 1, 1, 0.753, 0.278, 1.882, 0.9, 0.5, 1.346};
    double lo, hi;
    const char *gp = axis_yfit(A, v, 9, 0, 1.1);
    T_ASSERT(sscanf(gp, "set yrange [%lf:%lf]", &lo, &hi) == 2, "%s", gp);
    for (int i = 0; i < 9; i++) T_ASSERT(lo <= v[i] && v[i] <= hi, "%g outside %s", v[i], gp);
    T_ASSERT(lo == 0, "efficiency from 0: %s", gp);
    T_ASSERT(hi < 2.5, "range not blown up: %s", gp);
    /* nothing above the floor: the floor itself */
    double w[] = {0.9, 0.95, NAN};
    gp = axis_yfit(A, w, 3, 0, 1.1);
    T_ASSERT(sscanf(gp, "set yrange [%lf:%lf]", &lo, &hi) == 2 && lo == 0 && hi == 1.1, "%s", gp);
    double neg[] = {-0.031, 0.2};
    gp = axis_yfit(A, neg, 2, 0, 1.1);
    T_ASSERT(sscanf(gp, "set yrange [%lf:%lf]", &lo, &hi) == 2 && lo <= -0.031, "%s", gp);
}

static void test_bytes_powers_of_two(void)
{
    char l[32];
    axis_bytes_label(8, l, sizeof l);
    T_ASSERT(!strcmp(l, "8 B"), "%s", l);
    axis_bytes_label(65536, l, sizeof l);
    T_ASSERT(!strcmp(l, "64 KiB"), "%s", l);
    axis_bytes_label(16777216, l, sizeof l);
    T_ASSERT(!strcmp(l, "16 MiB"), "%s", l);
    axis_bytes_label(1 << 30, l, sizeof l);
    T_ASSERT(!strcmp(l, "1 GiB"), "%s", l);
    axis_bytes_label(100000, l, sizeof l);
    T_ASSERT(!strcmp(l, "100000 B"), "%s", l);
    /* the collectives sweep: 8 B to 16 MiB (and a short one) */
    double ranges[][2] = {{8, 16777216}, {1024, 65536}, {1, 1}, {4, 1 << 30}};
    for (int k = 0; k < 4; k++) {
        const char *gp = axis_bytes(A, ranges[k][0], ranges[k][1]);
        T_ASSERT(strstr(gp, "set logscale x 2"), "%s", gp);
        double t[32];
        size_t n = tics(gp, t, 32);
        T_ASSERT(n >= 1 && n <= 12, "%zu ticks: %s", n, gp);
        for (size_t i = 0; i < n; i++) {
            int e;
            T_ASSERT(frexp(t[i], &e) == 0.5, "tick %g is no power of two: %s", t[i], gp);
        }
        T_ASSERT(!strstr(gp, "ki\"") && !strstr(gp, "%"), "decimal or gnuplot-formatted label: %s",
                 gp);
    }
}

static void test_si_prefix(void)
{
    double d;
    T_ASSERT(!strcmp(axis_si(2.0e10, &d), "G") && d == 1e9, "2e10 -> G");
    T_ASSERT(!strcmp(axis_si(999, &d), "") && d == 1, "999 -> none");
    T_ASSERT(!strcmp(axis_si(1000, &d), "k") && d == 1e3, "1000 -> k");
    T_ASSERT(!strcmp(axis_si(1.54e18, &d), "E") && d == 1e18, "1.54e18 -> E");
    T_ASSERT(!strcmp(axis_si(NAN, &d), "") && d == 1, "NaN -> none");
    T_ASSERT(!strstr(AXIS_LOG_TIME_Y, "%f") && strstr(AXIS_LOG_TIME_Y, "%c"), "SI time labels");
    T_ASSERT(strstr(AXIS_KEY, "outside"), "the key outside the plot area");
}

int main(void)
{
    A = ar_new();
    T_RUN(test_ranks_integer_ticks);
    T_RUN(test_yfit_holds_every_ci);
    T_RUN(test_bytes_powers_of_two);
    T_RUN(test_si_prefix);
    ar_free(A);
    T_DONE();
}
