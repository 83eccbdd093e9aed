#include "benchmarks/networks/deepcam/cl_bnsync.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/count.h"
#include "benchmarks/common/timer.h"

int cl_bnsync_open(cl_bnsync *s, int group, MPI_Comm world, int world_size, char *err,
                   size_t errlen)
{
    *s = (cl_bnsync){.comm = MPI_COMM_NULL, .ranks = 1};
    int g = group > 0 ? group : world_size;
    if (g > world_size || world_size % g) {
        snprintf(err, errlen, "--bn-group %d does not divide the %d ranks", group, world_size);
        return -1;
    }
    s->ranks = g;
    if (world != MPI_COMM_NULL) {
        int rank;
        CHECK_MPI(MPI_Comm_rank(world, &rank));
        CHECK_MPI(MPI_Comm_split(world, rank / g, rank, &s->comm));
    }
    return 0;
}

void cl_bnsync_close(cl_bnsync *s)
{
    if (s->comm != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&s->comm));
    free(s->buf);
    s->buf = NULL;
}

/* ---- counting -------------------------------------------------------------- */

/* FLOPs per element / per channel (the split of flops_bn_fwd's and
 * flops_bn_bwd's counts, flops.h): sums x and x^2 (3); apply (x - mean)
 * rstd gamma + beta (3, with rstd gamma one per-channel factor), per channel
 * the mean, the variance and that factor (6); backward sums: xhat (2), sum
 * dy (1), sum dy xhat (2); backward apply: xhat (2), dy - a - xhat b (3),
 * times gamma rstd (1), per channel rstd, gamma rstd and the two means (6). */
static int64_t fl(int64_t per_elem, int64_t elems, int64_t per_c, int64_t c)
{
    return COUNT_PROD("batch-norm FLOPs", per_elem, elems) + COUNT_PROD("batch-norm FLOPs", per_c, c);
}

static ktab_row *row(kc_t *kc, const char *kernel, const char *layer, int64_t flops)
{
    ktab_row *r = ktab_row_for(kc->tab, kernel, layer);
    r->calls++;
    r->flops += flops;
    return r;
}

static void stop(const kc_t *kc, ktab_row *r, double t0)
{
    if (kc->timing) r->time_s += timer_now_s() - t0;
}

static void layout(const tview *a, const tview *b, const char *what)
{
    CHECK(a->n == b->n && a->c == b->c && a->h == b->h && a->w == b->w &&
              a->sstride == b->sstride,
          "%s: the two views differ in shape or layout (batch norm keeps one layout)", what);
}

static float *at(const tview *v, int n, int c)
{
    return (float *)v->p + (int64_t)n * v->sstride + (int64_t)c * v->h * v->w;
}

static double *buffer(cl_bnsync *s, int c)
{
    if (c > s->cmax) {
        free(s->buf);
        s->buf = XMALLOC(((size_t)2 * (size_t)c + 1) * sizeof *s->buf, "batch-norm reduction");
        s->cmax = c;
    }
    return s->buf;
}

/* The group's sums: [0, 2c + 1) of buf added over the ranks, in place. */
static void reduce(cl_bnsync *s, kc_t *kc, const char *layer, double *buf, int c)
{
    ktab_row *r = row(kc, "bn_allreduce", layer, 0);
    int64_t n = 2 * (int64_t)c + 1;
    if (kc->dry) return;
    s->bytes += n * (int64_t)sizeof(double);
    s->reductions++;
    if (s->comm == MPI_COMM_NULL || s->ranks == 1) return;
    double t0 = timer_now_s();
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, MPI_DOUBLE, MPI_SUM, s->comm));
    stop(kc, r, t0);
}

/* ---- forward ----------------------------------------------------------------- */

void cl_bnsync_fwd(cl_bnsync *s, kc_t *kc, const char *layer, const tview *x, const float *gamma,
                   const float *beta, float eps, float *mean, float *var, const tview *y)
{
    layout(x, y, "bn_apply");
    int C = x->c;
    int64_t hw = (int64_t)x->h * x->w, e = tview_elems(x);
    ktab_row *r = row(kc, "bn_sums", layer, fl(3, e, 0, C));
    if (kc->dry) {
        reduce(s, kc, layer, NULL, C);
        row(kc, "bn_apply", layer, fl(3, e, 6, C));
        return;
    }
    double t0 = timer_now_s(), *b = buffer(s, C);
    for (int c = 0; c < C; c++) {
        double s1 = 0, s2 = 0;
        for (int n = 0; n < x->n; n++) {
            const float *p = at(x, n, c);
            for (int64_t i = 0; i < hw; i++) s1 += p[i], s2 += (double)p[i] * p[i];
        }
        b[c] = s1, b[C + c] = s2;
    }
    b[2 * C] = (double)e / C;
    stop(kc, r, t0);
    reduce(s, kc, layer, b, C);
    r = row(kc, "bn_apply", layer, fl(3, e, 6, C));
    t0 = timer_now_s();
    double N = b[2 * C];
    for (int c = 0; c < C; c++) {
        double m = b[c] / N, v = b[C + c] / N - m * m;
        if (v < 0) v = 0; /* rounding, for a constant channel */
        mean[c] = (float)m, var[c] = (float)v;
        float k = (float)((double)gamma[c] / sqrt(v + (double)eps)), mf = (float)m, sh = beta[c];
        for (int n = 0; n < x->n; n++) {
            const float *p = at(x, n, c);
            float *q = at(y, n, c);
            for (int64_t i = 0; i < hw; i++) q[i] = (p[i] - mf) * k + sh;
        }
    }
    stop(kc, r, t0);
}

/* ---- backward ---------------------------------------------------------------- */

void cl_bnsync_bwd(cl_bnsync *s, kc_t *kc, const char *layer, const tview *x, const tview *dy,
                   const float *gamma, const float *mean, const float *var, float eps,
                   const tview *dx, float *dgamma, float *dbeta)
{
    layout(x, dy, "bn_bwd_sums");
    layout(dy, dx, "bn_bwd_apply");
    int C = x->c;
    int64_t hw = (int64_t)x->h * x->w, e = tview_elems(x);
    ktab_row *r = row(kc, "bn_bwd_sums", layer, fl(5, e, 1, C));
    if (kc->dry) {
        reduce(s, kc, layer, NULL, C);
        row(kc, "bn_bwd_apply", layer, fl(6, e, 6, C));
        return;
    }
    double t0 = timer_now_s(), *b = buffer(s, C);
    for (int c = 0; c < C; c++) {
        float rs = (float)(1.0 / sqrt((double)var[c] + (double)eps)), m = mean[c];
        double sd = 0, sdx = 0;
        for (int n = 0; n < x->n; n++) {
            const float *p = at(x, n, c), *d = at(dy, n, c);
            for (int64_t i = 0; i < hw; i++) sd += d[i], sdx += (double)d[i] * ((p[i] - m) * rs);
        }
        /* this rank's parameter gradients (the engine averages them) */
        dbeta[c] = (float)sd, dgamma[c] = (float)sdx;
        b[c] = sd, b[C + c] = sdx;
    }
    b[2 * C] = (double)e / C;
    stop(kc, r, t0);
    reduce(s, kc, layer, b, C);
    r = row(kc, "bn_bwd_apply", layer, fl(6, e, 6, C));
    t0 = timer_now_s();
    double N = b[2 * C];
    for (int c = 0; c < C; c++) {
        double rsd = 1.0 / sqrt((double)var[c] + (double)eps);
        float rs = (float)rsd, m = mean[c], k = (float)((double)gamma[c] * rsd),
              a = (float)(b[c] / N), bb = (float)(b[C + c] / N);
        for (int n = 0; n < x->n; n++) {
            const float *p = at(x, n, c), *d = at(dy, n, c);
            float *q = at(dx, n, c);
            for (int64_t i = 0; i < hw; i++) q[i] = k * (d[i] - a - (p[i] - m) * rs * bb);
        }
    }
    stop(kc, r, t0);
}
