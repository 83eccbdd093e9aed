/* The 3D U-Net's host loops (benchmarks/cosmoflow/model/un_host.c,
 * un_train.c): backward against central differences of the loss for
 * parameters of every layer (conv, batch norm scale and shift, transposed
 * conv, the last 1^3 conv), on a 16^3 network of filters 2, batch 2; and the plan's counts for LBANN's network (docs/cosmoflow.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/cosmoflow/model/un_plan.h"
#include "benchmarks/cosmoflow/model/un_train.h"
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
    un_net *n = un_net_create(&p, MPI_COMM_NULL);
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

int main(void)
{
    T_RUN(test_counts);
    T_RUN(test_gradients);
    T_DONE();
}
