/* The CUDA set's 3D kernels (kern_cuda_3d.cu) against the reference loops,
 * in fp32 and bf16, on the shapes of tests/unit/cosmo_kcheck.h; and one
 * CosmoFlow training step of the CUDA set against the reference step.
 * Without a GPU every test prints SKIP, never PASS; in a build without the
 * CUDA path one SKIP line says so. */
#include <stdio.h>

#include "tests/unit/gpu_probe.h"
#include "tests/unit/tap.h"

#if !EXADL_GPU
int main(void)
{
    printf("SKIP: cosmo_cuda: this build has no CUDA path (GPU=0, or nvcc, cuDNN or NCCL not "
           "found): the CUDA kernels are not built, nothing to test\n");
    return 0;
}
#else

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/cosmoflow/model/cf_network.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/kernels/cuda/kern_cuda.h"
#include "tests/unit/cosmo_kcheck.h"

static const kcu_api *K; /* the CUDA module (kcu_load) */
static int ndev;
static char why[512];
static kset_t REF, DEV[2];
static const char *precs[2] = {"fp32", "bf16"};
static const double tols[2] = {1e-4, 2e-2};

static kset_t *dev(int p)
{
    /* SKIP only where there is no GPU; CUDA that does not start where a
     * driver is, or a module that does not load there, FAILs */
    T_ASSERT(ndev >= 0, "CUDA cannot start: %s", why);
    if (ndev == 0) T_SKIP("no CUDA GPU (%s)", why);
    if (!DEV[p].ctx) {
        char err[256];
        kcu_opts o = {.precision = precs[p], .device = 0, .algo = "heuristic",
                      .workspace_limit = (size_t)256 << 20};
        DEV[p].ctx = K->create(&o, err, sizeof err);
        T_ASSERT(DEV[p].ctx, "kcu_create(%s): %s", precs[p], err);
        DEV[p].ops = K->ops(DEV[p].ctx);
        DEV[p].tol = tols[p];
    }
    return &DEV[p];
}

static void kernels(int p)
{
    kset_t *d = dev(p);
    kc_conv(&REF, d, 1, 4, 32, 3, 6, 5, 7, KC_LAST);
    kc_conv(&REF, d, 2, 16, 32, 3, 4, 4, 4, KC_GAP);
    kc_conv(&REF, d, 2, 3, 4, 5, 2, 3, 3, KC_FIRST);
    kc_conv(&REF, d, 1, 8, 8, 3, 3, 2, 4, KC_SUBBOX);
    for (int kind = 0; kind < 4; kind++) kc_elementwise(&REF, d, 2, 5, 4, 6, 2, kind);
    kc_dense(&REF, d, 3, 37, 5);
}
static void test_fp32(void) { kernels(0); }
static void test_bf16(void) { kernels(1); }

/* A whole step: loss and gradients of the CUDA set against the reference. */
static void test_step(void)
{
    kset_t *d = dev(0);
    cf_cfg c;
    cf_preset(&c, "tiny");
    cf_model m;
    cf_model_whole(&m, &c);
    const kset_t *s[2] = {&REF, d};
    double loss[2];
    float *g[2];
    for (int q = 0; q < 2; q++) {
        char err[256];
        cf_net *n = cf_net_create(&m, s[q]->ops, s[q]->ctx, 1, 0, err, sizeof err);
        T_ASSERT(n, "%s", err);
        ktab_t t;
        ktab_init(&t, 256);
        kc_t kc = {.ops = s[q]->ops, .ctx = s[q]->ctx, .tab = &t};
        cf_net_init_params(n, 3);
        size_t ni, nt;
        cosmoflow_network.batch_floats(&m, 1, &ni, &nt);
        float *in = malloc(ni * 4), *tg = malloc(nt * 4);
        cosmoflow_network.generate(&m, 1, 0, 0, 1, in, tg);
        cf_net_load(n, in, tg);
        loss[q] = cf_net_forward(n, &kc);
        cf_net_backward(n, &kc, NULL, NULL);
        s[q]->ops->sync(s[q]->ctx);
        g[q] = malloc(m.plan.params * 4);
        cf_net_grads_to_host(n, g[q]);
        free(in), free(tg);
        ktab_free(&t);
        cf_net_free(n);
    }
    double mx = 0, err = 0;
    for (int64_t i = 0; i < m.plan.params; i++)
        mx = fmax(mx, fabs(g[0][i])), err = fmax(err, fabs(g[0][i] - g[1][i]));
    free(g[0]), free(g[1]);
    T_ASSERT(fabs(loss[0] - loss[1]) <= 1e-4 * fabs(loss[0]), "loss %.9g vs %.9g", loss[0], loss[1]);
    T_ASSERT(err <= 1e-4 * mx, "gradients: max error %.3g of %.3g", err, mx);
}

int main(void)
{
    K = kcu_load(why, sizeof why);
    if (K) {
        ndev = K->device_count(why, sizeof why);
    } else {
        /* the module needs the CUDA libraries: without them there is no GPU
         * to test, unless nvidia-smi -L lists one (gpu_probe.h) */
        ndev = gpu_probe_unloaded(why);
    }
    REF = (kset_t){kern_ref_ops(), NULL, 0};
    tap_run_("cosmo_cuda_kernels_fp32", test_fp32);
    tap_run_("cosmo_cuda_kernels_bf16", test_bf16);
    tap_run_("cosmo_cuda_step_fp32", test_step);
    for (int p = 0; p < 2; p++)
        if (DEV[p].ctx) K->release(DEV[p].ctx);
    return tap_failed_ ? 1 : 0;
}
#endif
