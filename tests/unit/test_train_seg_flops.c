/* The segmentation kernels of the reference set (ref/kern_ref_seg.c):
 *  - FLOP formulas (flops.h) against the loops counting their own operations
 *    (the file is compiled in with KERN_REF_COUNT, as test_cosmo_flops.c does);
 *  - the dilated convolution against independent computations: with stride
 *    1, dilation 1 and SAME padding it equals kern_ref.c's convolution; with
 *    dilation d it equals that convolution with the kernel spread out (taps
 *    d apart, zeros between); with stride s it equals the stride-1 output
 *    sampled every s pixels; its data and weight gradients are the adjoints
 *    of the forward (<conv(x), r> = <x, bwd_data(r)> = <w, bwd_weights(x, r)>);
 *  - batch norm's backward against central differences of its forward, and
 *    its output's per-channel mean 0 and variance 1 (gamma 1, beta 0);
 *  - the weighted cross-entropy's backward against central differences, its
 *    value on equal logits (w_y log C per pixel); image-level pooling = the
 *    mean, and its adjoint the broadcast;
 *  - counted.c: rows carry the formulas; a set without the kernels stops
 *    with an error naming the kernel (exit status non-zero). */
#define KERN_REF_COUNT 1
#include "benchmarks/train/kernels/ref/kern_ref_seg.c"

#include <math.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchmarks/train/counted.h"
#include "benchmarks/train/kernels/flops.h"
#include "tests/unit/tap.h"

int64_t kern_ref_flops;
static kern_ops S;

#define COUNT(call) (kern_ref_flops = 0, (call), kern_ref_flops)
#define EXPECT(got, want, what)                                                                    \
    T_ASSERT((got) == (want), "%s: counted %lld, formula %lld", what, (long long)(got),            \
             (long long)(want))

static float *bufs[256];
static int nbufs;

static float *fbuf(size_t n, unsigned seed)
{
    float *p = calloc(n + 1, sizeof *p);
    if (!p || nbufs == 256)
        abort();
    bufs[nbufs++] = p;
    for (size_t i = 0; i < n; i++)
        p[i] = (float)(((i * 7919 + seed * 104729) % 2001) / 1000.0 - 1.0);
    return p;
}
static void free_all(void)
{
    while (nbufs)
        free(bufs[--nbufs]);
}

/* A dense view (gap spare floats between samples). */
static tview mkv(int n, int c, int h, int w, int gap, unsigned seed)
{
    int64_t ss = (int64_t)c * h * w + gap;
    return (tview){fbuf((size_t)(n * ss), seed), n, c, h, w, ss};
}

static double dot(const tview *a, const tview *b)
{
    double s = 0;
    for (int n = 0; n < a->n; n++)
        for (int c = 0; c < a->c; c++)
            for (int y = 0; y < a->h; y++)
                for (int x = 0; x < a->w; x++)
                    s += (double)*sat(a, n, c, y, x) * *sat(b, n, c, y, x);
    return s;
}
static double maxdiff(const tview *a, const tview *b)
{
    double m = 0;
    for (int n = 0; n < a->n; n++)
        for (int c = 0; c < a->c; c++)
            for (int y = 0; y < a->h; y++)
                for (int x = 0; x < a->w; x++)
                    m = fmax(m, fabs((double)*sat(a, n, c, y, x) - *sat(b, n, c, y, x)));
    return m;
}
static double dotv(const float *a, const float *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += (double)a[i] * b[i];
    return s;
}

/* n ci co k stride pad dil H W groups */
static const int shapes[][10] = {
    {1, 2, 3, 3, 1, 1, 1, 5, 6, 1}, {2, 3, 2, 3, 2, 1, 1, 7, 8, 0}, {1, 2, 2, 3, 1, 2, 2, 6, 5, 1},
    {2, 1, 3, 3, 1, 6, 6, 9, 7, 1}, {1, 3, 2, 1, 2, 0, 1, 5, 6, 1}, {3, 2, 2, 3, 2, 4, 4, 11, 9, 1},
    {1, 2, 3, 5, 1, 0, 1, 7, 7, 1}, {1, 2, 1, 3, 1, 0, 3, 8, 9, 1}, {2, 4, 4, 3, 1, 2, 2, 7, 6, 4},
    {1, 6, 6, 3, 2, 1, 1, 9, 8, 6}, {2, 4, 6, 3, 1, 1, 1, 5, 7, 2}};

static void test_dconv_counts_and_adjoint(void)
{
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        const int *s = shapes[i];
        kern_dconv g = {s[3], s[4], s[5], s[6], s[9]};
        int ho = kern_dconv_out(s[7], &g), wo = kern_dconv_out(s[8], &g), G = kern_dconv_groups(&g);
        T_ASSERT(ho > 0 && wo > 0, "shape %zu has no output", i);
        tview x = mkv(s[0], s[1], s[7], s[8], 3, 1), y = mkv(s[0], s[2], ho, wo, 2, 2);
        tview r = mkv(s[0], s[2], ho, wo, 1, 3), dx = mkv(s[0], s[1], s[7], s[8], 4, 4);
        size_t nw = (size_t)s[1] / G * s[2] * s[3] * s[3];
        float *w = fbuf(nw, 5), *dw = fbuf(nw, 6);
        int64_t want = flops_dconv(s[0], s[1] / G, s[2], s[3], ho, wo);
        EXPECT(COUNT(S.dconv_fwd(NULL, &x, w, &g, &y)), want, "dconv_fwd");
        EXPECT(COUNT(S.dconv_bwd_data(NULL, &r, w, &g, &dx)), want, "dconv_bwd_data");
        EXPECT(COUNT(S.dconv_bwd_weights(NULL, &x, &r, &g, dw)), want, "dconv_bwd_weights");
        double a = dot(&y, &r), b = dot(&x, &dx), c = dotv(w, dw, nw);
        double tol = 1e-5 * (fabs(a) + 1);
        T_ASSERT(fabs(a - b) < tol && fabs(a - c) < tol,
                 "shape %zu: <y,r> %.9g, <x,bwd_data(r)> %.9g, <w,bwd_weights> %.9g", i, a, b, c);
    }
    free_all();
}

/* Against kern_ref.c's SAME convolution (stride 1): dilation through a
 * spread kernel of size d(k-1)+1, stride through sampling. */
static void test_dconv_against_same_conv(void)
{
    const kern_ops *R = kern_ref_ops();
    int cases[][4] = {/* k dil stride pad-mode(0 same) */ {3, 1, 1, 0},
                      {3, 2, 1, 0},
                      {3, 3, 2, 0},
                      {5, 1, 2, 0},
                      {3, 4, 1, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int k = cases[i][0], d = cases[i][1], st = cases[i][2], K = d * (k - 1) + 1;
        int n = 2, ci = 3, co = 2, H = 13, W = 11;
        kern_dconv g = {k, st, d * (k / 2), d, 1};
        int ho = kern_dconv_out(H, &g), wo = kern_dconv_out(W, &g);
        tview x = mkv(n, ci, H, W, 0, 7), y = mkv(n, co, ho, wo, 0, 8);
        tview full = mkv(n, co, H, W, 0, 9);
        size_t nw = (size_t)co * ci * k * k;
        float *w = fbuf(nw, 10), *wk = fbuf((size_t)co * ci * K * K, 11);
        memset(wk, 0, (size_t)co * ci * K * K * sizeof *wk);
        for (int o = 0; o < co; o++)
            for (int c = 0; c < ci; c++)
                for (int a = 0; a < k; a++)
                    for (int b = 0; b < k; b++)
                        wk[(((size_t)o * ci + c) * K + a * d) * K + b * d] =
                            w[(((size_t)o * ci + c) * k + a) * k + b];
        S.dconv_fwd(NULL, &x, w, &g, &y);
        R->conv_fwd(NULL, &x, wk, K, &full);
        double err = 0;
        for (int s = 0; s < n; s++)
            for (int o = 0; o < co; o++)
                for (int r = 0; r < ho; r++)
                    for (int q = 0; q < wo; q++)
                        err = fmax(err,
                                   fabs(*sat(&y, s, o, r, q) - *sat(&full, s, o, r * st, q * st)));
        T_ASSERT(err < 1e-5, "k %d dil %d stride %d: max difference %.3g from the SAME conv", k, d,
                 st, err);
    }
    free_all();
}

/* A grouped convolution is one ordinary convolution per group, on the
 * group's window of channels (tviews of channel ranges). */
static void test_dconv_groups_as_windows(void)
{
    int n = 2, ci = 6, co = 9, H = 9, W = 8, G = 3, cig = ci / G, cog = co / G;
    kern_dconv g = {3, 2, 2, 2, G}, one = {3, 2, 2, 2, 1};
    int ho = kern_dconv_out(H, &g), wo = kern_dconv_out(W, &g);
    tview x = mkv(n, ci, H, W, 1, 21), y = mkv(n, co, ho, wo, 0, 22),
          y1 = mkv(n, co, ho, wo, 0, 23);
    tview dy = mkv(n, co, ho, wo, 2, 24), dx = mkv(n, ci, H, W, 0, 25),
          dx1 = mkv(n, ci, H, W, 0, 26);
    size_t per = (size_t)cig * cog * 9;
    float *w = fbuf(per * G, 27), *dw = fbuf(per * G, 28), *dw1 = fbuf(per * G, 29);
    S.dconv_fwd(NULL, &x, w, &g, &y);
    S.dconv_bwd_data(NULL, &dy, w, &g, &dx);
    S.dconv_bwd_weights(NULL, &x, &dy, &g, dw);
    for (int j = 0; j < G; j++) {
        tview xj = x, yj = y1, dyj = dy, dxj = dx1;
        xj.c = dxj.c = cig;
        yj.c = dyj.c = cog;
        xj.p = sat(&x, 0, j * cig, 0, 0), dxj.p = sat(&dx1, 0, j * cig, 0, 0);
        yj.p = sat(&y1, 0, j * cog, 0, 0), dyj.p = sat(&dy, 0, j * cog, 0, 0);
        S.dconv_fwd(NULL, &xj, w + j * per, &one, &yj);
        S.dconv_bwd_data(NULL, &dyj, w + j * per, &one, &dxj);
        S.dconv_bwd_weights(NULL, &xj, &dyj, &one, dw1 + j * per);
    }
    T_ASSERT(maxdiff(&y, &y1) == 0, "grouped forward differs by %.3g", maxdiff(&y, &y1));
    T_ASSERT(maxdiff(&dx, &dx1) == 0, "grouped data gradient differs by %.3g", maxdiff(&dx, &dx1));
    T_ASSERT(!memcmp(dw, dw1, per * G * sizeof *dw), "grouped weight gradient differs");
    free_all();
}

static void test_bn(void)
{
    int shp[][4] = {{2, 3, 4, 5}, {1, 2, 3, 3}, {4, 1, 2, 1}};
    float eps = 1e-5f;
    for (size_t i = 0; i < sizeof shp / sizeof *shp; i++) {
        int n = shp[i][0], c = shp[i][1], h = shp[i][2], w = shp[i][3];
        tview x = mkv(n, c, h, w, 3, 12), y = mkv(n, c, h, w, 3, 13);
        tview dy = mkv(n, c, h, w, 3, 14), dx = mkv(n, c, h, w, 3, 15);
        int64_t elems = tview_elems(&x);
        float *gam = fbuf((size_t)c, 16), *bet = fbuf((size_t)c, 17), *mean = fbuf((size_t)c, 0),
              *var = fbuf((size_t)c, 0), *dg = fbuf((size_t)c, 0), *db = fbuf((size_t)c, 0);
        for (int ch = 0; ch < c; ch++)
            gam[ch] += 2.0f; /* away from 0 */
        EXPECT(COUNT(S.bn_fwd(NULL, &x, gam, bet, eps, mean, var, &y)), flops_bn_fwd(elems, c),
               "bn_fwd");
        EXPECT(COUNT(S.bn_bwd(NULL, &x, &dy, gam, mean, var, eps, &dx, dg, db)),
               flops_bn_bwd(elems, c), "bn_bwd");
        /* L = <y, dy>: dL/dx by central differences, in double around x */
        double worst = 0, scale = 0;
        for (int s = 0; s < n; s++)
            for (int ch = 0; ch < c; ch++)
                for (int r = 0; r < h; r++)
                    for (int q = 0; q < w; q++) {
                        float *px = sat(&x, s, ch, r, q), keep = *px;
                        double hstep = 1e-2, l[2];
                        for (int sgn = 0; sgn < 2; sgn++) {
                            *px = (float)(keep + (sgn ? hstep : -hstep));
                            S.bn_fwd(NULL, &x, gam, bet, eps, mean, var, &y);
                            l[sgn] = dot(&y, &dy);
                        }
                        *px = keep;
                        double num = (l[1] - l[0]) / (2 * hstep), got = *sat(&dx, s, ch, r, q);
                        worst = fmax(worst, fabs(num - got));
                        scale = fmax(scale, fabs(num));
                    }
        T_ASSERT(worst <= 2e-3 * (scale + 1),
                 "bn shape %zu: dx off central differences by %.3g "
                 "(scale %.3g)",
                 i, worst, scale);
        /* gamma 1, beta 0: each channel of y has mean 0 and variance var/(var+eps) */
        for (int ch = 0; ch < c; ch++)
            gam[ch] = 1, bet[ch] = 0;
        S.bn_fwd(NULL, &x, gam, bet, eps, mean, var, &y);
        for (int ch = 0; ch < c; ch++) {
            double m = 0, v = 0, cnt = (double)n * h * w;
            for (int s = 0; s < n; s++)
                for (int r = 0; r < h; r++)
                    for (int q = 0; q < w; q++)
                        m += *sat(&y, s, ch, r, q);
            m /= cnt;
            for (int s = 0; s < n; s++)
                for (int r = 0; r < h; r++)
                    for (int q = 0; q < w; q++) {
                        double d = *sat(&y, s, ch, r, q) - m;
                        v += d * d;
                    }
            v /= cnt;
            double want = var[ch] / (var[ch] + eps);
            T_ASSERT(fabs(m) < 1e-5 && fabs(v - want) < 1e-4,
                     "bn channel %d: mean %.3g, variance %.6g (want %.6g)", ch, m, v, want);
        }
    }
    free_all();
}

static int32_t *labels(size_t n, int classes, unsigned seed)
{
    int32_t *l = (int32_t *)fbuf(n, 0); /* same size as a float */
    for (size_t i = 0; i < n; i++)
        l[i] = (int32_t)((i * 31 + seed) % (size_t)classes);
    return l;
}

static void test_wce(void)
{
    int shp[][4] = {{2, 3, 4, 5}, {1, 2, 3, 3}, {3, 5, 2, 1}};
    for (size_t i = 0; i < sizeof shp / sizeof *shp; i++) {
        int n = shp[i][0], C = shp[i][1], h = shp[i][2], w = shp[i][3];
        int64_t pixels = (int64_t)n * h * w;
        tview z = mkv(n, C, h, w, 2, 31), dz = mkv(n, C, h, w, 1, 32);
        int32_t *l = labels((size_t)pixels, C, (unsigned)i);
        float *cw = fbuf((size_t)C, 33);
        for (int c = 0; c < C; c++)
            cw[c] = 0.5f + (float)c;
        double loss;
        EXPECT(COUNT(loss = S.wce_fwd(NULL, &z, l, cw)), flops_wce_fwd(pixels, C), "wce_fwd");
        EXPECT(COUNT(S.wce_bwd(NULL, &z, l, cw, &dz)), flops_wce_bwd(pixels, C), "wce_bwd");
        /* dz against central differences of the loss */
        double worst = 0, scale = 0;
        for (int s = 0; s < n; s++)
            for (int c = 0; c < C; c++)
                for (int r = 0; r < h; r++)
                    for (int q = 0; q < w; q++) {
                        float *pz = sat(&z, s, c, r, q), keep = *pz;
                        double hs = 1e-2, lp, lm;
                        *pz = (float)(keep + hs);
                        lp = S.wce_fwd(NULL, &z, l, cw);
                        *pz = (float)(keep - hs);
                        lm = S.wce_fwd(NULL, &z, l, cw);
                        *pz = keep;
                        double num = (lp - lm) / (2 * hs);
                        worst = fmax(worst, fabs(num - *sat(&dz, s, c, r, q)));
                        scale = fmax(scale, fabs(num));
                    }
        T_ASSERT(worst <= 1e-3 * scale,
                 "wce shape %zu: dz off central differences by %.3g "
                 "(scale %.3g)",
                 i, worst, scale);
        /* equal logits: every pixel costs w_y log C */
        double want = 0;
        for (int64_t p = 0; p < pixels; p++)
            want += cw[l[p]] * log((double)C);
        for (int s = 0; s < n; s++)
            for (int c = 0; c < C; c++)
                for (int r = 0; r < h; r++)
                    for (int q = 0; q < w; q++)
                        *sat(&z, s, c, r, q) = 0.25f;
        loss = S.wce_fwd(NULL, &z, l, cw);
        T_ASSERT(fabs(loss - want / (double)pixels) < 1e-12,
                 "wce of equal logits %.15g, want %.15g", loss, want / (double)pixels);
    }
    free_all();
}

static void test_gpool_bcast(void)
{
    int n = 2, c = 3, h = 5, w = 4;
    tview x = mkv(n, c, h, w, 2, 41), v = mkv(n, c, 1, 1, 1, 42), r = mkv(n, c, 1, 1, 0, 43);
    tview b = mkv(n, c, h, w, 0, 44);
    float inv = 1.0f / (float)(h * w);
    EXPECT(COUNT(S.gpool_fwd(NULL, &x, &v, inv)), flops_gpool(n * c, h * w), "gpool");
    EXPECT(COUNT(S.bcast_fwd(NULL, &r, &b, inv)), flops_bcast(tview_elems(&b)), "bcast");
    /* the mean, and the adjoint: <gpool(x), r> = <x, bcast(r)> */
    for (int s = 0; s < n; s++)
        for (int ch = 0; ch < c; ch++) {
            double m = 0;
            for (int y = 0; y < h; y++)
                for (int q = 0; q < w; q++)
                    m += *sat(&x, s, ch, y, q);
            T_ASSERT(fabs(m / (h * w) - *sat(&v, s, ch, 0, 0)) < 1e-6, "gpool is not the mean");
        }
    double a = dot(&v, &r), d = dot(&x, &b);
    T_ASSERT(fabs(a - d) < 1e-6 * (fabs(a) + 1), "<gpool(x), r> %.9g != <x, bcast(r)> %.9g", a, d);
    free_all();
}

static void test_counted_rows(void)
{
    ktab_t tab;
    ktab_init(&tab, 16);
    kc_t kc = {.ops = &S, .ctx = NULL, .tab = &tab, .dry = 1};
    kern_dconv g = {3, 2, 2, 2, 1};
    tview x = {NULL, 2, 3, 17, 9, 3 * 17 * 9}, y = {NULL, 2, 4, 9, 5, 4 * 9 * 5};
    kc_dconv_fwd(&kc, "l", &x, NULL, &g, &y);
    kc_dconv_bwd_data(&kc, "l", &y, NULL, &g, &x);
    kc_dconv_bwd_weights(&kc, "l", &x, &y, &g, NULL);
    kc_bn_fwd(&kc, "b", &x, NULL, NULL, 1e-5f, NULL, NULL, &x);
    kc_bn_bwd(&kc, "b", &x, &x, NULL, NULL, NULL, 1e-5f, &x, NULL, NULL);
    tview v = {NULL, 2, 3, 1, 1, 3};
    kc_wce_fwd(&kc, "loss", &x, NULL, NULL);
    kc_wce_bwd(&kc, "loss", &x, NULL, NULL, &x);
    kc_gpool(&kc, "gpool_fwd", "pool", &x, &v, 1.0f);
    kc_bcast(&kc, "gpool_bwd", "pool", &v, &x, 1.0f);
    int64_t want = 3 * flops_dconv(2, 3, 4, 3, 9, 5) + flops_bn_fwd(2 * 3 * 17 * 9, 3) +
                   flops_bn_bwd(2 * 3 * 17 * 9, 3) + flops_wce_fwd(2 * 17 * 9, 3) +
                   flops_wce_bwd(2 * 17 * 9, 3) + flops_gpool(6, 17 * 9) +
                   flops_bcast(2 * 3 * 17 * 9);
    EXPECT(ktab_total_flops(&tab), want, "counted rows");
    ktab_free(&tab);
}

/* A call that must stop the program: runs in a child, which must exit non-zero. */
static int dies(void (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        abort();
    if (pid == 0) {
        FILE *devnull = freopen("/dev/null", "w", stderr);
        (void)devnull;
        fn();
        _exit(0);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid)
        abort();
    return !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void call_missing(void)
{
    kern_ops none = S;
    none.dconv_fwd = NULL;
    none.name = "cuda";
    ktab_t tab;
    ktab_init(&tab, 4);
    kc_t kc = {.ops = &none, .tab = &tab, .dry = 1};
    kern_dconv g = {3, 1, 1, 1, 1};
    tview x = {NULL, 1, 1, 4, 4, 16};
    kc_dconv_fwd(&kc, "l", &x, NULL, &g, &x);
}

static void call_bad_geometry(void)
{
    ktab_t tab;
    ktab_init(&tab, 4);
    kc_t kc = {.ops = &S, .tab = &tab, .dry = 1};
    kern_dconv g = {3, 2, 1, 1, 1};
    tview x = {NULL, 1, 1, 8, 8, 64}, y = {NULL, 1, 1, 8, 8, 64}; /* should be 4x4 */
    kc_dconv_fwd(&kc, "l", &x, NULL, &g, &y);
}

static void test_counted_errors(void)
{
    T_ASSERT(dies(call_missing), "a set without dconv_fwd ran on");
    T_ASSERT(dies(call_bad_geometry), "a 8x8 output of a stride-2 conv on 8x8 was accepted");
}

int main(void)
{
    kern_ref_fill_seg(&S);
    S.name = "reference";
    T_RUN(test_dconv_counts_and_adjoint);
    T_RUN(test_dconv_against_same_conv);
    T_RUN(test_dconv_groups_as_windows);
    T_RUN(test_bn);
    T_RUN(test_wce);
    T_RUN(test_gpool_bcast);
    T_RUN(test_counted_rows);
    T_RUN(test_counted_errors);
    T_DONE();
}
