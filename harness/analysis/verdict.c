/* verdict (verdict.h). */
#include "harness/analysis/verdict.h"

#include <math.h>
#include <string.h>

const char *rverdict_name(rverdict_t v)
{
    switch (v) {
    case RV_NOCHANGE: return "no change";
    case RV_REGRESSION: return "REGRESSION";
    case RV_IMPROVEMENT: return "improvement";
    case RV_CHANGED: return "changed";
    case RV_INCONCLUSIVE: return "inconclusive";
    }
    return "?";
}

/* More launches narrow a CI about as 1/sqrt(launches): the factor by which
 * each side's launches must grow so that the half-width `h` (log scale)
 * shrinks below the distance `dist` to the boundary that decides.  Beyond
 * 10^4 (the estimate sits on the boundary) no number of launches would. */
static double growth(double h, double dist)
{
    if (!(dist > 0) || !(h > 0)) return INFINITY;
    double f = (h / dist) * (h / dist);
    return f > 1e4 ? INFINITY : f;
}

static size_t grown(size_t n, double f)
{
    double v = ceil((double)n * f);
    return v > (double)n ? (size_t)v : n + 1;
}

/* inconclusive for width: how much narrower the CI must be, and the launches
 * per side that would make it so */
static void advise(vjudge_t *o, double band)
{
    double d = log(o->r), l = log(o->lo), u = log(o->hi), f, h, dist;
    if (d > band) { /* beyond on the upper side: the lower half must clear the band */
        h = d - l, dist = d - band, f = growth(h, dist);
    } else if (d < -band) {
        h = u - d, dist = -band - d, f = growth(h, dist);
    } else { /* inside: both halves must fit */
        double fu = growth(u - d, band - d), fl = growth(d - l, d + band);
        if (fu >= fl) h = u - d, dist = band - d, f = fu;
        else h = d - l, dist = d + band, f = fl;
    }
    o->half_pct = expm1(h) * 100;
    o->need_pct = dist > 0 ? expm1(dist) * 100 : 0;
    if (isfinite(f)) o->need_base = grown(o->nbase, f), o->need_new = grown(o->nnew, f);
}

void verdict_judge(const vside_t *base, const vside_t *nw, int better, double threshold,
                   int busy_base, int busy_new, vjudge_t *o)
{
    memset(o, 0, sizeof *o);
    o->nbase = base->ngroup, o->nnew = nw->ngroup;
    o->base = boot_median(base), o->nw = boot_median(nw);
    o->half_pct = o->need_pct = NAN;
    boot_ratio(base, nw, &o->r, &o->lo, &o->hi);
    o->change_pct = (o->r - 1) * 100;
    o->v = RV_INCONCLUSIVE;
    if (!isfinite(o->r)) {
        o->why = RW_NO_RATIO;
        return;
    }
    if (!isfinite(o->lo) || !isfinite(o->hi)) {
        if (o->r == 1 && !(o->base > 0)) o->v = RV_NOCHANGE; /* 0 against 0 */
        else o->why = RW_ONE_EACH;
        return;
    }
    double band = log1p(threshold / 100);
    double l = log(o->lo), u = log(o->hi);
    int up = l > band, down = u < -band; /* the whole CI beyond the band */
    if (!up && !down) {
        if (l >= -band && u <= band) o->v = RV_NOCHANGE;
        else o->why = RW_WIDE, advise(o, band);
        return;
    }
    if (!better) {
        o->v = RV_CHANGED;
        return;
    }
    int worse = up == (better < 0); /* up is worse where lower is better */
    if (worse && busy_new) o->why = RW_BUSY_NEW;
    else if (!worse && busy_base) o->why = RW_BUSY_BASE;
    else o->v = worse ? RV_REGRESSION : RV_IMPROVEMENT;
}
