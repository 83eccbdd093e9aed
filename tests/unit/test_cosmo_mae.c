/* CosmoFlow's eval_error (network.h forward_mae, docs/data.md): the mean
 * absolute error of the last forward's output against the loaded targets,
 * over the batch's samples and targets, against a hand computation on a
 * tiny network whose output is known: every weight 0 and fc3's biases b,
 * so every sample's output is b (or s tanh(b) with the scaled output);
 * the MSE the forward returns is checked against the same hand values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/cosmoflow/model/cf_config.h"
#include "benchmarks/cosmoflow/model/cf_data.h"
#include "benchmarks/cosmoflow/model/cf_geom.h"
#include "benchmarks/cosmoflow/model/cf_network.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/kernels/kern.h"
#include "benchmarks/train/train.h"
#include "tests/unit/tap.h"

/* 3 samples of 2 targets: odd sizes, so a mean over the wrong count shows */
static cf_cfg tiny_cfg(double out_scale)
{
    cf_cfg c;
    T_ASSERT(cf_preset(&c, "tiny") == 0, "tiny preset");
    c.size = 8, c.blocks = 2, c.channels = 1, c.filters = 2;
    c.dense1 = 3, c.dense2 = 3, c.targets = 2;
    c.dropout = 0, c.out_scale = out_scale;
    c.run.batch = 3;
    char err[256];
    T_ASSERT(cf_validate(&c, err, sizeof err) == 0, "%s", err);
    return c;
}

static void mae_case(double out_scale)
{
    cf_cfg c = tiny_cfg(out_scale);
    cf_model m;
    cf_model_whole(&m, &c);
    char err[256];
    const kern_ops *ops = kern_ref_ops();
    cf_net *n = cf_net_create(&m, ops, NULL, c.run.batch, 0, err, sizeof err);
    T_ASSERT(n, "create: %s", err);
    const cf_plan *p = &m.plan;
    float *w = calloc((size_t)p->params, sizeof *w);
    const double b[2] = {0.25, -0.5};
    const cf_layer *f3 = &p->layers[p->nlayers - 1];
    for (int k = 0; k < 2; k++) w[f3->off_b + k] = (float)b[k];
    cf_net_set_params(n, w);

    size_t ni, nt;
    cosmoflow_network.batch_floats(&m, c.run.batch, &ni, &nt);
    T_ASSERT(nt == 6, "3 samples x 2 targets: %zu target floats", nt);
    float *in = calloc(ni, sizeof *in);
    /* targets by hand: above, below and on the output */
    float tg[6] = {1.0f, -0.5f, -0.75f, 0.5f, 0.25f, -2.0f};
    for (size_t i = 0; i < ni; i++) in[i] = (float)((i % 7) * 0.1);
    cf_net_load(n, in, tg);
    ktab_t tab;
    ktab_init(&tab, 64);
    kc_t kc = {.ops = ops, .ctx = NULL, .tab = &tab};
    double mse = cosmoflow_network.forward(n, &kc);
    T_ASSERT(cosmoflow_network.forward_mae, "cosmoflow has forward_mae");
    double mae = cosmoflow_network.forward_mae(n);

    double hand_abs = 0, hand_sq = 0;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 2; k++) {
            double y = out_scale > 0 ? out_scale * tanh(b[k]) : b[k];
            double d = y - tg[2 * i + k];
            hand_abs += fabs(d), hand_sq += d * d;
        }
    hand_abs /= 6, hand_sq /= 6;
    T_ASSERT(fabs(mae - hand_abs) <= 1e-6 * (1 + hand_abs),
             "out_scale %g: MAE %.9g, by hand %.9g", out_scale, mae, hand_abs);
    T_ASSERT(fabs(mse - hand_sq) <= 1e-5 * (1 + hand_sq),
             "out_scale %g: MSE %.9g, by hand %.9g (the output is not b)", out_scale, mse, hand_sq);
    if (out_scale == 0)
        T_ASSERT(fabs(mae - 4.25 / 6) < 1e-6, "linear output: MAE %.9g, want 4.25 / 6", mae);
    ktab_free(&tab);
    free(in);
    free(w);
    cf_net_free(n);
}

static void test_mae_linear(void) { mae_case(0); }
static void test_mae_tanh(void) { mae_case(1.2); }

int main(void)
{
    tap_run_("cosmo_mae_by_hand_linear", test_mae_linear);
    tap_run_("cosmo_mae_by_hand_tanh", test_mae_tanh);
    return tap_failed_ ? 1 : 0;
}
