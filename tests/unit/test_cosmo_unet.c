/* The 3D U-Net's host loops (benchmarks/cosmoflow/model/un_host.c,
 * un_train.c): backward against central differences of the loss for
 * parameters of every layer (conv, batch norm scale and shift, transposed
 * conv, the last 1^3 conv), on a 16^3 network of filters 2, batch 2; the
 * kernel sets' path (un_kern.c: the reference and the fast oneDNN set)
 * against the host loops: loss and every gradient, and 3 trained steps;
 * and the plan's counts for LBANN's network (docs/cosmoflow.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/cosmoflow/model/un_plan.h"
#include "benchmarks/cosmoflow/model/un_train.h"
#include "benchmarks/train/kernels/kern.h"
#include "tests/unit/tap.h"

static void test_counts(void)
{
    un_cfg c;
    T_ASSERT(un_preset(&c, "unet128") == 0, "unet128 preset");
    un_plan p;
    un_plan_build(&p, &c);
    /* tests/support/unet3d_count.py with its defaults */
    T_ASSERT(p.params == 19070560, "parameters %lld", (long long)p.params);
    T_ASSERT(p.fwd_conv_flops == 3908017586176LL, "forward FLOPs %lld", (long long)p.fwd_conv_flops);
    T_ASSERT(p.nlayers == 18, "layers %d", p.nlayers);
    T_ASSERT(un_preset(&c, "nope") == -1, "unknown preset accepted");
}

static void test_gradients(void)
{
    un_cfg c;
    un_preset(&c, "unet-tiny");
    c.size = 16, c.filters = 2, c.batch = 2, c.classes = 3, c.channels = 2;
    un_plan p;
    un_plan_build(&p, &c);
    un_net *n = un_net_create(&p, MPI_COMM_NULL, NULL, NULL);
    T_ASSERT(n, "create");
    int64_t f;
    un_net_grad(n, 0, &f);
    static float g[400000];
    T_ASSERT(p.params <= (int64_t)(sizeof g / sizeof g[0]), "params %lld", (long long)p.params);
    memcpy(g, un_net_grads(n), sizeof(float) * (size_t)p.params);
    float *w = un_net_params(n);
    int checked = 0, bad = 0;
    char why[256] = "";
    for (int l = 0; l < p.nlayers; l++) {
        const un_layer *ly = &p.layers[l];
        int64_t n_all = ly->nw + ly->nbn;
        /* a few weights, the first BN scale and shift */
        int64_t pick[4] = {ly->nw / 3, ly->nw - 1, ly->nw, ly->nw + ly->nbn / 2 + 1};
        for (int q = 0; q < 4; q++) {
            if (pick[q] >= n_all) continue;
            int64_t i = ly->off + pick[q];
            float keep = w[i], h = 1.5e-4f;
            w[i] = keep + h;
            double lp = un_net_grad(n, 0, &f);
            w[i] = keep - h;
            double lm = un_net_grad(n, 0, &f);
            w[i] = keep;
            double num = (lp - lm) / (2.0 * h);
            double err = fabs(num - g[i]) / (fabs(num) + fabs(g[i]) + 1e-3);
            checked++;
            if (getenv("UN_SHOW")) printf("# %s[%lld] %g %g\n", ly->name, (long long)pick[q], (double)g[i], num);
            if (err > 0.05) {
                bad++;
                snprintf(why, sizeof why, "%s[%lld]: backward %g, differences %g", ly->name,
                         (long long)pick[q], (double)g[i], num);
            }
        }
    }
    un_net_free(n);
    /* max-pool and ReLU kinks make the loss jumpy at large steps (differences
     * converge to backward as h shrinks: 1e-2 is 10-30% off in the encoder,
     * 1.5e-4 within 1%); two stragglers are allowed, more is a bug */
    T_ASSERT(bad <= 2, "%d of %d gradients off by over 5%%; last %s", bad, checked, why);
    T_ASSERT(checked >= 60, "only %d checked", checked);
}

/* max |a - b| over max |b| */
static double rel_diff(const float *a, const float *b, int64_t n)
{
    double d = 0, m = 0;
    for (int64_t i = 0; i < n; i++) {
        double e = fabs((double)a[i] - b[i]);
        d = e > d ? e : d;
        m = fabs((double)b[i]) > m ? fabs((double)b[i]) : m;
    }
    return m > 0 ? d / m : d;
}

static void test_kernel_sets(void)
{
    un_cfg c;
    un_preset(&c, "unet-tiny");
    /* filters 4: at filters 2 the reference set's double sums move a ReLU
     * or max-pool choice that sits on a tie of zeros (a kink of the loss,
     * not an error): its gradients then differ by a few % from the host
     * loops' float sums, while the fast set's agree within 2e-6 */
    c.size = 16, c.filters = 4, c.batch = 2, c.classes = 3, c.channels = 2;
    un_plan p;
    un_plan_build(&p, &c);
    un_net *h = un_net_create(&p, MPI_COMM_NULL, NULL, NULL);
    T_ASSERT(h, "create host");
    int64_t fh, fk;
    double lh = un_net_grad(h, 0, &fh);
    void *fctx = kern_fast_create(1);
    const kern_ops *sets[2] = {kern_ref_ops(), kern_fast_ops()};
    void *ctxs[2] = {NULL, fctx};
    for (int s = 0; s < 2; s++) {
        un_net *k = un_net_create(&p, MPI_COMM_NULL, sets[s], ctxs[s]);
        T_ASSERT(k, "create %s", sets[s]->name);
        double lk = un_net_grad(k, 0, &fk);
        T_ASSERT(fabs(lk - lh) <= 1e-6 * fabs(lh), "%s: loss %.9g, host loops %.9g", sets[s]->name,
                 lk, lh);
        /* every layer's gradient: weights (the sets' layouts converted back)
         * and batch norm's */
        for (int l = 0; l < p.nlayers; l++) {
            const un_layer *ly = &p.layers[l];
            int64_t o = ly->off, cnt = ly->nw + ly->nbn;
            double r = rel_diff(un_net_grads(k) + o, un_net_grads(h) + o, cnt);
            T_ASSERT(r < 1e-4, "%s: layer %s's gradient off by %.3g of its largest", sets[s]->name,
                     ly->name, r);
        }
        /* the kernel table has the step's FLOPs: the convolutions as the
         * host loops count them, plus the pooling's and the taps' adds */
        const ktab_t *t = un_net_ktab(k);
        T_ASSERT(t && ktab_total_flops(t) == fk, "%s: table %lld, step %lld", sets[s]->name,
                 (long long)(t ? ktab_total_flops(t) : -1), (long long)fk);
        T_ASSERT(fk >= fh && fk - fh < fh / 1000, "%s: %lld FLOPs, host loops %lld",
                 sets[s]->name, (long long)fk, (long long)fh);
        /* three steps of training: the same losses */
        un_net *h2 = un_net_create(&p, MPI_COMM_NULL, NULL, NULL);
        for (int st = 0; st < 3; st++) {
            int64_t fa, fb;
            double a = un_net_step(k, st, &fa), b = un_net_step(h2, st, &fb);
            T_ASSERT(fabs(a - b) <= 1e-5 * fabs(b), "%s: step %d loss %.9g, host loops %.9g",
                     sets[s]->name, st, a, b);
        }
        un_net_free(h2);
        un_net_free(k);
    }
    kern_fast_release(fctx);
    un_net_free(h);
}

int main(void)
{
    T_RUN(test_counts);
    T_RUN(test_gradients);
    T_RUN(test_kernel_sets);
    T_DONE();
}
