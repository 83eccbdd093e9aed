/* The spatial-parallelism model's arithmetic (spatial.h; docs/cosmoflow.md). */
#include "harness/model/spatial.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The benchmark's decomposition (cf_geom.c): units dealt as evenly as
 * possible, the first ranks one more; rank coordinates row-major. */
static void part_of(const msw_t *w, const int s[3], int r, int units[3], int coord[3])
{
    coord[2] = r % s[2];
    coord[1] = r / s[2] % s[1];
    coord[0] = r / (s[1] * s[2]);
    for (int a = 0; a < 3; a++) units[a] = w->units / s[a] + (coord[a] < w->units % s[a]);
}

static int fits(const msw_t *w, const int s[3])
{
    if (w->dplanes) /* equal slabs of whole pooling units along D only */
        return s[0] >= 1 && s[1] == 1 && s[2] == 1 && s[0] <= w->units && w->units % s[0] == 0;
    for (int a = 0; a < 3; a++) {
        if (s[a] < 1 || s[a] > w->units) return 0;
        if (s[a] > 1 && 2 * (w->units / s[a]) < w->halo) return 0;
    }
    return 1;
}

/* Elements per channel and sample of rank r's face along a at level l. */
static double face(const msw_t *w, const int units[3], int a, int l)
{
    double n = w->halo;
    for (int b = 0; b < 3; b++) {
        if (b == a) continue;
        double e = (double)units[b] * (1 << (w->nl - l));
        n *= e + (b > a ? 2 * w->halo : 0);
    }
    return n;
}

/* The exchanges of rank r: bytes per sample, messages, and their time per
 * step for a batch (alpha per message, beta per byte). */
static void exchanges(const msw_t *w, const int s[3], int r, int batch, const mlink_t *link,
                      double *bytes, double *msgs, double *time_s)
{
    int units[3], coord[3];
    part_of(w, s, r, units, coord);
    *bytes = *msgs = *time_s = 0;
    if (w->dplanes) { /* per sample: bytes and messages; the time for the batch */
        int nb = (coord[0] > 0) + (coord[0] < s[0] - 1);
        for (int l = 0; l < w->nl; l++) {
            double plane = (double)(w->ext[l] + 2) * (w->ext[l] + 2) * w->elem_bytes;
            double b = nb * plane * ((double)w->xin[l] * w->cin[l] + (double)w->xout[l] * w->cout[l]);
            double m = nb * (w->xin[l] + w->xout[l]);
            *bytes += b, *msgs += m;
            if (link) *time_s += batch * (m * link->alpha_s + b * link->beta_s);
        }
        return;
    }
    for (int l = 0; l < w->nl; l++)
        for (int ex = 0; ex < (l > 0 ? 2 : 1); ex++) {
            double chans = ex == 0 ? w->cin[l] : w->cout[l];
            for (int a = 0; a < 3; a++) {
                int nb = (coord[a] > 0) + (coord[a] < s[a] - 1);
                double b = chans * face(w, units, a, l) * w->elem_bytes;
                *bytes += nb * b;
                *msgs += nb;
                if (link) *time_s += nb * (link->alpha_s + b * batch * link->beta_s);
            }
        }
}

double msp_halo_bytes(const msw_t *w, const int split[3], int srank, double *messages)
{
    if (!fits(w, split)) return -1;
    double b, m, t;
    exchanges(w, split, srank, 1, NULL, &b, &m, &t);
    if (messages) *messages = m;
    return b;
}

int msp_predict(const msw_t *w, const int split[3], int groups, int batch, const mnet_t *net,
                msp_t *out)
{
    if (!fits(w, split) || groups < 1 || batch < 1) return -1;
    memset(out, 0, sizeof *out);
    memcpy(out->split, split, sizeof out->split);
    out->groups = groups, out->batch = batch;
    int S = split[0] * split[1] * split[2];
    out->ranks = S * groups;
    double total = (double)w->units * w->units * w->units, worst = -1;
    for (int r = 0; r < S; r++) {
        int units[3], coord[3];
        part_of(w, split, r, units, coord);
        double f = (double)units[0] * units[1] * units[2] / total, c = 0;
        for (int l = 0; l < w->nl; l++) c += w->conv_s[l];
        if (w->dplanes) c += w->head_s; /* the U-Net's rest is split too */
        c *= f * batch;
        double b, m, h;
        exchanges(w, split, r, batch, &net->intra, &b, &m, &h);
        if (r == 0) out->halo_bytes = b * batch, out->halo_msgs = w->dplanes ? m * batch : m;
        if (c + h > worst) worst = c + h, out->compute_s = c, out->halo_s = h;
    }
    out->head_s = w->dplanes ? 0 : w->head_s * batch;
    if (w->dplanes && S > 1 && w->sync_n > 0)
        out->sync_s = w->sync_n * model_allreduce(w->sync_bytes / w->sync_n, S, net, NULL);
    if (S > 1 && !w->dplanes) {
        double feat = (double)batch * w->feat_c * total * w->elem_bytes;
        out->gather_s = model_lg(S) * net->intra.alpha_s + (double)(S - 1) / S * feat * net->intra.beta_s;
    }
    if (out->ranks > 1) out->allreduce_s = model_allreduce(w->params * 4, out->ranks, net, NULL);
    out->step_s = worst + out->head_s + out->gather_s + out->sync_s + w->opt_s + w->other_s +
                  out->allreduce_s;
    out->samples_per_s = out->step_s > 0 ? (double)groups * batch / out->step_s : NAN;
    return 0;
}

size_t msp_splits(const msw_t *w, int S, int (*s)[3], size_t max)
{
    size_t n = 0;
    for (int a = S; a >= 1; a--) {
        if (S % a) continue;
        for (int b = S / a; b >= 1; b--) {
            if ((S / a) % b) continue;
            int t[3] = {a, b, S / a / b};
            if (fits(w, t) && n < max) memcpy(s[n++], t, sizeof t);
        }
    }
    return n;
}

int msp_best(const msw_t *w, int ranks, int global_batch, const mnet_t *net, msp_t *best)
{
    int found = 0;
    for (int G = 1; G <= ranks; G++) {
        if (ranks % G || G > global_batch || global_batch % G) continue;
        int splits[256][3];
        size_t n = msp_splits(w, ranks / G, splits, 256);
        for (size_t i = 0; i < n; i++) {
            msp_t p;
            if (msp_predict(w, splits[i], G, global_batch / G, net, &p)) continue;
            if (!found || p.step_s < best->step_s) *best = p, found = 1;
        }
    }
    return found ? 0 : -1;
}

/* forward FLOPs of a block up to a constant (k^3 2 c_in c_out ext^3 / 2) */
static double block_work(const msw_t *w, int l, int k)
{
    double e = w->ext[l];
    return (double)k * k * k * w->cin[l] * w->cout[l] * e * e * e;
}

int msp_resize(msw_t *w, int D, int size, const msp_rule *r, char *err, size_t errlen)
{
    if (size == D) return 0;
    double x = (double)size / D, x3 = x * x * x;
    int k = r->kernel > 0 ? r->kernel : 3;
    if (!r->lbann) {
        int grain = D / w->units;
        if (size % grain) {
            snprintf(err, errlen, "--size %d: not a multiple of %d (2^blocks)", size, grain);
            return -1;
        }
        double fc1 = (double)w->feat_c * w->units * w->units * w->units * r->dense1;
        double params = w->params + fc1 * (x3 - 1);
        w->opt_s *= params / w->params;
        w->params = params;
        for (int l = 0; l < w->nl; l++) w->conv_s[l] *= x3, w->ext[l] = w->ext[l] / D * size;
        w->head_s *= x3;
        w->units = size / grain;
        return 0;
    }
    int nb = 0;
    while ((8 << nb) < size) nb++;
    nb++; /* log2(size) - 2 */
    if (size < 8 || (4 << nb) != size || nb > MSP_MAX_LAYERS || r->filters < 1) {
        snprintf(err, errlen, "--size %d: LBANN's rule (blocks log2(size) - 2) needs a power of "
                 "two from 8 to %d", size, 4 << MSP_MAX_LAYERS);
        return -1;
    }
    double params = w->params;
    int kept = nb < w->nl ? nb : w->nl;
    for (int l = kept; l < w->nl; l++) /* dropped at the deep end */
        params -= (double)k * k * k * w->cin[l] * w->cout[l] + w->cout[l];
    for (int l = 0; l < kept; l++) w->conv_s[l] *= x3, w->ext[l] = size >> l;
    double rate = kept > 0 && block_work(w, kept - 1, k) > 0
                      ? w->conv_s[kept - 1] / block_work(w, kept - 1, k)
                      : 0;
    for (int l = kept; l < nb; l++) { /* added */
        long long f = (long long)r->filters << l;
        w->cin[l] = w->cout[l - 1];
        w->cout[l] = (int)(r->cap > 0 && f > r->cap ? r->cap : f);
        w->ext[l] = size >> l;
        w->conv_s[l] = rate * block_work(w, l, k);
        params += (double)k * k * k * w->cin[l] * w->cout[l] + w->cout[l];
    }
    w->nl = nb;
    int feat = w->cout[nb - 1];
    /* fc1's input: feat x 4^3 at every size; its weights change with feat */
    double u3 = (double)w->units * w->units * w->units;
    if (feat != w->feat_c && w->feat_c > 0) {
        double fc1 = w->feat_c * u3 * r->dense1, fc1n = feat * u3 * r->dense1;
        params += fc1n - fc1;
        if (fc1 > 0) w->head_s *= fc1n / fc1;
    }
    w->feat_c = feat;
    w->opt_s *= params / w->params;
    w->params = params;
    return 0;
}
