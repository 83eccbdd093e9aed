/* wf_net (wf_net.h): the trainer's dense regression. */
#define _GNU_SOURCE
#include "benchmarks/workflow/wf_net.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/rng.h"
#include "benchmarks/workflow/wf_sample.h"

struct wf_net {
    int n, h, b;                 /* cells, hidden, batch */
    float *w, *g, *m, *v;        /* [w1 (h x n) | w2 (n x h)] and its gradient and moments */
    float *x, *t, *z, *y, *dy, *dz, *dz2;
    int64_t step;
    double lr;
    ktab_t tab;
    kc_t kc;
    void *ctx;
    int fast;
};

static float *alloc_f(size_t n, const char *what)
{
    return XCALLOC(n ? n : 1, sizeof(float), what);
}

wf_net *wf_net_create(const wf_cfg *c)
{
    wf_net *N = XCALLOC(1, sizeof *N, "trainer");
    N->n = (int)wf_cells(c), N->h = c->hidden, N->b = c->batch, N->lr = c->lr;
    size_t p = 2 * (size_t)N->n * (size_t)N->h, bn = (size_t)N->b * (size_t)N->n,
           bh = (size_t)N->b * (size_t)N->h;
    N->w = alloc_f(p, "weights"), N->g = alloc_f(p, "gradients");
    N->m = alloc_f(p, "Adam m"), N->v = alloc_f(p, "Adam v");
    N->x = alloc_f(bn, "inputs"), N->t = alloc_f(bn, "targets"), N->y = alloc_f(bn, "outputs");
    N->dy = alloc_f(bn, "output gradients");
    N->z = alloc_f(bh, "hidden"), N->dz = alloc_f(bh, "hidden gradients");
    N->dz2 = alloc_f(bh, "hidden gradients");
    /* He-style initial weights of the seed: the same run learns the same way */
    rng_t r = rng_stream(c->seed, 0x77, 0, 0);
    for (size_t i = 0; i < p; i++) {
        double fan = i < p / 2 ? N->n : N->h;
        N->w[i] = (float)((2 * rng_uniform(&r) - 1) * sqrt(3.0 / fan));
    }
    N->fast = c->kernels == 1;
    const kern_ops *ops = N->fast ? kern_fast_ops() : kern_ref_ops();
    if (N->fast) N->ctx = kern_fast_create(1);
    ktab_init(&N->tab, 16);
    N->kc = (kc_t){.ops = ops, .ctx = N->ctx, .tab = &N->tab, .dry = 0, .timing = 1};
    return N;
}

void wf_net_free(wf_net *N)
{
    if (!N) return;
    ktab_free(&N->tab);
    if (N->ctx) kern_fast_release(N->ctx);
    float *bufs[] = {N->w, N->g, N->m, N->v, N->x, N->t, N->y, N->dy, N->z, N->dz, N->dz2};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) free(bufs[i]);
    free(N);
}

float *wf_net_input(wf_net *N, int i) { return N->x + (size_t)i * (size_t)N->n; }
float *wf_net_target(wf_net *N, int i) { return N->t + (size_t)i * (size_t)N->n; }

double wf_net_step(wf_net *N, int b, double *grad_s)
{
    kc_t *kc = &N->kc;
    float *w1 = N->w, *w2 = N->w + (size_t)N->n * N->h;
    float *g1 = N->g, *g2 = N->g + (size_t)N->n * N->h;
    tview z = {N->z, b, N->h, 1, 1, N->h}, dz = {N->dz, b, N->h, 1, 1, N->h},
          dz2 = {N->dz2, b, N->h, 1, 1, N->h};
    kc_dense_fwd(kc, "fc1", N->x, w1, b, N->n, N->h, N->z);
    kc_relu_fwd(kc, "fc1", &z, &z);
    kc_dense_fwd(kc, "fc2", N->z, w2, b, N->h, N->n, N->y);
    int64_t cnt = (int64_t)b * N->n;
    double loss = kc_mse_fwd(kc, "loss", N->y, N->t, cnt);
    kc_mse_bwd(kc, "loss", N->y, N->t, cnt, N->dy);
    kc_dense_bwd_weights(kc, "fc2", N->z, N->dy, b, N->h, N->n, g2);
    kc_dense_bwd_data(kc, "fc2", N->dy, w2, b, N->h, N->n, N->dz);
    kc_zero(kc, "fc1", &dz2); /* relu_bwd accumulates */
    kc_relu_bwd(kc, "fc1", &z, &dz, &dz2);
    kc_dense_bwd_weights(kc, "fc1", N->x, N->dz2, b, N->n, N->h, g1);
    *grad_s = wf_realtime_s();
    adam_hyper h = {.lr = N->lr, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .step = ++N->step,
                    .grad_scale = 1};
    int64_t half = (int64_t)N->n * N->h;
    kc_adam(kc, "fc1", w1, NULL, g1, N->m, N->v, half, &h);
    kc_adam(kc, "fc2", w2, NULL, g2, N->m + half, N->v + half, half, &h);
    return loss;
}

int64_t wf_net_params(const wf_net *N) { return 2 * (int64_t)N->n * N->h; }
int64_t wf_net_flops(const wf_net *N) { return ktab_total_flops(&N->tab); }
double wf_net_kernel_s(const wf_net *N) { return ktab_total_time(&N->tab); }
const char *wf_net_library(const wf_net *N) { return N->fast ? kern_fast_library() : "reference loops"; }
