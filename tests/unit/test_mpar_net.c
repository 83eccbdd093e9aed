/* The modelpar network on one rank (no MPI): its gradients against finite
 * differences of its loss (directional derivatives along random directions,
 * one per parameter layer and one over everything), with the dense pair and
 * the sparsity term on, and a dry step's FLOPs against the formula. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/rng.h"
#include "benchmarks/modelpar/mp_config.h"
#include "benchmarks/modelpar/mp_net.h"
#include "benchmarks/modelpar/mp_network.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/kernels/kern.h"
#include "benchmarks/train/train.h"
#include "tests/unit/tap.h"

/* tiny with 2 channels, hidden 3 and 5, kernel 3, a pair of 4, sparsity */
static mp_cfg cfg(void)
{
    mp_cfg c;
    T_ASSERT(mp_preset(&c, "tiny") == 0, "tiny preset");
    c.size = 6, c.channels = 2, c.hidden1 = 3, c.hidden2 = 5, c.dense = 4, c.sparsity = 0.05;
    c.run.batch = 2;
    char err[256];
    T_ASSERT(mp_validate(&c, err, sizeof err) == 0, "%s", err);
    return c;
}

static void test_gradients_fd(void)
{
    mp_cfg c = cfg();
    mp_model m;
    char err[256];
    T_ASSERT(mp_model_build(&m, &c, NULL, 1, 0, err, sizeof err) == 0, "model: %s", err);
    void *n = mp_net_create(&m, kern_ref_ops(), NULL, c.run.batch, 0, err, sizeof err);
    T_ASSERT(n, "create: %s", err);
    mp_net_init_params(n, 7);
    size_t ni, nt;
    modelpar_network.batch_floats(&m, c.run.batch, &ni, &nt);
    float *in = malloc(ni * sizeof *in), *tg = malloc(nt * sizeof *tg);
    modelpar_network.generate(&m, 3, 0, 0, c.run.batch, in, tg);
    mp_net_load(n, in, tg);
    ktab_t tab;
    ktab_init(&tab, 256);
    kc_t kc = {.ops = kern_ref_ops(), .tab = &tab};
    int64_t P = m.g.params_rank;
    net_params np;
    mp_net_params(n, &np);
    float *w = malloc(P * sizeof *w), *g = malloc(P * sizeof *g), *wp = malloc(P * sizeof *wp);
    double *v = malloc(P * sizeof *v);
    mp_net_get_params(n, w);
    rng_t rb = rng_stream(11, 0, 0, 0); /* non-zero biases, so that their gradients matter */
    for (int l = 0; l < MP_LAYERS; l++)
        for (int64_t j = m.g.layer[l].off_b; j < m.g.layer[l].off_w + m.g.layer[l].params_rank; j++)
            w[j] = (float)(0.1 * (2 * rng_uniform(&rb) - 1));
    mp_net_set_params(n, w);
    (void)mp_net_forward(n, &kc);
    mp_net_backward(n, &kc, NULL, NULL);
    memcpy(g, np.grads, P * sizeof *g);
    /* the parameter layers: lc1, lc2, lc3, tp1, tp2, then everything */
    int64_t lo[6], hi[6];
    for (int l = 0; l < MP_LAYERS; l++)
        lo[l] = m.g.layer[l].off_w, hi[l] = lo[l] + m.g.layer[l].params_rank;
    lo[3] = m.g.off_tp1, hi[3] = m.g.off_tp2, lo[4] = m.g.off_tp2;
    hi[4] = m.g.off_tp2 + m.g.tp_params_rank / 2, lo[5] = 0, hi[5] = P;
    const char *names[] = {"lc1", "lc2", "lc3", "tp1", "tp2", "all"};
    for (int d = 0; d < 6; d++) {
        rng_t rv = rng_stream(5, (uint64_t)d, 0, 0);
        double gv = 0, norm = 0;
        for (int64_t i = 0; i < P; i++) {
            v[i] = i >= lo[d] && i < hi[d] ? rng_normal(&rv) : 0;
            norm += v[i] * v[i];
        }
        norm = sqrt(norm);
        for (int64_t i = 0; i < P; i++) v[i] /= norm, gv += g[i] * v[i];
        double e = 1e-3;
        for (int64_t i = 0; i < P; i++) wp[i] = (float)(w[i] + e * v[i]);
        mp_net_set_params(n, wp);
        double lp = mp_net_forward(n, &kc);
        for (int64_t i = 0; i < P; i++) wp[i] = (float)(w[i] - e * v[i]);
        mp_net_set_params(n, wp);
        double lm = mp_net_forward(n, &kc), fd = (lp - lm) / (2 * e);
        T_ASSERT(fabs(fd - gv) <= 0.02 * fabs(gv) + 1e-5,
                 "%s: finite difference %.6g, gradient . v %.6g", names[d], fd, gv);
    }
    free(w), free(g), free(wp), free(v), free(in), free(tg);
    ktab_free(&tab);
    mp_net_free(n);
    mp_model_free(&m);
}

/* A dry step's FLOPs (optimizer included) against the formula plus Adam's 13
 * per weight. */
static void test_dry_equals_formula(void)
{
    mp_cfg c = cfg();
    mp_model m;
    char err[256];
    T_ASSERT(mp_model_build(&m, &c, NULL, 1, 0, err, sizeof err) == 0, "model: %s", err);
    int64_t dry = train_dry_flops(&modelpar_network, &m, c.run.batch, NULL);
    int64_t want = mp_geom_flops(&m.g, c.run.batch, 0) + 13 * m.g.params_rank;
    T_ASSERT(dry == want, "dry step %lld FLOPs, formula %lld", (long long)dry, (long long)want);
    mp_model_free(&m);
}

int main(void)
{
    tap_run_("mpar_gradients_fd", test_gradients_fd);
    tap_run_("mpar_dry_equals_formula", test_dry_equals_formula);
    return tap_failed_ ? 1 : 0;
}
