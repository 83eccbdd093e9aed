/* The whole network: gradients of a full training step against finite
 * differences, the fast kernel set against the reference on a full step, and
 * the dry step's FLOP count against the counts of a real step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/rng.h"
#include "benchmarks/networks/fcdensenet/config.h"
#include "benchmarks/networks/fcdensenet/data.h"
#include "benchmarks/networks/fcdensenet/net.h"
#include "benchmarks/networks/fcdensenet/plan.h"
#include "benchmarks/networks/fcdensenet/stemdl_network.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/optim.h"
#include "benchmarks/train/train.h"
#include "tests/unit/stemdl_fixture.h"
#include "tests/unit/tap.h"

typedef struct {
    plan_t plan;
    net_t *net;
    optim_t *opt;
    ktab_t tab;
    kc_t kc;
    float *in, *tg;
} rig_t;

static void rig_open(rig_t *r, const cfg_t *c, const kern_ops *ops, void *ctx)
{
    char err[256];
    plan_build(&r->plan, c);
    r->net = net_create(&r->plan, ops, ctx, c->run.batch, 0, err, sizeof err);
    T_ASSERT(r->net, "%s", err);
    r->opt = optim_create(&stemdl_network, &r->plan, r->net, ops, ctx, 0, err, sizeof err);
    T_ASSERT(r->opt, "%s", err);
    net_init_params(r->net, 7);
    ktab_init(&r->tab, 1024);
    r->kc = (kc_t){.ops = ops, .ctx = ctx, .tab = &r->tab, .timing = 1};
    size_t ni = (size_t)c->run.batch * c->c_in * c->height * c->width;
    size_t nt = (size_t)c->run.batch * c->c_out * c->height * c->width;
    r->in = XMALLOC(ni * sizeof(float), "input");
    r->tg = XMALLOC(nt * sizeof(float), "target");
    data_generate(c, 11, 0, 0, c->run.batch, r->in, r->tg);
}

static void rig_close(rig_t *r)
{
    optim_free(r->opt);
    net_free(r->net);
    ktab_free(&r->tab);
    plan_free(&r->plan);
    free(r->in);
    free(r->tg);
}

static double loss_at(rig_t *r, const float *w)
{
    net_set_params(r->net, w);
    return net_forward(r->net, &r->kc, r->in, r->tg);
}

/* Directional derivative of the loss along a random direction over one
 * layer's parameters, by central differences, against the gradient. */
static void test_network_gradient_matches_finite_differences(void)
{
    cfg_t c;
    small_cfg(&c);
    rig_t r;
    rig_open(&r, &c, kern_ref_ops(), NULL);
    int64_t np = r.plan.params;
    float *w = XMALLOC((size_t)np * sizeof *w, "w"), *wp = XMALLOC((size_t)np * sizeof *wp, "wp");
    float *g = XMALLOC((size_t)np * sizeof *g, "g");
    net_get_params(r.net, w);
    loss_at(&r, w);
    net_backward(r.net, &r.kc, NULL, NULL);
    memcpy(g, net_grads(r.net), (size_t)np * sizeof *g);
    rng_t rng = rng_stream(3, 1, 4, 1);
    int checked = 0;
    for (int li = 0; li < r.plan.n; li++) {
        const plan_layer *l = &r.plan.layers[li];
        int64_t cnt = l->weights + (l->bias ? l->c_out : 0);
        double *d = XMALLOC((size_t)cnt * sizeof *d, "direction");
        double dot = 0, wnorm = 0;
        for (int64_t j = 0; j < cnt; j++) {
            d[j] = rng_normal(&rng);
            dot += d[j] * g[l->off_w + j];
            wnorm += (double)w[l->off_w + j] * w[l->off_w + j];
        }
        /* a step small against the weights, large against fp32 rounding */
        double eps = 2e-3 * sqrt(wnorm / (double)cnt + 1e-4);
        double lp, lm;
        memcpy(wp, w, (size_t)np * sizeof *wp);
        for (int64_t j = 0; j < cnt; j++) wp[l->off_w + j] = (float)(w[l->off_w + j] + eps * d[j]);
        lp = loss_at(&r, wp);
        for (int64_t j = 0; j < cnt; j++) wp[l->off_w + j] = (float)(w[l->off_w + j] - eps * d[j]);
        lm = loss_at(&r, wp);
        free(d);
        double fd = (lp - lm) / (2 * eps);
        /* ReLU and |.| kinks crossed by the step make FD approximate: 5% */
        double err = fabs(fd - dot) / (fabs(dot) + 1e-6);
        T_ASSERT(err < 0.05, "layer %s: finite difference %.6g, gradient %.6g (rel. error %.3g)",
                 l->name, fd, dot, err);
        checked++;
    }
    T_ASSERT(checked == r.plan.n, "checked %d of %d layers", checked, r.plan.n);
    free(w);
    free(wp);
    free(g);
    rig_close(&r);
}

/* One full step (forward, backward, Adam) on both kernel sets from the same
 * weights: the loss, every gradient and the updated weights agree. */
static void test_fast_step_matches_reference_step(void)
{
    cfg_t c;
    small_cfg(&c);
    rig_t a, b;
    void *ctx = kern_fast_create(1);
    rig_open(&a, &c, kern_ref_ops(), NULL);
    rig_open(&b, &c, kern_fast_ops(), ctx);
    int64_t np = a.plan.params;
    adam_hyper h = {.lr = 1e-3, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .step = 1, .grad_scale = 1};
    double la = net_forward(a.net, &a.kc, a.in, a.tg), lb = net_forward(b.net, &b.kc, b.in, b.tg);
    T_ASSERT(fabs(la - lb) <= 1e-5 * fabs(la), "loss %.9g (reference) vs %.9g (fast)", la, lb);
    net_backward(a.net, &a.kc, NULL, NULL);
    net_backward(b.net, &b.kc, NULL, NULL);
    const float *ga = net_grads(a.net), *gb = net_grads(b.net);
    for (int li = 0; li < a.plan.n; li++) {
        const plan_layer *l = &a.plan.layers[li];
        double dmax = 0, gmax = 0;
        for (int64_t j = l->off_w; j < l->off_w + l->weights; j++) {
            double dd = fabs((double)ga[j] - gb[j]);
            if (dd > dmax) dmax = dd;
            if (fabs(ga[j]) > gmax) gmax = fabs(ga[j]);
        }
        T_ASSERT(dmax <= 1e-4 * gmax + 1e-12, "layer %s: gradients differ by %.3g (max |g| %.3g)",
                 l->name, dmax, gmax);
    }
    optim_step(a.opt, &a.kc, &h);
    optim_step(b.opt, &b.kc, &h);
    float *wa = XMALLOC((size_t)np * sizeof *wa, "wa"), *wb = XMALLOC((size_t)np * sizeof *wb, "wb");
    net_get_params(a.net, wa);
    net_get_params(b.net, wb);
    /* Adam's first step moves each weight by about lr: compare against that */
    double dmax = 0;
    for (int64_t j = 0; j < np; j++)
        if (fabs((double)wa[j] - wb[j]) > dmax) dmax = fabs((double)wa[j] - wb[j]);
    T_ASSERT(dmax <= 1e-2 * h.lr, "updated weights differ by %.3g", dmax);
    free(wa);
    free(wb);
    rig_close(&a);
    rig_close(&b);
    kern_fast_release(ctx);
}

/* The dry step that --describe and the record rely on counts exactly what a
 * real step executes. */
static void test_dry_step_counts_what_a_real_step_runs(void)
{
    cfg_t c;
    small_cfg(&c);
    plan_t p;
    plan_build(&p, &c);
    ktab_t dry;
    int64_t dry_flops = train_dry_flops(&stemdl_network, &p, c.run.batch, &dry);
    rig_t r;
    rig_open(&r, &c, kern_ref_ops(), NULL);
    adam_hyper h = {.lr = 1e-3, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .step = 1, .grad_scale = 1};
    net_forward(r.net, &r.kc, r.in, r.tg);
    net_backward(r.net, &r.kc, NULL, NULL);
    optim_step(r.opt, &r.kc, &h);
    T_ASSERT(ktab_total_flops(&r.tab) == dry_flops, "real step %lld FLOPs, dry step %lld",
             (long long)ktab_total_flops(&r.tab), (long long)dry_flops);
    T_ASSERT(r.tab.n == dry.n, "real step %d table rows, dry step %d", r.tab.n, dry.n);
    for (int i = 0; i < dry.n; i++) {
        ktab_row *x = ktab_row_for(&r.tab, dry.rows[i].kernel, dry.rows[i].layer);
        T_ASSERT(x->calls == dry.rows[i].calls && x->flops == dry.rows[i].flops,
                 "row %s/%s differs", dry.rows[i].kernel, dry.rows[i].layer);
    }
    /* the forward convolutions of the table add up to the plan's forward count */
    int64_t fwd = 0;
    for (int i = 0; i < dry.n; i++)
        if (!strcmp(dry.rows[i].kernel, "conv_fwd") || !strcmp(dry.rows[i].kernel, "tconv_fwd"))
            fwd += dry.rows[i].flops;
    T_ASSERT(fwd == p.fwd_conv_flops * c.run.batch, "table forward conv %lld, plan %lld x batch %d",
             (long long)fwd, (long long)p.fwd_conv_flops, c.run.batch);
    ktab_free(&dry);
    rig_close(&r);
    plan_free(&p);
}

/* Every gradient is reported ready exactly once, in backward order. */
static int ready_seen[64], ready_order[64], ready_n;
static void on_ready(void *user, int layer, void *grad, int64_t count)
{
    (void)user, (void)grad, (void)count;
    if (layer >= 0 && layer < 64) ready_seen[layer]++;
    if (ready_n < 64) ready_order[ready_n++] = layer;
}

static void test_every_gradient_reported_once(void)
{
    cfg_t c;
    small_cfg(&c);
    rig_t r;
    rig_open(&r, &c, kern_ref_ops(), NULL);
    memset(ready_seen, 0, sizeof ready_seen);
    ready_n = 0;
    net_forward(r.net, &r.kc, r.in, r.tg);
    net_backward(r.net, &r.kc, on_ready, NULL);
    T_ASSERT(ready_n == r.plan.n, "%d reports for %d layers", ready_n, r.plan.n);
    for (int i = 0; i < r.plan.n; i++) T_ASSERT(ready_seen[i] == 1, "layer %d reported %d times", i, ready_seen[i]);
    T_ASSERT(ready_order[0] == r.plan.conv_fin, "first ready is layer %d, not conv_fin", ready_order[0]);
    T_ASSERT(ready_order[r.plan.n - 1] == r.plan.conv_init, "last ready is not conv_init");
    rig_close(&r);
}

int main(void)
{
    check_set_program("test_stemdl_net");
    T_RUN(test_network_gradient_matches_finite_differences);
    T_RUN(test_fast_step_matches_reference_step);
    T_RUN(test_dry_step_counts_what_a_real_step_runs);
    T_RUN(test_every_gradient_reported_once);
    T_DONE();
}
