/* verdict (verdict.h). */
#include "harness/analysis/verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/stats.h"

const char *rverdict_name(rverdict_t v)
{
    switch (v) {
    case RV_SAME: return "same";
    case RV_REGRESSION: return "REGRESSION";
    case RV_IMPROVEMENT: return "improvement";
    case RV_CHANGED: return "changed";
    case RV_INCONCLUSIVE: return "inconclusive";
    }
    return "?";
}

double verdict_tcrit(double df)
{
    static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228};
    if (!(df >= 1)) return INFINITY;
    if (df <= 10) {
        int lo = (int)floor(df);
        if (lo >= 10) return t[9];
        double f = df - lo;
        return t[lo - 1] + f * (t[lo] - t[lo - 1]);
    }
    /* beyond 10: 1.96 + 2.68/df is within 0.3% of the table (df 10..inf) */
    return 1.96 + 2.68 / df;
}

/* mean and sd of f(x): log where `lg`, else x */
static void mean_sd(const double *x, size_t n, int lg, double *mean, double *sd)
{
    double s = 0, q = 0;
    for (size_t i = 0; i < n; i++) s += lg ? log(x[i]) : x[i];
    *mean = n ? s / n : NAN;
    for (size_t i = 0; i < n; i++) {
        double d = (lg ? log(x[i]) : x[i]) - *mean;
        q += d * d;
    }
    *sd = n > 1 ? sqrt(q / (n - 1)) : NAN;
}

static int all_positive(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(x[i] > 0)) return 0;
    return 1;
}

/* Rates and times are tested on the log scale, where a step time and its
 * throughput (samples / time) give the same verdict; the change is told in
 * percent of the baseline's median. */
void verdict_judge(const double *pool, size_t np, const double *obs, size_t no, double value,
                   const double *runs, size_t nruns, int better, double threshold, rjudge_t *o)
{
    memset(o, 0, sizeof *o);
    o->npool = np, o->nnew = no;
    o->base = np ? stats_median(pool, np) : NAN;
    o->change_pct = o->base != 0 ? (value - o->base) / fabs(o->base) * 100
                                 : (value == 0 ? 0 : INFINITY);
    o->t = o->tcrit = o->spread_pct = NAN;
    int lg = value > 0 && o->base > 0 && all_positive(pool, np) && all_positive(obs, no) &&
             all_positive(runs, nruns);
    double fv = lg ? log(value) : value, fb = lg ? log(o->base) : o->base;
    double mp, sp, mn, sn;
    mean_sd(pool, np, lg, &mp, &sp);
    mean_sd(obs, no, lg, &mn, &sn);
    /* one observation on a side: its variation is taken to be the other's */
    if (!isfinite(sp)) sp = sn;
    if (!isfinite(sn)) sn = sp;
    double s = isfinite(sp) ? sqrt((sp * sp + sn * sn) / 2) : NAN;
    if (isfinite(s)) o->spread_pct = lg ? expm1(s) * 100 : o->base ? s / fabs(o->base) * 100 : NAN;
    if (!(fabs(o->change_pct) > threshold)) {
        o->v = RV_SAME;
        return;
    }
    if (!isfinite(s)) { /* one launch in all: nothing says how much a launch varies */
        o->v = RV_INCONCLUSIVE, o->need = 3;
        return;
    }
    double vp = sp * sp / (double)np, vn = sn * sn / (double)no, se = sqrt(vp + vn);
    double d = mn - mp;
    if (se == 0) { /* no variation at all (a deterministic stand-in): any change is real */
        o->t = d == 0 ? 0 : copysign(INFINITY, d);
        o->tcrit = 0;
    } else {
        double df = (vp + vn) * (vp + vn) /
                    ((np > 1 ? vp * vp / (np - 1) : 0) + (no > 1 ? vn * vn / (no - 1) : 0));
        if (!isfinite(df) || df < 1) df = 1;
        o->t = d / se;
        o->tcrit = verdict_tcrit(df);
    }
    int run_ok = 1; /* outside the prediction interval of the baseline runs */
    double need_runs = 0;
    if (nruns > 1) {
        double mr, sr;
        mean_sd(runs, nruns, lg, &mr, &sr);
        double half = verdict_tcrit((double)(nruns - 1)) * sr * sqrt(1 + 1.0 / nruns);
        run_ok = fabs(fv - mr) > half;
        if (!run_ok && sr > 0 && fabs(fv - mr) > 0)
            need_runs = 2 * pow((1.96 + 0.84) * sr / fabs(fv - mr), 2);
    }
    if (fabs(o->t) > o->tcrit && (d > 0) == (value > o->base) && run_ok) {
        int up = value > o->base;
        o->v = !better ? RV_CHANGED : (up == (better > 0)) ? RV_IMPROVEMENT : RV_REGRESSION;
        return;
    }
    o->v = RV_INCONCLUSIVE;
    /* launches per side for a two-sided 5% test with 80% power at this difference */
    double diff = fabs(fv - fb);
    double n = diff > 0 ? 2 * pow((1.96 + 0.84) * s / diff, 2) : INFINITY;
    if (need_runs > n) n = need_runs;
    o->need = n < 2 ? 2 : n > 1000 ? 1000 : (int)ceil(n);
}
