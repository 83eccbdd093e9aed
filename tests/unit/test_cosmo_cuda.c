/* The CUDA set's 3D kernels (kern_cuda_3d.cu, kern_cuda_conv3d.cu) against
 * the reference loops, in fp32, bf16 and fp16, on the shapes of
 * tests/unit/cosmo_kcheck.h; the convolutions cut into sample chunks
 * (cuDNN's element limit lowered by EXADL_CUDNN_MAX_ELEMS); the fp16 MSE
 * gradient carrying the loss scale (issue 28 item 6: it did not, and fp16
 * CosmoFlow trained with gradients 65536x too small); and one CosmoFlow
 * training step of the CUDA set against the reference step, in fp32 and (its
 * gradients over the loss scale) fp16.  Without a GPU every test prints
 * SKIP, never PASS; in a build without the CUDA path one SKIP line says so.
 * A failed CUDA or cuDNN call fails its test and the next tests run
 * (tap_check.h; tests/it/gpu_check_abort.sh runs this on the fake module
 * with an error injected). */
#include <stdio.h>

#include "tests/unit/gpu_probe.h"
#include "tests/unit/tap.h"
#include "tests/unit/tap_check.h"

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
enum { FP32, BF16, FP16, CHUNKED, NSETS };
static kset_t REF, DEV[NSETS];
static const char *precs[NSETS] = {"fp32", "bf16", "fp16", "fp32"};
static const double tols[NSETS] = {1e-4, 2e-2, 2e-2, 1e-4};

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
        /* CHUNKED: cuDNN's element limit lowered so that the shapes below
         * are cut into calls of a sample or two (kern_cuda_conv3d.cu's conv3) */
        if (p == CHUNKED) setenv("EXADL_CUDNN_MAX_ELEMS", "2500", 1);
        DEV[p].ctx = K->create(&o, err, sizeof err);
        if (p == CHUNKED) unsetenv("EXADL_CUDNN_MAX_ELEMS");
        T_ASSERT(DEV[p].ctx, "kcu_create(%s%s): %s", precs[p], p == CHUNKED ? ", chunked" : "", err);
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
    /* fp16's loss gradient carries the loss scale (65536; mse_loss_scale_fp16
     * checks it), which kc_dense's MSE would overflow: its dense layers are
     * bf16's cuBLAS path with the other 16-bit type */
    if (p != FP16) kc_dense(&REF, d, 3, 37, 5);
}
static void test_fp32(void) { kernels(FP32); }
static void test_bf16(void) { kernels(BF16); }
static void test_fp16(void) { kernels(FP16); }

/* Batches of 4 and 5 samples whose views span more than the lowered limit
 * (2500 elements): each direction cut into chunks, the weight gradient
 * summed over them; a sample alone within it.  Same results as one call. */
static void test_chunked(void)
{
    kset_t *d = dev(CHUNKED);
    kc_conv(&REF, d, 5, 4, 8, 3, 4, 4, 4, KC_LAST);   /* x 4 x 6^3 = 864 per sample: 2 + 2 + 1 */
    kc_conv(&REF, d, 4, 4, 8, 3, 2, 2, 2, KC_SUBBOX); /* sub-boxes of halo-padded buffers: 3 + 1 */
    kc_conv(&REF, d, 5, 3, 4, 3, 4, 4, 4, KC_FIRST);  /* channels-first (an NCHW filter): 3 + 2 */
}

/* fp16: the MSE gradient carries the loss scale that Adam and Lion divide
 * out (as the L1 and cross-entropy gradients do): dy = 2 (y - t) / n times
 * the context's current scale (65536 at the start).  y - t is small enough
 * that the scaled gradient stays far from fp16's overflow. */
static void test_mse_loss_scale_fp16(void)
{
    kset_t *d = dev(FP16);
    const int n = 64;
    float y[64], t[64], dy[64];
    for (int i = 0; i < n; i++) y[i] = (float)(i - 32) / 64.0f, t[i] = y[i] + (float)((i % 7) - 3) / 1024.0f;
    size_t bytes = (size_t)n * d->ops->act_bytes;
    void *by = d->ops->alloc(d->ctx, bytes), *bt = d->ops->alloc(d->ctx, bytes), *bd = d->ops->alloc(d->ctx, bytes);
    T_ASSERT(by && bt && bd, "alloc");
    tview vy = {by, 1, 1, 1, n, n}, vt = {bt, 1, 1, 1, n, n}, vd = {bd, 1, 1, 1, n, n};
    d->ops->put_f32(d->ctx, &vy, y);
    d->ops->put_f32(d->ctx, &vt, t);
    d->ops->mse_bwd(d->ctx, by, bt, n, bd);
    d->ops->get_f32(d->ctx, &vd, dy);
    d->ops->sync(d->ctx);
    kcu_stats st;
    K->get_stats(d->ctx, &st);
    d->ops->release(d->ctx, by), d->ops->release(d->ctx, bt), d->ops->release(d->ctx, bd);
    T_ASSERT(st.loss_scaling && st.scale_final >= 1, "fp16 context without loss scaling (scale %g)", st.scale_final);
    for (int i = 0; i < n; i++) {
        double want = 2.0 * ((double)y[i] - t[i]) / n * st.scale_final;
        double e = fabs(dy[i] - want) / (fabs(want) > 1 ? fabs(want) : 1);
        T_ASSERT(e <= 2e-3, "dy[%d] = %g, expected 2 (y - t) / n x scale %g = %g (without the scale: %g)", i, dy[i],
                 st.scale_final, want, want / st.scale_final);
    }
}

/* One CosmoFlow tiny step (batch 1, parameters from seed 3) on set s with
 * input in and targets tg: its loss, and its gradients into g (the fp32
 * gradient array as the optimizer gets it) unless g is NULL. */
static double one_step(const kset_t *s, const cf_model *m, const float *in, const float *tg, float *g)
{
    char err[256];
    cf_net *n = cf_net_create(m, s->ops, s->ctx, 1, 0, err, sizeof err);
    T_ASSERT(n, "%s", err);
    ktab_t t;
    ktab_init(&t, 256);
    kc_t kc = {.ops = s->ops, .ctx = s->ctx, .tab = &t};
    cf_net_init_params(n, 3);
    cf_net_load(n, in, tg);
    double loss = cf_net_forward(n, &kc);
    if (g) {
        cf_net_backward(n, &kc, NULL, NULL);
        s->ops->sync(s->ctx);
        cf_net_grads_to_host(n, g);
    }
    ktab_free(&t);
    cf_net_free(n);
    return loss;
}

/* A whole step: loss and gradients of the CUDA set against the reference. */
static void test_step(void)
{
    kset_t *d = dev(FP32);
    cf_cfg c;
    cf_preset(&c, "tiny");
    cf_model m;
    cf_model_whole(&m, &c);
    const kset_t *s[2] = {&REF, d};
    size_t ni, nt;
    cosmoflow_network.batch_floats(&m, 1, &ni, &nt);
    float *in = malloc(ni * 4), *tg = malloc(nt * 4);
    cosmoflow_network.generate(&m, 1, 0, 0, 1, in, tg);
    double loss[2];
    float *g[2];
    for (int q = 0; q < 2; q++) {
        g[q] = malloc(m.plan.params * 4);
        loss[q] = one_step(s[q], &m, in, tg, g[q]);
    }
    free(in), free(tg);
    double mx = 0, err = 0;
    for (int64_t i = 0; i < m.plan.params; i++)
        mx = fmax(mx, fabs(g[0][i])), err = fmax(err, fabs(g[0][i] - g[1][i]));
    free(g[0]), free(g[1]);
    T_ASSERT(fabs(loss[0] - loss[1]) <= 1e-4 * fabs(loss[0]), "loss %.9g vs %.9g", loss[0], loss[1]);
    T_ASSERT(err <= 1e-4 * mx, "gradients: max error %.3g of %.3g", err, mx);
}

/* fp16 CosmoFlow (issue 28 item 6): the gradients Adam and Lion get are the
 * reference's times the loss scale they divide out.  Targets 0.05 from the
 * reference's outputs (found from the losses at targets 0 and e_j:
 * y_j = (1 - nt (L_j - L_0)) / 2) keep the scaled loss gradient far from
 * fp16's overflow.  Compared as a projection and a cosine (fp16 rounding
 * moves single gradients; a missing scale moves the projection 65536x). */
static void test_step_fp16(void)
{
    kset_t *d = dev(FP16);
    cf_cfg c;
    cf_preset(&c, "tiny");
    cf_model m;
    cf_model_whole(&m, &c);
    size_t ni, nt;
    cosmoflow_network.batch_floats(&m, 1, &ni, &nt);
    float *in = malloc(ni * 4), *tg = calloc(nt, 4), *y = malloc(nt * 4);
    cosmoflow_network.generate(&m, 1, 0, 0, 1, in, tg);
    memset(tg, 0, nt * 4);
    double l0 = one_step(&REF, &m, in, tg, NULL);
    for (size_t j = 0; j < nt; j++) {
        tg[j] = 1;
        y[j] = (float)((1 - (double)nt * (one_step(&REF, &m, in, tg, NULL) - l0)) / 2);
        tg[j] = 0;
    }
    for (size_t j = 0; j < nt; j++) tg[j] = y[j] + (j % 2 ? 0.05f : -0.05f);
    float *gr = malloc(m.plan.params * 4), *gh = malloc(m.plan.params * 4);
    one_step(&REF, &m, in, tg, gr);
    one_step(d, &m, in, tg, gh);
    kcu_stats st;
    K->get_stats(d->ctx, &st);
    double rr = 0, hr = 0, hh = 0;
    for (int64_t i = 0; i < m.plan.params; i++)
        rr += (double)gr[i] * gr[i], hr += (double)gh[i] * gr[i], hh += (double)gh[i] * gh[i];
    free(in), free(tg), free(y), free(gr), free(gh);
    T_ASSERT(st.loss_scaling && st.scale_final >= 1, "fp16 context without loss scaling (scale %g)", st.scale_final);
    T_ASSERT(isfinite(hh) && hh > 0, "fp16 gradients not finite or all zero (sum of squares %g) at scale %g", hh,
             st.scale_final);
    double proj = hr / rr / st.scale_final, cosv = hr / sqrt(rr * hh);
    T_ASSERT(proj > 0.8 && proj < 1.25,
             "fp16 gradients / loss scale %g are %.3g times the reference's (1 expected; 1/%g: the scale is missing)",
             st.scale_final, proj, st.scale_final);
    T_ASSERT(cosv > 0.95, "fp16 gradients point elsewhere than the reference's: cosine %.4f", cosv);
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
    tap_catch_checks();
    tap_run_("cosmo_cuda_kernels_fp32", test_fp32);
    tap_run_("cosmo_cuda_kernels_bf16", test_bf16);
    tap_run_("cosmo_cuda_kernels_fp16", test_fp16);
    tap_run_("cosmo_cuda_conv_chunked_fp32", test_chunked);
    tap_run_("cosmo_cuda_mse_loss_scale_fp16", test_mse_loss_scale_fp16);
    tap_run_("cosmo_cuda_step_fp32", test_step);
    tap_run_("cosmo_cuda_step_fp16", test_step_fp16);
    for (int p = 0; p < NSETS; p++)
        if (DEV[p].ctx) K->release(DEV[p].ctx);
    return tap_failed_ ? 1 : 0;
}
#endif
