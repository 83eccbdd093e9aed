/* Synchronised batch norm's loops (benchmarks/networks/deepcam/cl_bnsync.c)
 * on one process (no MPI: the group is this process's samples) against the
 * reference set's bn_fwd and bn_bwd (kern_ref_seg.c, loops in double):
 *  - y, mean, var, dx, dgamma, dbeta within 1e-5 normwise
 *    (max |sync - ref| / max |ref|), on views with a gap between samples
 *    (channel windows of a wider buffer, as the network's concatenations)
 *    and a channel whose mean is 100 times its spread (the sums' cancellation);
 *  - the kernel table gets bn_sums, bn_allreduce, bn_apply, bn_bwd_sums,
 *    bn_bwd_apply rows, and a dry call counts the FLOPs a real one does;
 *  - a group that does not divide the ranks is refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/rng.h"
#include "benchmarks/networks/deepcam/cl_bnsync.h"
#include "tests/unit/tap.h"

enum { NB = 3, C = 5, H = 6, W = 7, CW = 8 /* the buffer's channels: a window of C */ };

static double err_of(const float *a, const float *b, int64_t n)
{
    double d = 0, m = 0;
    for (int64_t i = 0; i < n; i++) {
        d = fmax(d, fabs((double)a[i] - b[i]));
        m = fmax(m, fabs((double)b[i]));
    }
    return d / (m > 0 ? m : 1);
}

static float *buf(void) { return calloc((size_t)NB * CW * H * W, sizeof(float)); }

static tview view(float *p) { return (tview){.p = p, .n = NB, .c = C, .h = H, .w = W, .sstride = (int64_t)CW * H * W}; }

static void fill(float *p, uint64_t seed, int shifted)
{
    rng_t r = rng_stream(seed, 1, 2, 3);
    for (int n = 0; n < NB; n++)
        for (int c = 0; c < CW; c++)
            for (int i = 0; i < H * W; i++)
                p[((int64_t)n * CW + c) * H * W + i] =
                    (float)(rng_normal(&r) + (shifted && c == 2 ? 100.0 : 0.3 * c));
}

static void test_against_reference(void)
{
    const kern_ops *ref = kern_ref_ops();
    float *x = buf(), *dy = buf(), *y0 = buf(), *y1 = buf(), *dx0 = buf(), *dx1 = buf();
    T_ASSERT(x && dy && y0 && y1 && dx0 && dx1, "out of memory");
    fill(x, 5, 1), fill(dy, 6, 0);
    float gamma[C], beta[C], m0[C], v0[C], m1[C], v1[C], dg0[C], db0[C], dg1[C], db1[C];
    for (int c = 0; c < C; c++) gamma[c] = 0.5f + 0.25f * c, beta[c] = 0.1f * c - 0.2f;
    tview X = view(x), DY = view(dy), Y0 = view(y0), Y1 = view(y1), DX0 = view(dx0), DX1 = view(dx1);
    float eps = 1e-5f;
    ref->bn_fwd(NULL, &X, gamma, beta, eps, m0, v0, &Y0);
    ref->bn_bwd(NULL, &X, &DY, gamma, m0, v0, eps, &DX0, dg0, db0);

    cl_bnsync s;
    char err[128];
    T_ASSERT(cl_bnsync_open(&s, 0, MPI_COMM_NULL, 1, err, sizeof err) == 0, "open: %s", err);
    ktab_t tab;
    ktab_init(&tab, 64);
    kc_t kc = {.ops = ref, .tab = &tab, .timing = 1};
    cl_bnsync_fwd(&s, &kc, "bn", &X, gamma, beta, eps, m1, v1, &Y1);
    cl_bnsync_bwd(&s, &kc, "bn", &X, &DY, gamma, m1, v1, eps, &DX1, dg1, db1);
    int64_t all = (int64_t)NB * CW * H * W;
    double e[6] = {err_of(y1, y0, all), err_of(m1, m0, C), err_of(v1, v0, C),
                   err_of(dx1, dx0, all), err_of(dg1, dg0, C), err_of(db1, db0, C)};
    const char *what[6] = {"y", "mean", "var", "dx", "dgamma", "dbeta"};
    for (int i = 0; i < 6; i++) {
        printf("# %-6s max |sync - ref| / max |ref| = %.2e\n", what[i], e[i]);
        T_ASSERT(e[i] < 1e-5, "%s differs from the reference set's by %.2e", what[i], e[i]);
    }
    /* channels outside the window stay untouched (0 in y and dx) */
    for (int n = 0; n < NB; n++)
        for (int i = C * H * W; i < CW * H * W; i++)
            T_ASSERT(y1[(int64_t)n * CW * H * W + i] == 0 && dx1[(int64_t)n * CW * H * W + i] == 0,
                     "a channel outside the window was written");
    T_ASSERT(s.reductions == 2 && s.bytes == 2 * (2 * C + 1) * 8, "reductions %lld bytes %lld",
             (long long)s.reductions, (long long)s.bytes);

    /* a dry call counts what the real one counted */
    ktab_t dtab;
    ktab_init(&dtab, 64);
    kc_t dk = {.ops = ref, .tab = &dtab, .dry = 1};
    cl_bnsync_fwd(&s, &dk, "bn", &X, gamma, beta, eps, NULL, NULL, &Y1);
    cl_bnsync_bwd(&s, &dk, "bn", &X, &DY, gamma, NULL, NULL, eps, &DX1, NULL, NULL);
    const char *rows[5] = {"bn_sums", "bn_allreduce", "bn_apply", "bn_bwd_sums", "bn_bwd_apply"};
    for (int i = 0; i < 5; i++) {
        ktab_row *a = ktab_row_for(&tab, rows[i], "bn"), *b = ktab_row_for(&dtab, rows[i], "bn");
        T_ASSERT(a->calls >= 1 && a->calls == b->calls && a->flops == b->flops,
                 "row %s: %lld calls %lld FLOPs, dry %lld %lld", rows[i], (long long)a->calls,
                 (long long)a->flops, (long long)b->calls, (long long)b->flops);
    }
    T_ASSERT(ktab_row_for(&tab, "bn_apply", "bn")->flops == 3LL * NB * C * H * W + 6 * C,
             "bn_apply FLOPs");
    ktab_free(&dtab);
    ktab_free(&tab);
    cl_bnsync_close(&s);
    free(x), free(dy), free(y0), free(y1), free(dx0), free(dx1);
}

static void test_bad_group(void)
{
    cl_bnsync s;
    char err[128] = "";
    T_ASSERT(cl_bnsync_open(&s, 3, MPI_COMM_NULL, 4, err, sizeof err) == -1 &&
                 strstr(err, "does not divide"),
             "group 3 of 4 ranks accepted (%s)", err);
    T_ASSERT(cl_bnsync_open(&s, 0, MPI_COMM_NULL, 4, err, sizeof err) == 0 && s.ranks == 4,
             "group 0 is not every rank");
    cl_bnsync_close(&s);
}

int main(void)
{
    T_RUN(test_against_reference);
    T_RUN(test_bad_group);
    T_DONE();
}
