#define _GNU_SOURCE
#include "harness/analysis/compare.h"

#include <math.h>
#include <string.h>

const char *const compare_default_metrics[] = {
    "step_time_s", "throughput_samples_per_s", "efficiency", "sustained_flops",
    "sustained_flops_per_device", "fraction_of_peak", "busbw_max_GBps", NULL};

const char *verdict_name(verdict_t v)
{
    switch (v) {
    case V_SAME: return "same";
    case V_BETTER: return "better (noise)";
    case V_WORSE: return "worse (noise)";
    case V_IMPROVED: return "IMPROVED";
    case V_REGRESSION: return "REGRESSION";
    case V_NOCI: return "changed (no CI)";
    case V_ONLY_A: return "only in A";
    case V_ONLY_B: return "only in B";
    }
    return "?";
}

void compare_pair(const metric_t *a, const metric_t *b, double threshold, cmp_row_t *o)
{
    memset(o, 0, sizeof *o);
    o->a = a, o->b = b;
    double x = a->value, y = b->value;
    o->change_pct = x != 0 ? (y - x) / fabs(x) * 100 : (y == 0 ? 0 : INFINITY);
    if (isfinite(a->lo) && isfinite(a->hi) && isfinite(b->lo) && isfinite(b->hi))
        o->significant = b->hi < a->lo || b->lo > a->hi;
    else
        o->significant = -1;
    int worse = a->better > 0 ? y < x : a->better < 0 ? y > x : 0;
    if (!(fabs(o->change_pct) > threshold)) o->v = V_SAME;
    else if (o->significant < 0) o->v = V_NOCI;
    else if (!a->better) o->v = o->significant ? V_IMPROVED : V_BETTER;
    else if (o->significant) o->v = worse ? V_REGRESSION : V_IMPROVED;
    else o->v = worse ? V_WORSE : V_BETTER;
}

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

cmp_row_t *compare_tables(arena_t *a, const mtable_t *ta, const mtable_t *tb,
                          const char *const *only, size_t nonly, int all, double threshold,
                          size_t *n, int *regressions)
{
    cmp_row_t *r = ar_alloc(a, (ta->n + tb->n + 1) * sizeof *r);
    *n = 0;
    *regressions = 0;
    for (size_t i = 0; i < ta->n; i++) {
        const metric_t *x = &ta->m[i];
        if (!compare_wanted(x, only, nonly, all)) continue;
        const metric_t *y = NULL;
        for (size_t j = 0; j < tb->n && !y; j++)
            if (compare_same_row(x, &tb->m[j])) y = &tb->m[j];
        if (y) {
            compare_pair(x, y, threshold, &r[*n]);
            *regressions += r[*n].v == V_REGRESSION;
        } else {
            r[*n] = (cmp_row_t){.a = x, .v = V_ONLY_A, .change_pct = NAN};
        }
        (*n)++;
    }
    for (size_t j = 0; j < tb->n; j++) {
        const metric_t *y = &tb->m[j];
        if (!compare_wanted(y, only, nonly, all)) continue;
        int found = 0;
        for (size_t i = 0; i < ta->n && !found; i++) found = compare_same_row(&ta->m[i], y);
        if (!found) r[(*n)++] = (cmp_row_t){.b = y, .v = V_ONLY_B, .change_pct = NAN};
    }
    return r;
}

void compare_fmt_value(char *buf, size_t len, const metric_t *m)
{
    if (!m) {
        snprintf(buf, len, "-");
        return;
    }
    char v[32], lo[32], hi[32];
    int si = !strcmp(m->unit, "FLOP/s") || !strcmp(m->unit, "FLOP");
    if (si) {
        fmt_si(m->value, m->unit, v, sizeof v);
        fmt_si(m->lo, "", lo, sizeof lo);
        fmt_si(m->hi, "", hi, sizeof hi);
    } else {
        fmt_num(m->value, v, sizeof v);
        fmt_num(m->lo, lo, sizeof lo);
        fmt_num(m->hi, hi, sizeof hi);
    }
    if (isfinite(m->lo) && isfinite(m->hi)) snprintf(buf, len, "%s [%s, %s]", v, lo, hi);
    else snprintf(buf, len, "%s", v);
}

void compare_print(FILE *f, arena_t *a, const cmp_row_t *r, size_t n, double threshold)
{
    fprintf(f, "%-28s %-30s %-30s %-30s %9s  %s\n", "metric", "benchmark", "A [95% CI]",
            "B [95% CI]", "change", "verdict");
    for (size_t i = 0; i < n; i++) {
        const metric_t *m = r[i].a ? r[i].a : r[i].b;
        char va[128], vb[128], ch[24];
        compare_fmt_value(va, sizeof va, r[i].a);
        compare_fmt_value(vb, sizeof vb, r[i].b);
        if (isfinite(r[i].change_pct)) snprintf(ch, sizeof ch, "%+.1f%%", r[i].change_pct);
        else snprintf(ch, sizeof ch, "-");
        fprintf(f, "%-28s %-30s %-30s %-30s %9s  %s\n", m->metric, metric_label(a, m), va, vb, ch,
                verdict_name(r[i].v));
    }
    fprintf(f, "\nA change counts when it exceeds %.3g%% and the 95%% confidence intervals do "
               "not overlap; REGRESSION marks such a change for the worse.\n", threshold);
}
