/* The scaling model's arithmetic (model.h; formulas in docs/model.md). */
#define _GNU_SOURCE
#include "harness/model/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ar_algo_name(ar_algo_t a)
{
    switch (a) {
    case AR_AUTO: return "auto";
    case AR_RING: return "ring";
    case AR_TREE: return "tree";
    case AR_RD: return "rd";
    }
    return "?";
}

int ar_algo_parse(const char *s, ar_algo_t *out)
{
    static const char *const n[] = {"auto", "ring", "tree", "rd"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, n[i])) return *out = (ar_algo_t)i, 0;
    return -1;
}

int model_lg(int p)
{
    int k = 0;
    while (p > 1 && (1LL << k) < p) k++;
    return k;
}

double model_ring(double n, int p, const mlink_t *l)
{
    if (p <= 1) return 0;
    double q = (double)(p - 1) / p;
    return 2.0 * (p - 1) * l->alpha_s + 2 * q * n * l->beta_s + q * n * l->gamma_s;
}

double model_tree(double n, int p, const mlink_t *l)
{
    if (p <= 1) return 0;
    double q = (double)(p - 1) / p;
    return 2.0 * model_lg(p) * l->alpha_s + 2 * q * n * l->beta_s + q * n * l->gamma_s;
}

double model_rd(double n, int p, const mlink_t *l)
{
    if (p <= 1) return 0;
    return model_lg(p) * (l->alpha_s + n * l->beta_s + n * l->gamma_s);
}

double model_allreduce_flat(double n, int p, const mlink_t *l, ar_algo_t algo, ar_algo_t *used)
{
    double c[4] = {INFINITY, model_ring(n, p, l), model_tree(n, p, l), model_rd(n, p, l)};
    ar_algo_t u = algo;
    if (algo == AR_AUTO) { /* ties go to the first: ring, then tree */
        u = AR_RING;
        for (int i = 2; i < 4; i++)
            if (c[i] < c[u]) u = (ar_algo_t)i;
    }
    if (used) *used = u;
    return c[u];
}

double model_allreduce(double n, int p, const mnet_t *net, ar_algo_t *used)
{
    int g = net->ranks_per_node;
    if (p <= 1) {
        if (used) *used = net->algo == AR_AUTO ? AR_RING : net->algo;
        return 0;
    }
    if (g <= 0 || p <= g) return model_allreduce_flat(n, p, &net->intra, net->algo, used);
    if (!net->hierarchical) return model_allreduce_flat(n, p, &net->inter, net->algo, used);
    int m = (p + g - 1) / g;
    double q = (double)(g - 1) / g;
    const mlink_t *i = &net->intra;
    double t = (g - 1) * i->alpha_s + q * n * i->beta_s + q * n * i->gamma_s;
    mlink_t shard = net->inter;
    shard.beta_s *= g;
    t += model_allreduce_flat(n / g, m, &shard, net->algo, used);
    t += (g - 1) * i->alpha_s + q * n * i->beta_s;
    return t;
}

/* Phi^-1 by Newton's method on Phi(x) = erfc(-x / sqrt 2) / 2 */
static double probit(double q)
{
    double x = 0;
    for (int i = 0; i < 100; i++) {
        double f = 0.5 * erfc(-x / sqrt(2)) - q, d = exp(-x * x / 2) / sqrt(2 * M_PI);
        double step = f / d;
        if (step > 1) step = 1;
        if (step < -1) step = -1;
        x -= step;
        if (fabs(step) < 1e-13) break;
    }
    return x;
}

double model_max_normal(int p)
{
    if (p <= 1) return 0;
    if (p == 2) return 1 / sqrt(M_PI);
    if (p == 3) return 1.5 / sqrt(M_PI);
    return probit((p - 0.375) / (p + 0.25));
}

int model_mode_parse(const char *s, mmode_t *m)
{
    const char *plus = strchr(s, '+');
    if (!plus) return -1;
    size_t k = (size_t)(plus - s);
    if (k == 11 && !strncmp(s, "coordinator", k)) m->orch = MO_COORDINATOR;
    else if (k == 9 && !strncmp(s, "bitvector", k)) m->orch = MO_BITVECTOR;
    else return -1;
    const char *g = plus + 1;
    if (!strcmp(g, "none")) m->grouping = MG_NONE;
    else if (!strcmp(g, "layer")) m->grouping = MG_LAYER;
    else {
        char *end;
        long v = strtol(g, &end, 10);
        if (end == g || *end || v < 1 || v > 1000000) return -1;
        m->grouping = MG_COUNT;
        m->groups = (int)v;
    }
    return 0;
}

const char *model_mode_name(const mmode_t *m, char *buf, size_t len)
{
    const char *o = m->orch == MO_COORDINATOR ? "coordinator" : "bitvector";
    if (m->grouping == MG_COUNT) snprintf(buf, len, "%s+%d", o, m->groups);
    else snprintf(buf, len, "%s+%s", o, m->grouping == MG_LAYER ? "layer" : "none");
    return buf;
}

int model_groups(const mwork_t *w, const mmode_t *m, int *group_of)
{
    int T = (int)w->nt;
    if (T == 0) return 0;
    if (m->grouping == MG_NONE) {
        for (int t = 0; t < T; t++) group_of[t] = t;
        return T;
    }
    if (m->grouping == MG_LAYER) {
        int G = 0;
        for (int t = 0; t < T; t++) {
            const char *a = w->t[t].layer ? w->t[t].layer : "";
            if (t == 0 || strcmp(a, w->t[t - 1].layer ? w->t[t - 1].layer : "")) G++;
            group_of[t] = G - 1;
        }
        return G;
    }
    /* the engine's group_by_bytes: a group closes once the bytes so far reach
     * its share of the total, or when the tensors left are just enough to give
     * each later group one */
    double total = 0, acc = 0;
    for (int t = 0; t < T; t++) total += w->t[t].bytes;
    int G = m->groups < T ? m->groups : T, cur = 0, in_cur = 0;
    for (int t = 0; t < T; t++) {
        int groups_left = G - 1 - cur, tensors_left = T - t;
        if (in_cur > 0 && cur < G - 1 &&
            (acc >= total * (cur + 1) / G || tensors_left == groups_left)) {
            cur++;
            in_cur = 0;
        }
        group_of[t] = cur;
        in_cur++;
        acc += w->t[t].bytes;
    }
    return cur + 1;
}

/* the fused reductions of one cycle, one after another */
typedef struct {
    const mnet_t *net;
    int p, cycle;
    double t, batch, bstart;
    int bfirst, blast;
    const int *rel;
    mgtime_t *gt;
    mresult_t *r;
} cyc_t;

static void flush(cyc_t *c)
{
    if (c->bfirst < 0) return;
    ar_algo_t used;
    double cost = model_allreduce(c->batch, c->p, c->net, &used);
    c->r->reductions++;
    c->r->by_algo[used]++;
    c->r->comm_s += cost;
    c->t += cost;
    for (int j = c->bfirst; c->gt && j <= c->blast; j++)
        if (c->rel[j] == c->cycle) c->gt[j].end_s = c->t;
    c->batch = 0;
    c->bfirst = -1;
}

int model_predict(const mwork_t *w, const mmode_t *m, const mnet_t *net, const mneg_t *neg,
                  int p, int *group_of, mgtime_t *gt, mresult_t *r)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    if (!w->nt || p < 1 || !(w->step_s > 0) || !(m->fusion_bytes > 0) || !(m->cycle_s >= 0))
        return -1;
    for (size_t t = 0; t < w->nt; t++)
        if (!(w->t[t].bytes >= 0) || !isfinite(w->t[t].ready_s)) return -1;
    int G = model_groups(w, m, group_of);
    r->ngroups = G;
    double *ready = calloc((size_t)G, sizeof *ready);
    int *rel = calloc((size_t)G, sizeof *rel);
    if (!ready || !rel) {
        free(ready), free(rel);
        return -1;
    }
    for (int k = 0; k < G; k++) ready[k] = -INFINITY, rel[k] = -1;
    for (size_t t = 0; t < w->nt; t++)
        if (w->t[t].ready_s > ready[group_of[t]]) ready[group_of[t]] = w->t[t].ready_s;
    if (gt)
        for (int k = 0; k < G; k++) gt[k] = (mgtime_t){ready[k], NAN, NAN};
    double bwd_end = w->backward_end_s;
    for (int k = 0; k < G; k++)
        if (!(ready[k] <= bwd_end)) bwd_end = ready[k];
    if (p == 1) { /* one rank: nothing to negotiate or reduce */
        if (gt)
            for (int k = 0; k < G; k++) gt[k].start_s = gt[k].end_s = ready[k];
        r->step_s = w->step_s;
        r->efficiency = 1;
        r->end_s = bwd_end;
        free(ready), free(rel);
        return 0;
    }
    char *handed = calloc(w->nt, 1); /* tensors reported to the engine */
    if (!handed) {
        free(ready), free(rel);
        return -1;
    }
    double P = m->cycle_s, d0 = model_negotiation(neg, net, m->orch, p, 0);
    double q = P > d0 ? P : d0; /* an idle cycle's period */
    double next = 0, busy = 0;
    int left = G, rc = 0;
    while (left > 0) {
        double s = next > busy ? next : busy, rmin = INFINITY;
        int any = 0;
        for (size_t x = 0; x < w->nt; x++)
            if (!handed[x]) {
                any |= w->t[x].ready_s <= s;
                if (w->t[x].ready_s < rmin) rmin = w->t[x].ready_s;
            }
        if (!any) { /* idle cycles up to the first that starts at or after rmin */
            double k = q > 0 ? ceil((rmin - s) / q) : 0;
            if (!(k < 1e9)) {
                rc = -1;
                break;
            }
            r->cycles += (int)k;
            r->negotiation_s += k * d0;
            s = q > 0 ? s + k * q : rmin;
            if (s < rmin) s = rmin; /* rounding */
        }
        int newly = 0;
        for (size_t x = 0; x < w->nt; x++)
            if (!handed[x] && w->t[x].ready_s <= s) handed[x] = 1, newly++;
        double d = model_negotiation(neg, net, m->orch, p, newly);
        cyc_t c = {net, p, r->cycles, s + d, 0, 0, -1, -1, rel, gt, r};
        r->cycles++;
        r->negotiation_s += d;
        next = s + P;
        for (int k = 0; k < G; k++) {
            if (rel[k] >= 0 || ready[k] > s) continue;
            rel[k] = c.cycle;
            left--;
            for (size_t x = 0; x < w->nt; x++) {
                if (group_of[x] != k) continue;
                double b = w->t[x].bytes;
                if (c.bfirst >= 0 && c.batch + b > m->fusion_bytes) flush(&c);
                if (c.bfirst < 0) c.bfirst = k, c.bstart = c.t;
                c.blast = k;
                if (gt && isnan(gt[k].start_s)) gt[k].start_s = c.bstart;
                c.batch += b;
            }
        }
        flush(&c);
        busy = c.t;
    }
    r->end_s = busy;
    r->exposed_s = busy > bwd_end ? busy - bwd_end : 0;
    r->straggler_s = w->step_s * (w->jitter_cv > 0 ? w->jitter_cv : 0) * model_max_normal(p);
    r->step_s = w->step_s + r->straggler_s + r->exposed_s;
    r->efficiency = w->step_s / r->step_s;
    free(ready), free(rel), free(handed);
    return rc;
}
