/* The climate network (benchmarks/networks/deepcam/cl_net*.c) on the
 * reference kernels:
 *  - its gradients are the loss's: for one parameter layer of every kind
 *    (first convolution, a strided depthwise one, a dilated depthwise one,
 *    the 1x1 skip, an atrous ASPP branch, the image-pool branch's convolution
 *    and affine, a batch norm, the biased 1x1 convolution, each transposed
 *    convolution), the gradient along a random direction on that layer
 *    equals the central difference of the loss within 2% + 2e-6 (the layers early
 *    in the network check every data gradient behind them: residual sums,
 *    concatenation windows, image pooling and its broadcast, ReLUs);
 *  - backward reports every layer ready exactly once, and the gradient
 *    tensors (network_t.tensors) tile the parameter array;
 *  - a dry step counts the FLOPs a real step counts;
 *  - gradient buffers are shared: at deepcam's size, batch 1, the network
 *    holds less than 7.5 GB (7.33 GB; 12.9 GB with a buffer per tensor). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/rng.h"
#include "benchmarks/networks/deepcam/cl_net.h"
#include "benchmarks/networks/deepcam/cl_network.h"
#include "benchmarks/networks/deepcam/cl_plan.h"
#include "tests/unit/tap.h"

enum { BATCH = 2 };

static cl_plan P;
static cl_net *N;
static float *w0, *g0, *in, *tg;

static double loss_at(const float *w, kc_t *kc)
{
    cl_net_set_params(N, w);
    return cl_net_forward(N, kc);
}

static int *ready_count;
static void on_ready(void *user, int layer, void *grad, int64_t count)
{
    (void)user, (void)grad, (void)count;
    ready_count[layer]++;
}

static int layer_named(const char *name)
{
    for (int i = 0; i < P.nop; i++)
        if (!strcmp(P.op[i].name, name)) return P.op[i].layer;
    return -1;
}

static void test_gradients(void)
{
    ktab_t tab;
    ktab_init(&tab, 4096);
    kc_t kc = {.ops = kern_ref_ops(), .tab = &tab};
    cl_net_init_params(N, 11);
    cl_net_get_params(N, w0);
    cl_net_load(N, in, tg);
    (void)cl_net_forward(N, &kc);
    cl_net_backward(N, &kc, NULL, NULL);
    net_params np;
    cl_net_param_arrays(N, &np);
    memcpy(g0, np.grads, (size_t)P.params * sizeof *g0);
    /* the step along the direction: 1e-3, and 1e-4 for the two early layers
     * whose loss curves fastest (one and two channels feeding batch norms) */
    static const struct {
        const char *name;
        double eps;
    } layers[] = {{"conv1", 1e-4},           {"block1.down.dw", 1e-4}, {"conv3.dw", 1e-3},
                  {"block2.skip", 1e-3},     {"aspp3", 1e-3},          {"aspp_pool.conv", 1e-3},
                  {"aspp_pool.affine", 1e-3}, {"block4.sep1.bn", 1e-3}, {"dec.conv3", 1e-3},
                  {"deconv1a", 1e-3},        {"deconv2", 1e-3},        {"last_deconv", 1e-3}};
    float *w = malloc((size_t)P.params * sizeof *w);
    T_ASSERT(w, "out of memory");
    for (size_t k = 0; k < sizeof layers / sizeof *layers; k++) {
        const char *name = layers[k].name;
        int l = layer_named(name);
        T_ASSERT(l >= 0, "no layer %s", name);
        const cl_op *o = &P.op[P.layer_op[l]];
        /* a unit direction on this layer's parameters */
        rng_t r = rng_stream(5, 9, (uint64_t)k, 0);
        double *d = malloc((size_t)o->count * sizeof *d), norm = 0, gd = 0;
        T_ASSERT(d, "out of memory");
        for (int64_t j = 0; j < o->count; j++) d[j] = rng_normal(&r), norm += d[j] * d[j];
        norm = sqrt(norm);
        for (int64_t j = 0; j < o->count; j++) d[j] /= norm, gd += d[j] * g0[o->off + j];
        double eps = layers[k].eps, f[2];
        for (int s = 0; s < 2; s++) {
            memcpy(w, w0, (size_t)P.params * sizeof *w);
            for (int64_t j = 0; j < o->count; j++)
                w[o->off + j] += (float)((s ? -eps : eps) * d[j]);
            f[s] = loss_at(w, &kc);
        }
        free(d);
        double fd = (f[0] - f[1]) / (2 * eps);
        printf("# %-18s gradient along a direction %+.6e, central difference %+.6e\n", name, gd,
               fd);
        T_ASSERT(fabs(fd - gd) <= 0.02 * fabs(gd) + 2e-6,
                 "layer %s: gradient along a direction %.6g, central difference %.6g", name, gd,
                 fd);
    }
    free(w);
    ktab_free(&tab);
}

static void test_ready_and_tensors(void)
{
    ktab_t tab;
    ktab_init(&tab, 4096);
    kc_t kc = {.ops = kern_ref_ops(), .tab = &tab};
    ready_count = calloc((size_t)P.layers, sizeof *ready_count);
    T_ASSERT(ready_count, "out of memory");
    cl_net_set_params(N, w0);
    (void)cl_net_forward(N, &kc);
    cl_net_backward(N, &kc, on_ready, NULL);
    for (int l = 0; l < P.layers; l++)
        T_ASSERT(ready_count[l] == 1, "layer %d reported ready %d times", l, ready_count[l]);
    free(ready_count);
    gsync_tensor *t;
    int n = climate_network.tensors(&P, &t);
    int64_t at = 0;
    /* backward order is the reverse of the layout: walk it from the end */
    for (int i = n - 1; i >= 0; i--) {
        T_ASSERT(t[i].off == at, "tensor %s starts at %lld, not %lld", t[i].name,
                 (long long)t[i].off, (long long)at);
        at += t[i].count;
    }
    T_ASSERT(at == P.params, "tensors cover %lld of %lld parameters", (long long)at,
             (long long)P.params);
    free(t);
    ktab_free(&tab);
}

static void test_dry_flops(void)
{
    ktab_t real, dry;
    ktab_init(&real, 4096);
    ktab_init(&dry, 4096);
    kc_t kr = {.ops = kern_ref_ops(), .tab = &real}, kd = {.ops = kern_ref_ops(), .tab = &dry, .dry = 1};
    char err[128];
    cl_net *d = cl_net_create(&P, kern_ref_ops(), NULL, BATCH, 1, err, sizeof err);
    T_ASSERT(d, "dry network: %s", err);
    (void)cl_net_forward(N, &kr);
    cl_net_backward(N, &kr, NULL, NULL);
    (void)cl_net_forward(d, &kd);
    cl_net_backward(d, &kd, NULL, NULL);
    T_ASSERT(ktab_total_flops(&real) == ktab_total_flops(&dry) && ktab_total_flops(&real) > 0,
             "a step counts %lld FLOPs, a dry one %lld", (long long)ktab_total_flops(&real),
             (long long)ktab_total_flops(&dry));
    cl_net_free(d);
    ktab_free(&real);
    ktab_free(&dry);
}

static void test_shared_gradients(void)
{
    cl_cfg c;
    T_ASSERT(cl_cfg_preset(&c, "deepcam") == 0, "no deepcam preset");
    cl_plan p;
    cl_plan_build(&p, &c);
    size_t b = cl_net_bytes_needed(&p, kern_ref_ops(), 1);
    cl_plan_free(&p);
    printf("# deepcam, batch 1: %.4g GB of network buffers\n", (double)b / 1e9);
    T_ASSERT(b > 6e9 && b < 7.5e9, "deepcam at batch 1 needs %.4g GB", (double)b / 1e9);
}

int main(void)
{
    cl_cfg c;
    if (cl_cfg_preset(&c, "tiny")) return 1;
    c.channels = 3, c.height = 32, c.width = 32, c.width_div = 32;
    cl_plan_build(&P, &c);
    char err[128];
    N = cl_net_create(&P, kern_ref_ops(), NULL, BATCH, 0, err, sizeof err);
    if (!N) return 1;
    w0 = malloc((size_t)P.params * sizeof *w0);
    g0 = malloc((size_t)P.params * sizeof *g0);
    size_t ni, nt;
    climate_network.batch_floats(&P, BATCH, &ni, &nt);
    in = malloc(ni * sizeof *in);
    tg = malloc(nt * sizeof *tg);
    if (!w0 || !g0 || !in || !tg) return 1;
    climate_network.generate(&P, 3, 0, 0, BATCH, in, tg);
    T_RUN(test_gradients);
    T_RUN(test_ready_and_tensors);
    T_RUN(test_dry_flops);
    T_RUN(test_shared_gradients);
    cl_net_free(N);
    cl_plan_free(&P);
    free(w0), free(g0), free(in), free(tg);
    T_DONE();
}
