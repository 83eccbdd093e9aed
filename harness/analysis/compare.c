#define _GNU_SOURCE
#include "harness/analysis/compare.h"

#include <math.h>
#include <string.h>

const char *const compare_default_metrics[] = {
    "step_time_s", "throughput_samples_per_s", "efficiency", "sustained_flops",
    "sustained_flops_per_device", "fraction_of_peak", "busbw_max_GBps", "energy_j_per_sample",
    "energy_flops_per_w", NULL};

int compare_same_row(const metric_t *x, const metric_t *y)
{
    if (strcmp(x->bench, y->bench) || x->scale != y->scale || strcmp(x->metric, y->metric))
        return 0;
    static const char *const keys[] = {"op", "bytes", "dtype", "inplace"};
    for (int i = 0; i < 4; i++) {
        const char *p = metric_param(x, keys[i]), *q = metric_param(y, keys[i]);
        if ((p == NULL) != (q == NULL)) return 0;
        if (p && strcmp(p, q)) {
            double u, v;
            if (opt_parse_double(p, &u) || opt_parse_double(q, &v) || u != v) return 0;
        }
    }
    return 1;
}

int compare_wanted(const metric_t *m, const char *const *only, size_t nonly, int all)
{
    if (all) return 1;
    if (!only) {
        for (size_t i = 0; compare_default_metrics[i]; i++)
            if (!strcmp(compare_default_metrics[i], m->metric)) return 1;
        return 0;
    }
    for (size_t i = 0; i < nonly; i++)
        if (!strcmp(only[i], m->metric)) return 1;
    return 0;
}

void compare_fmt_ci(char *buf, size_t len, double v, double lo, double hi, const char *unit)
{
    static const char *const pre[] = {"", "k", "M", "G", "T", "P", "E"};
    int si = unit && (!strcmp(unit, "FLOP/s") || !strcmp(unit, "FLOP"));
    double k = 1;
    int p = 0;
    while (si && p < 6 && isfinite(v) && fabs(v / k) >= 999.5) k *= 1000, p++;
    char x[40], l[40], h[40];
    fmt_num(v / k, x, sizeof x), fmt_num(lo / k, l, sizeof l), fmt_num(hi / k, h, sizeof h);
    const char *u = unit ? unit : "";
    const char *sp = *pre[p] || *u ? " " : "";
    if (isfinite(lo) && isfinite(hi)) snprintf(buf, len, "%s [%s, %s]%s%s%s", x, l, h, sp, pre[p], u);
    else snprintf(buf, len, "%s%s%s%s", x, sp, pre[p], u);
}

void compare_fmt_value(char *buf, size_t len, const metric_t *m)
{
    if (!m) snprintf(buf, len, "-");
    else compare_fmt_ci(buf, len, m->value, m->lo, m->hi, m->unit);
}
