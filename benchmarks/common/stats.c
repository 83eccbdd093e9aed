#include "benchmarks/common/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void stats_sort(double *x, size_t n) { qsort(x, n, sizeof *x, cmp_double); }

int stats_ci_ranks(size_t n, size_t *lo, size_t *hi)
{
    if (n <= 5) {
        *lo = 1;
        *hi = n;
        return 0;
    }
    double s = 1.96 * sqrt((double)n);
    double l = floor(((double)n - s) / 2.0);
    double h = ceil(1.0 + ((double)n + s) / 2.0);
    if (l < 1) l = 1;
    if (h > (double)n) h = (double)n;
    *lo = (size_t)l;
    *hi = (size_t)h;
    return 1;
}

static double median_sorted(const double *s, size_t n)
{
    return (n % 2) ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

void stats_summarize(const double *x, size_t n, stats_summary_t *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n == 0) {
        out->median = out->ci_lo = out->ci_hi = out->min = out->max = out->mean = NAN;
        return;
    }
    double *s = XMALLOC(n * sizeof *s, "statistics samples");
    memcpy(s, x, n * sizeof *s);
    stats_sort(s, n);
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += s[i];
    size_t lo, hi;
    out->ci_exact = stats_ci_ranks(n, &lo, &hi);
    out->median = median_sorted(s, n);
    out->ci_lo = s[lo - 1];
    out->ci_hi = s[hi - 1];
    out->min = s[0];
    out->max = s[n - 1];
    out->mean = sum / (double)n;
    free(s);
}

double stats_median(const double *x, size_t n)
{
    stats_summary_t st;
    stats_summarize(x, n, &st);
    return st.median;
}

double stats_hmean(const double *x, size_t n)
{
    if (n == 0) return NAN;
    double inv = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(x[i] > 0)) return NAN;
        inv += 1.0 / x[i];
    }
    return (double)n / inv;
}
