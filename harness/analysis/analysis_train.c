/* analysis_train: the training benchmarks' numbers per scale (pooled step
 * times, throughput, FLOP rates, fraction of peak, time per kernel kind) and
 * the scaling efficiency against the smallest scale. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/analysis/analysis.h"
#include "harness/analysis/analysis_parts.h"
#include "harness/blocks/network/blk_network.h"
#include "harness/blocks/training/blk_training.h"

static int cmp_kind(const void *x, const void *y)
{
    const kkind_t *p = x, *q = y;
    return (p->time_s < q->time_s) - (p->time_s > q->time_s);
}

/* stemdl-like records at one scale */
void analysis_train_scale(arena_t *a, sres_t *s, const outcome_t *o, size_t n, const char *name,
                          double peak, double bf16_peak, int per_core)
{
    size_t tot = 0;
    for (size_t i = 0; i < n; i++)
        if (o[i].status == LS_OK && !strcmp(o[i].bench, name) && o[i].scale == s->scale)
            tot += rec_training(o[i].rec)->nstep;
    s->samples = ar_alloc(a, (tot + 1) * sizeof *s->samples);
    s->launch_median = ar_alloc(a, (n + 1) * sizeof *s->launch_median);
    size_t kcap = 0;
    double ksteps = 0;
    for (size_t i = 0; i < n; i++) {
        const outcome_t *x = &o[i];
        if (strcmp(x->bench, name) || x->scale != s->scale) continue;
        s->nlaunch++;
        if (x->status != LS_OK) continue;
        const record_t *r = x->rec;
        const trinfo_t *tr = rec_training(r);
        s->nok++;
        if (!s->rec) {
            s->rec = r;
            s->samples_per_step = tr->samples_per_step;
            s->exec_per_step = rec_network(r)->exec_per_step;
            s->conv_per_step = rec_network(r)->conv_per_step;
            s->gpus = (int)r->gpus;
            s->devices = r->gpus > 0 ? (int)r->gpus : (int)(r->ranks > 0 ? r->ranks : s->scale);
        }
        if (tr->nstep) {
            memcpy(s->samples + s->n, tr->step_s, tr->nstep * sizeof *tr->step_s);
            s->n += tr->nstep;
            s->launch_median[s->nlm++] = stats_median(tr->step_s, tr->nstep);
        }
        double steps = tr->kernels_steps > 0 ? tr->kernels_steps : (double)tr->nstep;
        if (tr->nk && steps > 0) ksteps += steps;
        for (size_t k = 0; k < tr->nk && steps > 0; k++) {
            const krow_t *kr = &tr->k[k];
            size_t j = 0;
            while (j < s->nkinds && strcmp(s->kinds[j].kind, kr->kernel)) j++;
            if (j == s->nkinds) {
                AR_GROW(a, s->kinds, s->nkinds, kcap);
                s->kinds[s->nkinds++] = (kkind_t){kr->kernel, 0, 0, 0};
            }
            if (isfinite(kr->calls)) s->kinds[j].calls += kr->calls;
            if (isfinite(kr->flops)) s->kinds[j].flops += kr->flops;
            if (isfinite(kr->time_s)) s->kinds[j].time_s += kr->time_s;
        }
    }
    for (size_t j = 0; j < s->nkinds && ksteps > 0; j++) {
        s->kinds[j].calls /= ksteps;
        s->kinds[j].flops /= ksteps;
        s->kinds[j].time_s /= ksteps;
    }
    if (s->nkinds) qsort(s->kinds, s->nkinds, sizeof *s->kinds, cmp_kind);
    stats_summarize(s->samples, s->n, &s->st);
    double nan = NAN, sum = 0;
    for (size_t i = 0; i < s->n; i++) sum += s->samples[i];
    s->thr = s->thr_lo = s->thr_hi = s->eff = s->eff_lo = s->eff_hi = nan;
    s->sustained = s->peak = s->conv_sustained = s->conv_peak = s->frac_peak = nan;
    if (!s->n || !(s->st.median > 0)) return;
    if (s->samples_per_step > 0) {
        s->thr = s->samples_per_step / s->st.median;
        s->thr_lo = s->samples_per_step / s->st.ci_hi;
        s->thr_hi = s->samples_per_step / s->st.ci_lo;
    }
    if (s->exec_per_step > 0 && sum > 0) {
        s->sustained = s->exec_per_step * (double)s->n / sum;
        s->peak = s->exec_per_step / s->st.min;
    }
    if (s->conv_per_step > 0 && sum > 0) {
        s->conv_sustained = s->conv_per_step * (double)s->n / sum;
        s->conv_peak = s->conv_per_step / s->st.min;
    }
    double threads = s->rec ? rec_training(s->rec)->threads_per_rank : NAN;
    if (per_core && s->gpus == 0 && s->rec && s->rec->precision &&
        !strcmp(s->rec->precision, "bf16"))
        peak = bf16_peak; /* the peak of the precision that ran (NaN: absent) */
    if (per_core && s->gpus == 0 && threads >= 1)
        peak *= threads; /* a CPU rank is as many cores as its threads */
    if (peak > 0 && s->devices > 0 && isfinite(s->sustained))
        s->frac_peak = s->sustained / s->devices / peak;
}

void analysis_train_efficiency(bres_t *b)
{
    sres_t *base = NULL;
    for (size_t i = 0; i < b->ns; i++)
        if (isfinite(b->s[i].st.median) && (b->scaling != SCALING_WEAK || isfinite(b->s[i].thr))) {
            base = &b->s[i];
            break;
        }
    if (!base) return;
    for (size_t i = 0; i < b->ns; i++) {
        sres_t *s = &b->s[i];
        if (!isfinite(s->st.median)) continue;
        double k = (double)base->scale / s->scale;
        if (s == base) {
            s->eff = s->eff_lo = s->eff_hi = 1;
        } else if (b->scaling == SCALING_WEAK) {
            s->eff = s->thr * k / base->thr;
            s->eff_lo = s->thr_lo * k / base->thr_hi;
            s->eff_hi = s->thr_hi * k / base->thr_lo;
        } else {
            s->eff = base->st.median * k / s->st.median;
            s->eff_lo = base->st.ci_lo * k / s->st.ci_hi;
            s->eff_hi = base->st.ci_hi * k / s->st.ci_lo;
        }
    }
}
