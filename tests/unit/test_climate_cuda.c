/* The CUDA set's segmentation kernels (cuda/kern_cuda_conv.cu's dconv,
 * cuda/kern_cuda_seg.cu, cuda/kern_cuda_segew.cu) against the reference set
 * (ref/kern_ref_seg.c), in fp32 and bf16: dilated and grouped convolution
 * forward, data and weight gradients; batch norm forward (y, mean, biased variance) and backward
 * (dx, dgamma, dbeta); weighted cross-entropy (loss, dz); image pooling and
 * broadcast.  The shapes are test_train_seg_fast.c's (DeepLabv3+'s
 * geometries: stride 2, atrous rates 2/4/6, 1x1, depthwise and grouped).
 *
 * Error norm: for each output, max |cuda - ref| / max |ref| over the view's
 * elements; tolerance 1e-4 in fp32 (cuDNN restricted to FMA math in fp32,
 * kern_cuda_policy.h), 1e-2 in bf16 (every input is rounded to bf16 first,
 * for both sets, so the error left is the outputs' bf16 rounding and
 * cuDNN's accumulation order).  The loss: relative error.  Each view is a
 * window of channels of a larger buffer with a gap between samples; the
 * elements outside the window must come back as they went in.
 *
 * And one climate training step (loss and every gradient) of the CUDA set
 * against the reference's (test_step_fp32: loss 1e-4 relative, gradients
 * 1e-3 normwise).
 *
 * Without a GPU every test prints SKIP, never PASS; CUDA that does not
 * start where a driver is FAILs (as test_cosmo_cuda.c). */
#include <stdio.h>

#include "tests/unit/gpu_probe.h"
#include "tests/unit/tap.h"
#include "tests/unit/tap_check.h"

#if !EXADL_GPU
int main(void)
{
    printf("SKIP: climate_cuda: this build has no CUDA path (GPU=0, or nvcc, cuDNN or NCCL not "
           "found): the CUDA kernels are not built, nothing to test\n");
    return 0;
}
#else

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/rng.h"
#include "benchmarks/networks/deepcam/cl_net.h"
#include "benchmarks/networks/deepcam/cl_network.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/kernels/cuda/kern_cuda.h"
#include "benchmarks/train/kernels/kern.h"

static const kcu_api *K;
static int ndev;
static char why[512];
static const kern_ops *Rf;
static const char *precs[2] = {"fp32", "bf16"};
static const double tols[2] = {1e-4, 1e-2};
static void *ctxs[2];
static const kern_ops *Dops[2];
static rng_t R;
static int P; /* the precision under test */
static double worst[2][4];

static int npool, ndmem;
static void free_all(void);

static void dev(int p)
{
    if (npool || ndmem) free_all(); /* what a failed case left, on its own context */
    T_ASSERT(ndev >= 0, "CUDA cannot start: %s", why);
    if (ndev == 0) T_SKIP("no CUDA GPU (%s)", why);
    if (!ctxs[p]) {
        char err[256];
        kcu_opts o = {.precision = precs[p], .device = 0, .algo = "heuristic",
                      .workspace_limit = (size_t)256 << 20};
        ctxs[p] = K->create(&o, err, sizeof err);
        T_ASSERT(ctxs[p], "kcu_create(%s): %s", precs[p], err);
        Dops[p] = K->ops(ctxs[p]);
    }
    const kern_ops *D = Dops[p];
    T_ASSERT(D->dconv_fwd && D->dconv_bwd_data && D->dconv_bwd_weights && D->bn_fwd && D->bn_bwd &&
                 D->wce_fwd && D->wce_bwd && D->gpool_fwd && D->bcast_fwd,
             "the CUDA set lacks segmentation kernels");
    P = p;
}

/* bf16 round to nearest even (the inputs both sets see in bf16 mode) */
static float rbf(float f)
{
    if (P == 0) return f;
    uint32_t u;
    memcpy(&u, &f, 4);
    u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    memcpy(&f, &u, 4);
    return f;
}

/* A host buffer with a window view, and its device copy. */
typedef struct {
    float *h;
    size_t len;
    int64_t off;
    tview hv, dv;
    void *d;
} tb;

static tb pool_[64];
static void *dmem[64];

static void *dalloc(size_t bytes)
{
    if (ndmem == 64) abort();
    void *p = Dops[P]->alloc(ctxs[P], bytes ? bytes : 4);
    T_ASSERT(p, "device allocation of %zu bytes", bytes);
    return dmem[ndmem++] = p;
}

static tview flat(void *p, size_t len) { return (tview){p, 1, 1, 1, (int)len, (int64_t)len}; }

static float *hvec(size_t n, int random)
{
    if (npool == 64) abort();
    tb *t = &pool_[npool++];
    memset(t, 0, sizeof *t);
    t->len = n;
    t->h = malloc(n * sizeof(float) + 4);
    if (!t->h) abort();
    for (size_t i = 0; i < n; i++) t->h[i] = random ? rbf((float)(2 * rng_uniform(&R) - 1)) : 0;
    return t->h;
}

/* host floats -> device in the compute type (activations, weights, gamma) */
static void *dput(const float *h, size_t n)
{
    void *d = dalloc(n * Dops[P]->act_bytes);
    tview v = flat(d, n);
    Dops[P]->put_f32(ctxs[P], &v, h);
    return d;
}

/* host bytes -> device as they are (fp32 statistics, labels, class weights) */
static void *draw(const void *h, size_t bytes)
{
    void *d = dalloc(bytes);
    Dops[P]->h2d(ctxs[P], d, h, bytes);
    return d;
}

static tb *mk(int n, int c, int h, int w, int pre, int post, int gap)
{
    int64_t ss = (int64_t)(pre + c + post) * h * w + gap;
    float *buf = hvec((size_t)(n * ss), 1);
    tb *t = &pool_[npool - 1];
    t->off = (int64_t)pre * h * w;
    t->hv = (tview){buf + t->off, n, c, h, w, ss};
    t->d = dput(buf, t->len);
    t->dv = t->hv;
    t->dv.p = (char *)t->d + (size_t)t->off * Dops[P]->act_bytes;
    return t;
}

/* a host copy of s (the reference's output buffer) */
static tb *dup(const tb *s)
{
    float *buf = hvec(s->len, 0);
    tb *d = &pool_[npool - 1];
    memcpy(buf, s->h, s->len * sizeof(float));
    d->off = s->off;
    d->hv = s->hv;
    d->hv.p = buf + s->off;
    return d;
}

static float *dget(const tb *t)
{
    float *out = hvec(t->len, 0);
    Dops[P]->sync(ctxs[P]);
    tview v = flat(t->d, t->len);
    Dops[P]->get_f32(ctxs[P], &v, out);
    return out;
}

static float *dget_raw(const void *d, size_t n)
{
    float *out = hvec(n, 0);
    Dops[P]->sync(ctxs[P]);
    Dops[P]->d2h(ctxs[P], out, d, n * sizeof(float));
    return out;
}

static void free_all(void)
{
    while (npool) free(pool_[--npool].h);
    while (ndmem) Dops[P]->release(ctxs[P], dmem[--ndmem]);
}

static int inside(const tview *v, int64_t off, size_t i)
{
    int64_t rel = (int64_t)i - off;
    if (rel < 0) return 0;
    int64_t s = rel / v->sstride, in = rel % v->sstride;
    return s < v->n && in < (int64_t)v->c * v->h * v->w;
}

/* The window's normwise error of the device result against the reference's
 * buffer r; outside the window the device buffer must equal orig. */
static double werr(const tb *dvc, const tb *r, const tb *orig, const char *what)
{
    const float *f = dget(dvc);
    double num = 0, den = 0;
    for (size_t i = 0; i < dvc->len; i++) {
        if (inside(&dvc->hv, dvc->off, i)) {
            num = fmax(num, fabs((double)f[i] - r->h[i]));
            den = fmax(den, fabs((double)r->h[i]));
        } else {
            T_ASSERT(f[i] == orig->h[i], "%s: element %zu outside the window changed (%g, was %g)", what, i,
                     (double)f[i], (double)orig->h[i]);
        }
    }
    return den > 0 ? num / den : num;
}

static double verr(const float *f, const float *r, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        num = fmax(num, fabs((double)f[i] - r[i]));
        den = fmax(den, fabs((double)r[i]));
    }
    return den > 0 ? num / den : num;
}

/* n ci co k stride pad dil H W groups (test_train_seg_fast.c's) */
static const int shapes[][10] = {
    {2, 5, 7, 3, 1, 1, 1, 9, 10, 1},    {1, 3, 9, 3, 2, 1, 1, 13, 16, 1},
    {2, 6, 5, 3, 1, 2, 2, 11, 9, 1},    {1, 4, 6, 3, 1, 4, 4, 12, 13, 1},
    {2, 3, 4, 3, 1, 6, 6, 10, 14, 1},   {3, 9, 3, 1, 1, 0, 1, 7, 5, 1},
    {1, 16, 8, 1, 2, 0, 1, 8, 9, 1},    {2, 2, 3, 7, 2, 3, 1, 15, 12, 1},
    {1, 17, 19, 3, 1, 1, 1, 6, 6, 1},   {2, 13, 13, 3, 1, 2, 2, 9, 11, 13},
    {1, 16, 16, 3, 2, 1, 1, 10, 9, 16}, {2, 6, 9, 3, 1, 1, 1, 7, 8, 3}};

static void conv_case(const int *s)
{
    const kern_ops *D = Dops[P];
    void *c = ctxs[P];
    kern_dconv g = {s[3], s[4], s[5], s[6], s[9]};
    int n = s[0], ci = s[1], co = s[2], H = s[7], W = s[8];
    int ho = kern_dconv_out(H, &g), wo = kern_dconv_out(W, &g);
    tb *x = mk(n, ci, H, W, 1, 2, 3), *dy = mk(n, co, ho, wo, 2, 0, 5);
    tb *y = mk(n, co, ho, wo, 0, 1, 7), *dx = mk(n, ci, H, W, 2, 1, 1);
    tb *yr = dup(y), *dxr = dup(dx);
    size_t nw = (size_t)co * (ci / kern_dconv_groups(&g)) * g.k * g.k;
    float *w = hvec(nw, 1), *dwr = hvec(nw, 0);
    void *wd = dput(w, nw), *dwd = dalloc(nw * sizeof(float));
    D->dconv_fwd(c, &x->dv, wd, &g, &y->dv);
    Rf->dconv_fwd(NULL, &x->hv, w, &g, &yr->hv);
    D->dconv_bwd_data(c, &dy->dv, wd, &g, &dx->dv);
    Rf->dconv_bwd_data(NULL, &dy->hv, w, &g, &dxr->hv);
    D->dconv_bwd_weights(c, &x->dv, &dy->dv, &g, dwd);
    Rf->dconv_bwd_weights(NULL, &x->hv, &dy->hv, &g, dwr);
    double e[3] = {werr(y, yr, y, "dconv_fwd"), werr(dx, dxr, dx, "dconv_bwd_data"),
                   verr(dget_raw(dwd, nw), dwr, nw)};
    const char *name[3] = {"fwd", "bwd_data", "bwd_weights"};
    for (int i = 0; i < 3; i++) {
        worst[P][0] = fmax(worst[P][0], e[i]);
        T_ASSERT(e[i] < tols[P], "%s dconv_%s n%d ci%d co%d k%d s%d p%d d%d g%d %dx%d: error %.3g", precs[P],
                 name[i], n, ci, co, g.k, g.stride, g.pad, g.dil, g.groups, H, W, e[i]);
    }
    free_all();
}

static void bn_case(int n, int c, int h, int w)
{
    const kern_ops *D = Dops[P];
    void *cx = ctxs[P];
    float eps = 1e-5f;
    tb *x = mk(n, c, h, w, 1, 1, 4);
    /* shifted and scaled: statistics away from 0 and 1 */
    for (size_t i = 0; i < x->len; i++) x->h[i] = rbf(3.0f + 2.5f * x->h[i]);
    tview all = flat(x->d, x->len);
    D->put_f32(cx, &all, x->h);
    tb *dy = mk(n, c, h, w, 1, 1, 4), *y = mk(n, c, h, w, 1, 1, 4), *dx = mk(n, c, h, w, 1, 1, 4);
    tb *yr = dup(y), *dxr = dup(dx);
    size_t C = (size_t)c;
    float *gam = hvec(C, 1), *bet = hvec(C, 1), *mr = hvec(C, 0), *vr = hvec(C, 0), *dgr = hvec(C, 0),
          *dbr = hvec(C, 0);
    void *gd = dput(gam, C), *bd = dput(bet, C);
    float *md = dalloc(C * 4), *vd = dalloc(C * 4), *dgd = dalloc(C * 4), *dbd = dalloc(C * 4);
    D->bn_fwd(cx, &x->dv, gd, bd, eps, md, vd, &y->dv);
    Rf->bn_fwd(NULL, &x->hv, gam, bet, eps, mr, vr, &yr->hv);
    /* each set's backward on its own statistics (as the network runs them) */
    D->bn_bwd(cx, &x->dv, &dy->dv, gd, md, vd, eps, &dx->dv, dgd, dbd);
    Rf->bn_bwd(NULL, &x->hv, &dy->hv, gam, mr, vr, eps, &dxr->hv, dgr, dbr);
    double e[6] = {werr(y, yr, y, "bn_fwd"),         verr(dget_raw(md, C), mr, C),
                   verr(dget_raw(vd, C), vr, C),     werr(dx, dxr, dx, "bn_bwd"),
                   verr(dget_raw(dgd, C), dgr, C),   verr(dget_raw(dbd, C), dbr, C)};
    const char *name[6] = {"y", "mean", "var", "dx", "dgamma", "dbeta"};
    for (int i = 0; i < 6; i++) {
        worst[P][1] = fmax(worst[P][1], e[i]);
        T_ASSERT(e[i] < tols[P], "%s bn %s n%d c%d %dx%d: error %.3g", precs[P], name[i], n, c, h, w, e[i]);
    }
    free_all();
}

static void wce_pool_case(int n, int C, int h, int w)
{
    const kern_ops *D = Dops[P];
    void *cx = ctxs[P];
    size_t pixels = (size_t)n * h * w;
    tb *z = mk(n, C, h, w, 1, 0, 3);
    for (size_t j = 0; j < z->len; j++) z->h[j] = rbf(4 * z->h[j]); /* confident and wrong pixels */
    tview all = flat(z->d, z->len);
    D->put_f32(cx, &all, z->h);
    tb *dz = mk(n, C, h, w, 0, 2, 1), *dzr = dup(dz);
    int32_t *l = malloc(pixels * sizeof *l);
    float *cw = hvec((size_t)C, 0);
    if (!l) abort();
    for (size_t j = 0; j < pixels; j++) l[j] = (int32_t)(rng_next(&R) % (uint64_t)C);
    for (int k = 0; k < C; k++) cw[k] = 0.1f + 2.0f * (float)k;
    const int32_t *ld = draw(l, pixels * sizeof *l);
    const float *cwd = draw(cw, (size_t)C * 4);
    double lf = D->wce_fwd(cx, &z->dv, ld, cwd), lr = Rf->wce_fwd(NULL, &z->hv, l, cw);
    D->wce_bwd(cx, &z->dv, ld, cwd, &dz->dv);
    Rf->wce_bwd(NULL, &z->hv, l, cw, &dzr->hv);
    double e[4] = {fabs(lf - lr) / fabs(lr), werr(dz, dzr, dz, "wce_bwd"), 0, 0};
    tb *v = mk(n, C, 1, 1, 0, 1, 2), *vr = dup(v);
    tb *b = mk(n, C, h, w, 1, 1, 1), *br = dup(b);
    D->gpool_fwd(cx, &z->dv, &v->dv, 1.0f / (float)(h * w));
    Rf->gpool_fwd(NULL, &z->hv, &vr->hv, 1.0f / (float)(h * w));
    /* broadcast from the pooled values (host side: the reference's input) */
    D->bcast_fwd(cx, &v->dv, &b->dv, 0.5f);
    tb *vin = dup(v);
    memcpy(vin->h, dget(v), v->len * sizeof(float));
    Rf->bcast_fwd(NULL, &vin->hv, &br->hv, 0.5f);
    e[2] = werr(v, vr, v, "gpool_fwd");
    e[3] = werr(b, br, b, "bcast_fwd");
    free(l);
    const char *name[4] = {"wce_fwd", "wce_bwd", "gpool", "bcast"};
    for (int k = 0; k < 4; k++) {
        worst[P][2] = fmax(worst[P][2], e[k]);
        T_ASSERT(e[k] < tols[P], "%s %s n%d C%d %dx%d: error %.3g", precs[P], name[k], n, C, h, w, e[k]);
    }
    free_all();
}

static void run_dconv(int p)
{
    dev(p);
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) conv_case(shapes[i]);
    conv_case(shapes[1]); /* again: the cached descriptors and algorithm */
}

static void run_bn(int p)
{
    dev(p);
    int shp[][4] = {{2, 5, 7, 9}, {1, 16, 8, 8}, {4, 3, 1, 1}, {3, 21, 5, 6}};
    for (size_t i = 0; i < sizeof shp / sizeof *shp; i++) bn_case(shp[i][0], shp[i][1], shp[i][2], shp[i][3]);
}

static void run_wce_pool(int p)
{
    dev(p);
    int shp[][4] = {{2, 3, 9, 7}, {1, 3, 16, 16}, {3, 5, 4, 6}};
    for (size_t i = 0; i < sizeof shp / sizeof *shp; i++)
        wce_pool_case(shp[i][0], shp[i][1], shp[i][2], shp[i][3]);
}

/* One climate step (a narrowed tiny preset, batch 2) of the CUDA set
 * against the reference step: the loss within 1e-4 relative, the whole
 * gradient within 1e-3 normwise (max |cuda - ref| / max |ref|: errors of
 * fp32 kernels compounded through 40-odd layers and batch norms). */
static void test_step_fp32(void)
{
    dev(0);
    free_all();
    cl_cfg c;
    T_ASSERT(cl_cfg_preset(&c, "tiny") == 0, "no tiny preset");
    c.channels = 3, c.height = 32, c.width = 32, c.width_div = 32;
    cl_plan p;
    cl_plan_build(&p, &c);
    const kern_ops *ops[2] = {Rf, Dops[0]};
    void *cx[2] = {NULL, ctxs[0]};
    double loss[2];
    float *g[2];
    size_t ni, nt;
    climate_network.batch_floats(&p, 2, &ni, &nt);
    float *in = malloc(ni * sizeof *in), *tg = malloc(nt * sizeof *tg);
    T_ASSERT(in && tg, "out of memory");
    climate_network.generate(&p, 3, 0, 0, 2, in, tg);
    for (int q = 0; q < 2; q++) {
        char err[256];
        cl_net *n = cl_net_create(&p, ops[q], cx[q], 2, 0, err, sizeof err);
        T_ASSERT(n, "%s", err);
        ktab_t t;
        ktab_init(&t, 4096); /* a row per kernel and layer */
        kc_t kc = {.ops = ops[q], .ctx = cx[q], .tab = &t};
        cl_net_init_params(n, 3);
        cl_net_load(n, in, tg);
        loss[q] = cl_net_forward(n, &kc);
        cl_net_backward(n, &kc, NULL, NULL);
        ops[q]->sync(cx[q]);
        net_params np;
        cl_net_param_arrays(n, &np);
        g[q] = malloc((size_t)p.params * sizeof(float));
        T_ASSERT(g[q], "out of memory");
        ops[q]->d2h(cx[q], g[q], np.grads, (size_t)p.params * sizeof(float));
        ktab_free(&t);
        cl_net_free(n);
    }
    double e = verr(g[1], g[0], (size_t)p.params);
    int64_t params = p.params;
    free(g[0]), free(g[1]), free(in), free(tg);
    cl_plan_free(&p);
    printf("# step: loss %.9g (reference %.9g), gradient error %.3g over %lld parameters\n", loss[1], loss[0], e,
           (long long)params);
    T_ASSERT(fabs(loss[0] - loss[1]) <= 1e-4 * fabs(loss[0]), "loss %.9g vs %.9g", loss[1], loss[0]);
    T_ASSERT(e <= 1e-3, "gradients: normwise error %.3g", e);
}

static void test_dconv_fp32(void) { run_dconv(0); }
static void test_dconv_bf16(void) { run_dconv(1); }
static void test_bn_fp32(void) { run_bn(0); }
static void test_bn_bf16(void) { run_bn(1); }
static void test_wce_pool_fp32(void) { run_wce_pool(0); }
static void test_wce_pool_bf16(void) { run_wce_pool(1); }

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
    R = rng_stream(2026, 33, 1, 0);
    Rf = kern_ref_ops();
    tap_catch_checks(); /* a CUDA error fails its test, the next tests run */
    T_RUN(test_dconv_fp32);
    T_RUN(test_dconv_bf16);
    T_RUN(test_bn_fp32);
    T_RUN(test_bn_bf16);
    T_RUN(test_wce_pool_fp32);
    T_RUN(test_wce_pool_bf16);
    T_RUN(test_step_fp32);
    if (ctxs[0] || ctxs[1])
        printf("# worst normwise error fp32: dconv %.3g, bn %.3g, loss/pool %.3g (tolerance %.0e); "
               "bf16: %.3g, %.3g, %.3g (tolerance %.0e)\n",
               worst[0][0], worst[0][1], worst[0][2], tols[0], worst[1][0], worst[1][1], worst[1][2],
               tols[1]);
    for (int p = 0; p < 2; p++) {
        if (ctxs[p]) K->release(ctxs[p]);
    }
    T_DONE();
}
#endif
