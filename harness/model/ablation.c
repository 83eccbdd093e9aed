/* The gradient-reduction ablation of a run, with the model beside it (ablation.h). */
#define _GNU_SOURCE
#include "harness/model/ablation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/blocks/gradient_reduction/blk_gradient_reduction.h"
#include "harness/workloads/workload.h"

static const sres_t *scale_of(const analysis_t *an, const char *bench, int scale)
{
    for (size_t i = 0; i < an->nb; i++)
        if (!strcmp(an->b[i].name, bench))
            for (size_t k = 0; k < an->b[i].ns; k++)
                if (an->b[i].s[k].scale == scale) return &an->b[i].s[k];
    return NULL;
}

static void mode_of(const grinfo_t *g, mmode_t *m)
{
    memset(m, 0, sizeof *m);
    m->orch = g->orchestration && !strcmp(g->orchestration, "coordinator") ? MO_COORDINATOR
                                                                           : MO_BITVECTOR;
    const char *gp = g->grouping ? g->grouping : "layer";
    m->grouping = !strcmp(gp, "none") ? MG_NONE : !strcmp(gp, "layer") ? MG_LAYER : MG_COUNT;
    m->groups = (int)g->groups;
    m->fusion_bytes = g->fusion_bytes > 0 ? g->fusion_bytes : 8 << 20;
    m->cycle_s = g->cycle_ms >= 0 ? g->cycle_ms * 1e-3 : 1e-3;
}

/* medians of the pooled per-step engine numbers of one entry at one scale */
static void measured(arena_t *a, const outcome_t *o, size_t n, abrow_t *r)
{
    size_t tot = 0;
    for (size_t i = 0; i < n; i++)
        if (o[i].status == LS_OK && rec_gr(o[i].rec) && !strcmp(o[i].bench, r->bench) &&
            o[i].scale == r->scale)
            tot += rec_gr(o[i].rec)->nsteps;
    double *v[4];
    for (int j = 0; j < 4; j++) v[j] = ar_alloc(a, (tot + 1) * sizeof *v[j]);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const grinfo_t *g = o[i].status == LS_OK ? rec_gr(o[i].rec) : NULL;
        if (!g || strcmp(o[i].bench, r->bench) || o[i].scale != r->scale) continue;
        for (size_t k = 0; k < g->nsteps; k++, m++) {
            v[0][m] = g->exposed_s ? g->exposed_s[k] : NAN;
            v[1][m] = g->negotiation_s ? g->negotiation_s[k] : NAN;
            v[2][m] = g->reduce_s ? g->reduce_s[k] : NAN;
            v[3][m] = g->cycles ? g->cycles[k] : NAN;
        }
    }
    double *out[4] = {&r->exposed_s, &r->negotiation_s, &r->reduce_s, &r->cycles};
    for (int j = 0; j < 4; j++) *out[j] = m ? stats_median(v[j], m) : NAN;
}

static int cmp_int(const void *x, const void *y) { return *(const int *)x - *(const int *)y; }

static void predict(arena_t *a, const suite_t *s, const outcome_t *o, size_t n, ablation_t *ab)
{
    char err[1024];
    memset(&ab->in, 0, sizeof ab->in);
    ab->in.fit_rms_rel = NAN;
    mfile_t *mf = NULL;
    if (s->model_machine) {
        mf = ar_alloc(a, sizeof *mf);
        if (mfile_load(a, s->model_machine, mf, err, sizeof err)) {
            ab->model_note = ar_strdup(a, err);
            return;
        }
    }
    if (model_work_from_run(a, o, n, s->model_base, &ab->in, err, sizeof err) ||
        model_net_from_run(a, o, n, mf, &ab->in, err, sizeof err)) {
        ab->model_note = ar_strdup(a, err);
        return;
    }
    int *scratch = ar_alloc(a, (ab->in.w.nt + 1) * sizeof *scratch);
    for (size_t i = 0; i < ab->n; i++) {
        abrow_t *r = &ab->r[i];
        r->have_pred = model_predict(&ab->in.w, &r->mode, &ab->in.net, &ab->in.neg, r->scale,
                                     scratch, NULL, &r->pred) == 0;
        double bytes = 0;
        for (size_t t = 0; t < ab->in.w.nt; t++) bytes += ab->in.w.t[t].bytes;
        if (r->scale > 1 && r->reduce_s > 0 && bytes > 0) {
            mnet_t net = ab->in.net;
            /* reduce_s = 2 (p-1)/p bytes beta on the ring: beta from the measurement */
            double q = 2.0 * (r->scale - 1) / r->scale;
            net.intra.beta_s = net.inter.beta_s = r->reduce_s / (q * bytes);
            net.intra.gamma_s = net.inter.gamma_s = 0;
            r->train_Bps = bytes / r->reduce_s;
            r->have_train = model_predict(&ab->in.w, &r->mode, &net, &ab->in.neg, r->scale,
                                          scratch, NULL, &r->train) == 0;
        }
    }
    /* each entry's mode at the run's scales and the suite's model scales */
    int *sc = ar_alloc(a, (ab->n + s->nmodel_scales + 2) * sizeof *sc);
    size_t ns = 0;
    for (size_t i = 0; i < ab->n + s->nmodel_scales; i++) {
        int v = i < ab->n ? ab->r[i].scale : s->model_scales[i - ab->n], dup = 0;
        for (size_t k = 0; k < ns; k++) dup |= sc[k] == v;
        if (!dup) sc[ns++] = v;
    }
    qsort(sc, ns, sizeof *sc, cmp_int);
    mmode_t *modes = ar_alloc(a, (ab->n + 1) * sizeof *modes);
    size_t nm = 0;
    for (size_t i = 0; i < ab->n; i++) {
        int dup = 0;
        for (size_t k = 0; k < nm; k++) dup |= !memcmp(&modes[k], &ab->r[i].mode, sizeof *modes);
        if (!dup) modes[nm++] = ab->r[i].mode;
    }
    if (model_compute(a, &ab->in, modes, nm, sc, ns, &ab->ext, err, sizeof err))
        ab->model_note = ar_strdup(a, err);
}

void ablation_build(arena_t *a, const suite_t *s, const outcome_t *o, size_t n,
                    const analysis_t *an, ablation_t *out)
{
    memset(out, 0, sizeof *out);
    out->model = s && s->model;
    size_t cap = 0, entries = 0;
    for (size_t i = 0; i < n; i++) { /* one row per entry and scale, in launch order */
        const grinfo_t *g = o[i].status == LS_OK && o[i].rec ? rec_gr(o[i].rec) : NULL;
        if (!g) continue;
        int seen = 0, seen_bench = 0;
        for (size_t k = 0; k < out->n; k++) {
            seen |= !strcmp(out->r[k].bench, o[i].bench) && out->r[k].scale == o[i].scale;
            seen_bench |= !strcmp(out->r[k].bench, o[i].bench);
        }
        if (seen) continue;
        entries += !seen_bench;
        AR_GROW(a, out->r, out->n, cap);
        abrow_t *r = &out->r[out->n++];
        memset(r, 0, sizeof *r);
        r->bench = o[i].bench;
        r->kind = o[i].rec->benchmark;
        r->scale = o[i].scale;
        mode_of(g, &r->mode);
        char buf[64];
        r->mode_name = ar_strdup(a, model_mode_name(&r->mode, buf, sizeof buf));
        const sres_t *sr = scale_of(an, r->bench, r->scale);
        r->step_s = sr ? sr->st.median : NAN;
        r->eff = sr ? sr->eff : NAN, r->eff_lo = sr ? sr->eff_lo : NAN;
        r->eff_hi = sr ? sr->eff_hi : NAN;
        r->nok = sr ? sr->nok : 0;
        measured(a, o, n, r);
    }
    int multi = 0;
    for (size_t k = 0; k < out->n; k++) multi |= out->r[k].scale > 1;
    out->active = out->n && (out->model || (entries >= 2 && multi));
    if (out->active && out->model) predict(a, s, o, n, out);
    else if (out->model)
        out->model_note = ar_printf(a, "no %s record with a gradient_reduction block",
                                    workload_trainer() ? workload_trainer()->name : "training");
}
