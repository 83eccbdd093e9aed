/* The scaling model's inputs from a run or from a machine file (model_input.h). */
#define _GNU_SOURCE
#include "harness/model/model_input.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/blocks/collectives/blk_collectives.h"
#include "harness/blocks/gradient_reduction/blk_gradient_reduction.h"
#include "harness/blocks/network/blk_network.h"
#include "harness/blocks/orchestration/blk_orchestration.h"
#include "harness/blocks/spatial/blk_spatial.h"
#include "harness/blocks/training/blk_training.h"
#include "harness/workloads/workload.h"

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* "NAME-nR-rK.yaml" -> NAME, R, K */
static int parse_id(arena_t *a, const char *file, const char **bench, int *scale, int *rep)
{
    size_t l = strlen(file);
    if (l < 6 || strcmp(file + l - 5, ".yaml")) return -1;
    const char *n = NULL;
    for (const char *p = file; (p = strstr(p, "-n")); p++) n = p;
    if (!n || n == file || sscanf(n, "-n%d-r%d.yaml", scale, rep) != 2 || *scale < 1) return -1;
    *bench = ar_strndup(a, file, (size_t)(n - file));
    return 0;
}

size_t model_load_run(arena_t *a, const char *run, outcome_t **out, char *err, size_t errlen)
{
    char *dir = path_join(a, run, "records");
    if (!path_is_dir(dir)) { /* RUN/results.yaml given */
        if (path_is_file(run)) dir = path_join(a, path_dirname(a, run), "records");
        if (!path_is_dir(dir)) {
            snprintf(err, errlen, "%s: not a run folder (no records/ in it)", run);
            return 0;
        }
    }
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: cannot list it", dir);
        return 0;
    }
    char **names = NULL;
    size_t nn = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp")) continue;
        AR_GROW(a, names, nn, cap);
        names[nn++] = ar_strdup(a, e->d_name);
    }
    closedir(d);
    if (nn) qsort(names, nn, sizeof *names, cmp_str);
    outcome_t *o = ar_alloc(a, (nn + 1) * sizeof *o);
    size_t n = 0;
    for (size_t i = 0; i < nn; i++) {
        outcome_t *x = &o[n];
        if (parse_id(a, names[i], &x->bench, &x->scale, &x->rep)) continue;
        x->record_path = path_join(a, dir, names[i]);
        x->rec = ar_alloc(a, sizeof *x->rec);
        char e2[512];
        if (record_load(a, x->record_path, x->rec, e2, sizeof e2)) {
            fprintf(stderr, "exadl model: warning: %s (left out)\n", e2);
            continue;
        }
        x->program = x->rec->benchmark;
        x->status = strcmp(x->rec->status, "ok") ? LS_FAILED : LS_OK;
        x->id = ar_strndup(a, names[i], strlen(names[i]) - 5);
        n++;
    }
    if (!n) snprintf(err, errlen, "%s: no readable records", dir);
    *out = o;
    return n;
}

/* a training record (workload.h: trains) with the gradient-reduction timeline */
/* A training record with the engine's timeline.  A workload that does not
 * train (the compute skeleton, docs/simulate.md) counts only as the entry
 * named: the base the suite's model: key or --base picks. */
/* A launch whose samples are split over several ranks (stemdl or climate
 * --spatial, cosmoflow's spatial block): its step is not one data-parallel
 * rank's, so this model, whose T(1) is a whole sample's step on one rank,
 * must not learn from it; `exadl model --spatial` models it (docs/model.md). */
static int split_spatially(const record_t *r)
{
    const nwinfo_t *nw = rec_network(r);
    const spinfo_t *sp = rec_spatial(r);
    return (nw && nw->spatial_ranks > 1) || (sp && sp->ranks_per_sample > 1);
}

static int usable(const outcome_t *x, const char *named)
{
    const workload_t *w = x->rec ? workload_of_kind(x->rec->benchmark) : NULL;
    return x->status == LS_OK && w && (w->trains || (named && !strcmp(x->bench, named))) &&
           rec_gr(x->rec) && rec_gr(x->rec)->ntl > 0 &&
           rec_gr(x->rec)->nt > 0 && rec_training(x->rec)->nstep > 0 && !split_spatially(x->rec);
}

static int fine_grained(const outcome_t *x)
{
    const char *g = rec_gr(x->rec)->grouping;
    return g && (!strcmp(g, "layer") || !strcmp(g, "none"));
}

/* the same gradient tensors (the same network and precision) */
static int same_net(const record_t *a, const record_t *b)
{
    const grinfo_t *ga = rec_gr(a), *gb = rec_gr(b);
    if (ga->nt != gb->nt) return 0;
    for (size_t t = 0; t < ga->nt; t++)
        if (ga->t[t].bytes != gb->t[t].bytes || strcmp(ga->t[t].name, gb->t[t].name)) return 0;
    return 1;
}

typedef struct {
    double t1, cv, bwd; /* median step - median exposed; 1.4826 MAD / median; backward end */
    size_t ns, nrec;
} pool_t;

static void pool_steps(arena_t *a, const outcome_t *o, size_t n, const outcome_t *pick, int all,
                       size_t cap, pool_t *p)
{
    double *step = ar_alloc(a, (cap + 1) * sizeof *step),
           *exp = ar_alloc(a, (cap + 1) * sizeof *exp);
    double *bwd = ar_alloc(a, (cap + 1) * sizeof *bwd), *dev = ar_alloc(a, (cap + 1) * sizeof *dev);
    size_t ns = 0, ne = 0, nb = 0, nc = 0;
    double cvs[256];
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < n; i++) {
        const record_t *r = o[i].rec;
        if (!usable(&o[i], pick->bench) || !same_net(r, pick->rec) || o[i].scale != pick->scale) continue;
        if ((!all || pick->scale != 1) && strcmp(o[i].bench, pick->bench)) continue;
        p->nrec++;
        size_t first = ns;
        const trinfo_t *tr = rec_training(r);
        for (size_t k = 0; k < tr->nstep && ns < cap; k++) step[ns++] = tr->step_s[k];
        if (ns - first >= 3 &&
            nc < 256) { /* within one launch: machine-wide drift is not a straggler */
            double m = stats_median(step + first, ns - first);
            for (size_t k = first; k < ns; k++) dev[k - first] = fabs(step[k] - m);
            cvs[nc++] = m > 0 ? 1.4826 * stats_median(dev, ns - first) / m : 0;
        }
        for (size_t k = 0; k < rec_gr(r)->nsteps && ne < cap; k++) {
            if (rec_gr(r)->exposed_s) exp[ne++] = rec_gr(r)->exposed_s[k];
            if (rec_gr(r)->backward_end_s) bwd[nb++] = rec_gr(r)->backward_end_s[k];
        }
    }
    double med = stats_median(step, ns);
    p->t1 = med - (ne ? stats_median(exp, ne) : 0);
    p->bwd = nb ? stats_median(bwd, nb) : NAN;
    p->cv = nc ? stats_median(cvs, nc) : 0;
    p->ns = ns;
}

static const char *layer_of(arena_t *a, const char *tensor)
{
    const char *dot = strrchr(tensor, '.');
    return dot ? ar_strndup(a, tensor, (size_t)(dot - tensor)) : tensor;
}

int model_work_from_run(arena_t *a, const outcome_t *o, size_t n, const char *base,
                        minputs_t *in, char *err, size_t errlen)
{
    const outcome_t *pick = NULL;
    for (int pass = 0; pass < 2 && !pick; pass++)
        for (size_t i = 0; i < n; i++) {
            if (!usable(&o[i], base) || (base && strcmp(o[i].bench, base))) continue;
            if (pass == 0 && !base && !fine_grained(&o[i])) continue;
            if (!pick || (!strcmp(o[i].bench, pick->bench) && o[i].scale < pick->scale))
                pick = &o[i];
        }
    if (!pick) {
        const workload_t *w = workload_trainer();
        size_t nsplit = 0;
        for (size_t i = 0; i < n; i++)
            if (o[i].status == LS_OK && o[i].rec && split_spatially(o[i].rec)) nsplit++;
        snprintf(err, errlen, "no usable %s record%s%s (status ok, with the gradient_reduction "
                 "timeline, not split spatially)%s", w ? w->name : "training",
                 base ? " of benchmark " : "", base ? base : "",
                 nsplit ? ": its launches split samples over ranks; model them with exadl model "
                          "--spatial (docs/spatial.md)"
                        : "");
        return -1;
    }
    const grinfo_t *g0 = rec_gr(pick->rec);
    size_t G = (size_t)g0->groups, nsteps = 0;
    for (size_t i = 0; i < n; i++)
        if (usable(&o[i], pick->bench) && o[i].scale == pick->scale)
            nsteps += rec_training(o[i].rec)->nstep + rec_gr(o[i].rec)->ntl;
    double *col = ar_alloc(a, (nsteps + 1) * sizeof *col);
    /* the step: every launch of the same network at this scale (one rank runs no
     * engine, so every entry measures the same step); the timeline: the base
     * entry's launches, stretched to the pooled step so that both agree */
    pool_t all, own;
    pool_steps(a, o, n, pick, 1, nsteps, &all);
    pool_steps(a, o, n, pick, 0, nsteps, &own);
    double *ready = ar_alloc(a, (G + 1) * sizeof *ready);
    for (size_t k = 0; k < G; k++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            const record_t *r = o[i].rec;
            if (!usable(&o[i], pick->bench) || strcmp(o[i].bench, pick->bench) || o[i].scale != pick->scale ||
                (size_t)rec_gr(r)->groups != G || rec_gr(r)->nt != g0->nt)
                continue;
            const grinfo_t *g = rec_gr(r);
            for (size_t s = 0; s < g->ntl; s++) col[m++] = g->timeline[(s * G + k) * 3];
        }
        ready[k] = stats_median(col, m);
    }
    double f = own.t1 > 0 ? all.t1 / own.t1 : 1, t1 = all.t1;
    for (size_t k = 0; k < G; k++) ready[k] *= f;
    in->w.jitter_cv = all.cv;
    in->w.step_s = t1;
    in->w.backward_end_s = own.bwd * f;
    size_t ns = all.ns, nrec = all.nrec;
    in->w.nt = g0->nt;
    in->w.t = ar_alloc(a, (g0->nt + 1) * sizeof *in->w.t);
    double last = -INFINITY;
    for (size_t t = 0; t < g0->nt; t++) {
        const grtensor_t *x = &g0->t[t];
        in->w.t[t] = (mtensor_t){x->name, layer_of(a, x->name), x->bytes, ready[x->group]};
        if (ready[x->group] > last) last = ready[x->group];
    }
    if (!isfinite(in->w.backward_end_s)) in->w.backward_end_s = last;
    /* An inline engine (gradient_reduction.engine, docs/gsync.md) sees the
     * gradients only when backward has ended: its reductions never overlap
     * backward, so the model starts every one at the backward's end, as the
     * run did, instead of when each gradient was made. */
    int inline_engine = g0->engine && !strcmp(g0->engine, "inline");
    if (inline_engine)
        for (size_t t = 0; t < g0->nt; t++) in->w.t[t].ready_s = in->w.backward_end_s;
    in->base_bench = pick->bench;
    in->base_scale = pick->scale;
    in->have_mode = 1;
    memset(&in->mode, 0, sizeof in->mode);
    in->mode.orch = g0->orchestration && !strcmp(g0->orchestration, "coordinator") ? MO_COORDINATOR
                                                                                    : MO_BITVECTOR;
    const char *gp = g0->grouping ? g0->grouping : "layer";
    in->mode.grouping = !strcmp(gp, "none") ? MG_NONE : !strcmp(gp, "layer") ? MG_LAYER : MG_COUNT;
    in->mode.groups = (int)G;
    in->mode.fusion_bytes = g0->fusion_bytes > 0 ? g0->fusion_bytes : 8 << 20;
    in->mode.cycle_s = g0->cycle_ms >= 0 ? g0->cycle_ms * 1e-3 : 1e-3;
    in->work_source = ar_printf(
        a,
        "%s at %d rank%s (step: %zu launch%s of the same network, %zu timed steps): step %.4g s = "
        "median step - median "
        "exposed, variation %.3g (1.4826 MAD / median within a launch, median over launches); %zu "
        "tensors in %zu groups (%s grouping%s), "
        "each group's ready time the median over the %s launches' steps (scaled to the pooled "
        "step)%s",
        pick->bench, pick->scale, pick->scale > 1 ? "s" : "", nrec, nrec == 1 ? "" : "es", ns, t1,
        in->w.jitter_cv, g0->nt, G, gp,
        fine_grained(pick) ? "" : ": readiness known per group only", pick->bench,
        inline_engine ? "; engine inline (as the base record ran): every reduction starts when "
                        "backward ends, none overlaps it"
                      : "");
    return 0;
}

/* the run's allreduce rows: float32 sum, out of place, p >= 2 */
static size_t sweep_rows(arena_t *a, const outcome_t *o, size_t n, double **bytes, int **p,
                         double **t)
{
    size_t m = 0, cap = 0;
    *bytes = NULL, *p = NULL, *t = NULL;
    for (size_t i = 0; i < n; i++) {
        const record_t *r = o[i].rec;
        if (o[i].status != LS_OK || !r || r->ranks < 2) continue;
        for (size_t k = 0; k < rec_coll(r)->nc; k++) {
            const crow_t *c = &rec_coll(r)->c[k];
            if (strcmp(c->op, "allreduce") || c->inplace || strcmp(c->dtype, "float32") ||
                (c->redop[0] && strcmp(c->redop, "sum")) || !(c->median_s > 0))
                continue;
            size_t c0 = cap;
            AR_GROW(a, *bytes, m, c0);
            c0 = cap;
            AR_GROW(a, *p, m, c0);
            AR_GROW(a, *t, m, cap);
            (*bytes)[m] = c->bytes, (*p)[m] = (int)r->ranks, (*t)[m] = c->median_s;
            m++;
        }
    }
    return m;
}

static int orch_fit(arena_t *a, const outcome_t *o, size_t n, mneg_t *neg, const char **src)
{
    double x[2][256], y[2][256];
    size_t m[2] = {0, 0}, rows = 0;
    int pmax = 0;
    for (size_t i = 0; i < n; i++) { /* per record and mode: the median over its groupings */
        const record_t *r = o[i].rec;
        if (o[i].status != LS_OK || !r || !rec_orch(r)->no) continue;
        for (int mode = 0; mode < 2; mode++) {
            double v[64];
            size_t k = 0;
            for (size_t j = 0; j < rec_orch(r)->no && k < 64; j++) {
                const orow_t *w = &rec_orch(r)->o[j];
                int coord = !strcmp(w->mode, "coordinator");
                if (coord != (mode == 0) || !(w->per_cycle_s >= 0)) continue;
                v[k++] = w->per_cycle_s;
            }
            if (!k || m[mode] >= 256) continue;
            int p = (int)r->ranks;
            x[mode][m[mode]] = mode == 0 ? p - 1 : model_lg(p);
            y[mode][m[mode]++] = stats_median(v, k);
            rows += k;
            if (p > pmax) pmax = p;
        }
    }
    if (!m[0] || !m[1]) return -1;
    neg->from_latency = 0;
    neg->coord_per_level_s = 0;
    model_fit_line(x[0], y[0], m[0], &neg->coord_base_s, &neg->coord_per_rank_s);
    model_fit_line(x[1], y[1], m[1], &neg->bv_base_s, &neg->bv_per_level_s);
    *src = ar_printf(a, "fitted to the run's orchestration benchmark (%zu rows, 1..%d ranks; per "
                     "cycle, median over groupings): coordinator %.3g + %.3g (p-1) s, bit vector "
                     "%.3g + %.3g lg p s", rows, pmax, neg->coord_base_s, neg->coord_per_rank_s,
                     neg->bv_base_s, neg->bv_per_level_s);
    return 0;
}

int model_net_from_run(arena_t *a, const outcome_t *o, size_t n, const mfile_t *mf,
                       minputs_t *in, char *err, size_t errlen)
{
    double *bytes, *t;
    int *p;
    size_t m = sweep_rows(a, o, n, &bytes, &p, &t);
    mlink_t fit = {0, 0, 0};
    int have_fit = m && model_fit_ring(bytes, p, t, m, &fit, &in->fit_rms_rel) == 0;
    if (!have_fit) in->fit_rms_rel = NAN;
    in->fit_rows = have_fit ? m : 0;
    in->machine = mf;
    if (!mf && !have_fit) {
        snprintf(err, errlen, "no interconnect: the run has no allreduce sweep at 2 or more ranks "
                 "(collectives --op allreduce) and no --machine file was given");
        return -1;
    }
    if (mf) {
        mfile_net(mf, &in->net, &in->neg);
        in->neg_source = mf->has_negotiation
                             ? ar_printf(a, "machine file %s, negotiation block", mf->name)
                             : ar_printf(a, "from the latencies of machine file %s", mf->name);
        int used = 0;
        if (have_fit && mf->intra_latency.fit) in->net.intra.alpha_s = fit.alpha_s, used = 1;
        if (have_fit && mf->intra_bandwidth.fit) in->net.intra.beta_s = fit.beta_s, used = 1;
        if (have_fit && mf->inter_latency.fit) in->net.inter.alpha_s = fit.alpha_s, used = 1;
        if (have_fit && mf->inter_bandwidth.fit) in->net.inter.beta_s = fit.beta_s, used = 1;
        if (used) { /* fitted to the ring model: keep its form */
            in->net.algo = AR_RING;
            in->net.intra.gamma_s = in->net.inter.gamma_s = 0;
        }
        in->net_source =
            ar_printf(a, "machine file %s%s", mf->path,
                      used ? ", its fit: figures replaced by the run's allreduce fit" : "");
    } else {
        memset(&in->net, 0, sizeof in->net);
        in->net.intra = in->net.inter = fit;
        in->net.algo = AR_RING;
        in->neg.from_latency = 1;
        in->neg_source = "from the fitted latency";
        in->net_source = "the run's allreduce sweep (one node)";
    }
    if (have_fit)
        in->net_source = ar_printf(a, "%s; ring fit of %zu allreduce rows (float32 sum, out of "
                                   "place): alpha %.3g s, beta %.3g s/B (%.3g GB/s), rms relative "
                                   "error %.2f", in->net_source, m, fit.alpha_s, fit.beta_s,
                                   fit.beta_s > 0 ? 1e-9 / fit.beta_s : INFINITY, in->fit_rms_rel);
    const char *src;
    if (orch_fit(a, o, n, &in->neg, &src) == 0) in->neg_source = src;
    return 0;
}
