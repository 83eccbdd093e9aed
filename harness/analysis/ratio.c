/* ratio (ratio.h). */
#include "harness/analysis/ratio.h"

#include <math.h>
#include <string.h>

/* the 95% half-width of log(value) */
static double log_halfwidth(const metric_t *m)
{
    double h = NAN;
    if (isfinite(m->lo) && isfinite(m->hi) && m->lo > 0 && m->hi > 0 && m->value > 0)
        h = fmax(log(m->hi / m->value), log(m->value / m->lo));
    if (m->nlaunch > 1) {
        double s = 0, q = 0;
        size_t n = 0;
        for (size_t i = 0; i < m->nlaunch; i++)
            if (m->launch[i] > 0) s += log(m->launch[i]), n++;
        if (n > 1) {
            double mean = s / n;
            for (size_t i = 0; i < m->nlaunch; i++)
                if (m->launch[i] > 0) q += (log(m->launch[i]) - mean) * (log(m->launch[i]) - mean);
            double hl = 1.96 * sqrt(q / (n - 1)) / sqrt((double)n);
            h = isfinite(h) ? fmax(h, hl) : hl;
        }
    }
    return h;
}

void ratio_of(const metric_t *a, const metric_t *b, ratio_t *o)
{
    o->r = a->value != 0 ? b->value / a->value : NAN;
    double ha = log_halfwidth(a), hb = log_halfwidth(b);
    if (isfinite(ha) && isfinite(hb) && o->r > 0) {
        double h = sqrt(ha * ha + hb * hb);
        o->lo = o->r * exp(-h), o->hi = o->r * exp(h);
    } else {
        o->lo = o->hi = NAN;
    }
    if (!isfinite(o->lo)) o->winner = -1;
    else if (!a->better || (o->lo <= 1 && o->hi >= 1)) o->winner = 0;
    else o->winner = ((o->lo > 1) == (a->better > 0)) ? 2 : 1;
}

double ratio_speed(const metric_t *m, double r)
{
    return m->better < 0 ? 1 / r : r;
}

void ratio_summarize(const double *x, const double *lo, const double *hi, size_t n,
                     ratio_summary_t *o)
{
    memset(o, 0, sizeof *o);
    o->gmean = o->gsd = o->min = o->max = o->lo = o->hi = NAN;
    double s = 0, q = 0, h = 0;
    size_t k = 0;
    int ci = 1;
    for (size_t i = 0; i < n; i++)
        if (x[i] > 0 && isfinite(x[i])) {
            if (lo[i] > 0 && hi[i] >= lo[i] && isfinite(hi[i])) h += (log(hi[i]) - log(lo[i])) / 2;
            else ci = 0;
            s += log(x[i]), k++;
            if (!(x[i] >= o->min)) o->min = x[i];
            if (!(x[i] <= o->max)) o->max = x[i];
        }
    o->n = k;
    if (!k) return;
    double mean = s / k;
    for (size_t i = 0; i < n; i++)
        if (x[i] > 0 && isfinite(x[i])) q += (log(x[i]) - mean) * (log(x[i]) - mean);
    o->gmean = exp(mean);
    if (ci) o->lo = exp(mean - h / k), o->hi = exp(mean + h / k);
    o->gsd = k > 1 ? exp(sqrt(q / (k - 1))) : NAN;
}

int ratio_headline(const char *metric)
{
    return !strcmp(metric, "throughput_samples_per_s") || !strcmp(metric, "busbw_max_GBps");
}
