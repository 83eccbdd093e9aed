/* The locally connected kernels (kern.h lc_fwd, lc_bwd_data,
 * lc_bwd_weights; modelpar, docs/modelparallel.md "Kernels"): each position
 * of the reference set equals the reference dense layer on that position's
 * slices (the definition); the fast set and the CUDA set against the
 * reference on several shapes (one position, odd sizes, a field of 9396
 * inputs as yfcc15b's lc2); the counted wrappers book npos x dense's FLOPs
 * and in dry mode run nothing.
 *
 * The CUDA tests need a GPU: without one they print SKIP, never PASS; in a
 * build without the CUDA path one SKIP line says so. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/train/counted.h"
#include "benchmarks/train/kernels/flops.h"
#include "benchmarks/train/kernels/kern.h"
#include "tests/unit/cosmo_kcheck.h"
#include "tests/unit/gpu_probe.h"
#include "tests/unit/tap.h"
#if EXADL_GPU
#include "benchmarks/train/kernels/cuda/kern_cuda.h"
#endif

static const int shapes[][4] = {/* npos, n, in, out */
                                {1, 1, 9, 4},
                                {7, 2, 25, 8},
                                {16, 3, 36, 5},
                                {3, 2, 200, 1},
                                {2, 1, 9396, 3}};

/* The three kernels of set s on the host inputs; outputs to host. */
static void run_lc(const kset_t *s, int npos, int n, int in, int out, const float *x,
                   const float *w, const float *dy, float *y, float *dx, float *dw)
{
    const kern_ops *o = s->ops;
    void *c = s->ctx, *wm;
    int64_t nx = (int64_t)npos * n * in, ny = (int64_t)npos * n * out,
            nw = (int64_t)npos * out * in;
    hview_t hx = kc_view(1, 1, 1, 1, (int)nx, KC_LAST, 1),
            hy = kc_view(1, 1, 1, 1, (int)ny, KC_LAST, 1);
    memcpy(hx.host, x, (size_t)nx * sizeof(float));
    void *bx, *by, *bdy, *bdx;
    kc_upload(s, &hx, &bx);
    kc_upload(s, &hx, &bdx);
    kc_upload(s, &hy, &by);
    memcpy(hy.host, dy, (size_t)ny * sizeof(float));
    kc_upload(s, &hy, &bdy);
    void *wc = kc_weights(s, w, nw, &wm);
    void *dwb = o->alloc(c, (size_t)nw * sizeof(float));
    T_ASSERT(o->lc_fwd && o->lc_bwd_data && o->lc_bwd_weights, "the set has no lc kernels");
    o->lc_fwd(c, bx, wc, npos, n, in, out, by);
    o->lc_bwd_data(c, bdy, wc, npos, n, in, out, bdx);
    o->lc_bwd_weights(c, bx, bdy, npos, n, in, out, dwb);
    o->sync(c);
    float *t = kc_download(s, &hy, by);
    memcpy(y, t, (size_t)ny * sizeof(float));
    free(t);
    t = kc_download(s, &hx, bdx);
    memcpy(dx, t, (size_t)nx * sizeof(float));
    free(t);
    o->d2h(c, dw, dwb, (size_t)nw * sizeof(float));
    void *all[] = {bx, by, bdy, bdx, dwb};
    for (int j = 0; j < 5; j++)
        o->release(c, all[j]);
    if (wc != wm) o->release(c, wc);
    o->release(c, wm);
    free(hx.host), free(hy.host);
}

static void near(const char *what, const int *sh, const float *a, const float *b, int64_t n,
                 double tol)
{
    double mx = 0, err = 0;
    for (int64_t i = 0; i < n; i++)
        mx = fmax(mx, fabs(a[i])), err = fmax(err, fabs(a[i] - b[i]));
    T_ASSERT(err <= tol * (mx > 0 ? mx : 1), "%s npos %d n %d in %d out %d: max error %.3g of %.3g",
             what, sh[0], sh[1], sh[2], sh[3], err, mx);
}

/* set b against the reference on every shape */
static void against_ref(const kset_t *b)
{
    kset_t ref = {kern_ref_ops(), NULL, 0};
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        const int *sh = shapes[k];
        int64_t nx = (int64_t)sh[0] * sh[1] * sh[2], ny = (int64_t)sh[0] * sh[1] * sh[3],
                nw = (int64_t)sh[0] * sh[3] * sh[2];
        float *x = kc_qrand(nx, 31), *w = kc_qrand(nw, 32), *dy = kc_qrand(ny, 33);
        float *r[3], *g[3];
        for (int q = 0; q < 2; q++) {
            float **o = q ? g : r;
            o[0] = malloc((size_t)ny * 4), o[1] = malloc((size_t)nx * 4),
            o[2] = malloc((size_t)nw * 4);
            run_lc(q ? b : &ref, sh[0], sh[1], sh[2], sh[3], x, w, dy, o[0], o[1], o[2]);
        }
        near("lc_fwd", sh, r[0], g[0], ny, b->tol);
        near("lc_bwd_data", sh, r[1], g[1], nx, b->tol);
        near("lc_bwd_weights", sh, r[2], g[2], nw, b->tol);
        for (int j = 0; j < 3; j++)
            free(r[j]), free(g[j]);
        free(x), free(w), free(dy);
    }
}

/* position t of the reference lc is the reference dense layer on t's slices */
static void test_lc_is_dense_per_position(void)
{
    const kern_ops *o = kern_ref_ops();
    int npos = 5, n = 2, in = 12, out = 3;
    float *x = kc_qrand(npos * n * in, 1), *w = kc_qrand(npos * out * in, 2),
          *dy = kc_qrand(npos * n * out, 3);
    float y[5 * 2 * 3], dx[5 * 2 * 12], dw[5 * 3 * 12], y1[2 * 3], dx1[2 * 12], dw1[3 * 12];
    o->lc_fwd(NULL, x, w, npos, n, in, out, y);
    o->lc_bwd_data(NULL, dy, w, npos, n, in, out, dx);
    o->lc_bwd_weights(NULL, x, dy, npos, n, in, out, dw);
    for (int t = 0; t < npos; t++) {
        o->dense_fwd(NULL, x + t * n * in, w + t * out * in, n, in, out, y1);
        o->dense_bwd_data(NULL, dy + t * n * out, w + t * out * in, n, in, out, dx1);
        o->dense_bwd_weights(NULL, x + t * n * in, dy + t * n * out, n, in, out, dw1);
        T_ASSERT(!memcmp(y1, y + t * n * out, sizeof y1) &&
                     !memcmp(dx1, dx + t * n * in, sizeof dx1) &&
                     !memcmp(dw1, dw + t * out * in, sizeof dw1),
                 "position %d differs from its dense layer", t);
    }
    free(x), free(w), free(dy);
}

static void test_lc_fast_vs_reference(void)
{
    void *ctx = kern_fast_create(1);
    kset_t f = {kern_fast_ops(), ctx, 1e-5};
    against_ref(&f);
    kern_fast_release(ctx);
}

/* counted.c: npos x dense's FLOPs a kernel; dry mode counts and runs nothing */
static void test_lc_counted_flops(void)
{
    ktab_t tab;
    ktab_init(&tab, 16);
    float y[4] = {7, 7, 7, 7};
    kc_t kc = {.ops = kern_ref_ops(), .ctx = NULL, .tab = &tab, .dry = 1};
    kc_lc_fwd(&kc, "lc2", NULL, NULL, 256, 1, 9396, 92, y);
    kc_lc_bwd_data(&kc, "lc2", NULL, NULL, 256, 1, 9396, 92, y);
    kc_lc_bwd_weights(&kc, "lc2", NULL, NULL, 256, 1, 9396, 92, y);
    int64_t want = 256LL * flops_dense(1, 9396, 92);
    T_ASSERT(want == 2LL * 256 * 9396 * 92, "flops_dense changed");
    T_ASSERT(flops_lc(256, 1, 9396, 92) == want, "flops_lc %lld, want %lld",
             (long long)flops_lc(256, 1, 9396, 92), (long long)want);
    const char *names[] = {"lc_fwd", "lc_bwd_data", "lc_bwd_weights"};
    for (int k = 0; k < 3; k++) {
        ktab_row *r = ktab_row_for(&tab, names[k], "lc2");
        T_ASSERT(r->calls == 1 && r->flops == want, "%s: %lld calls, %lld FLOPs (want 1, %lld)",
                 names[k], (long long)r->calls, (long long)r->flops, (long long)want);
    }
    T_ASSERT(y[0] == 7 && y[3] == 7, "dry mode ran a kernel");
    ktab_free(&tab);
}

#if EXADL_GPU
static const kcu_api *K;
static int ndev;
static char why[512];

static void cuda_case(const char *prec, double tol)
{
    T_ASSERT(ndev >= 0, "CUDA cannot start: %s", why);
    if (ndev == 0) T_SKIP("no CUDA GPU (%s)", why);
    char err[256];
    kcu_opts o = {
        .precision = prec, .device = 0, .algo = "heuristic", .workspace_limit = (size_t)256 << 20};
    void *ctx = K->create(&o, err, sizeof err);
    T_ASSERT(ctx, "kcu_create(%s): %s", prec, err);
    kset_t d = {K->ops(ctx), ctx, tol};
    against_ref(&d);
    K->release(ctx);
}
static void test_lc_cuda_fp32(void)
{
    cuda_case("fp32", 1e-4);
}
static void test_lc_cuda_bf16(void)
{
    cuda_case("bf16", 2e-2);
}
#endif

int main(void)
{
    T_RUN(test_lc_is_dense_per_position);
    T_RUN(test_lc_fast_vs_reference);
    T_RUN(test_lc_counted_flops);
#if EXADL_GPU
    K = kcu_load(why, sizeof why);
    if (K) {
        ndev = K->device_count(why, sizeof why);
    } else { /* no module: no GPU, unless nvidia-smi -L lists one (gpu_probe.h) */
        ndev = gpu_probe_unloaded(why);
    }
    T_RUN(test_lc_cuda_fp32);
    T_RUN(test_lc_cuda_bf16);
#else
    printf("SKIP: mpar_kernels: this build has no CUDA path (GPU=0, or nvcc, cuDNN or NCCL not "
           "found): the CUDA lc kernels are not built, not tested\n");
#endif
    T_DONE();
}
