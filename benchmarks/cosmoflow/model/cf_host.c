#include "benchmarks/cosmoflow/model/cf_host.h"

#include <math.h>

#include "benchmarks/common/rng.h"
#include "benchmarks/common/timer.h"

/* A row of the kernel table: its formula's FLOPs, and the call. */
static ktab_row *row_for(kc_t *kc, const char *kernel, const char *layer, int64_t flops)
{
    ktab_row *r = ktab_row_for(kc->tab, kernel, layer);
    r->calls++;
    r->flops += flops;
    return r;
}

void cf_dropout_fwd(cf_net *n, kc_t *kc, const cf_layer *L, void *y, float *mask)
{
    int64_t e = (int64_t)n->batch * L->co;
    ktab_row *r = row_for(kc, "dropout", L->name, e);
    if (n->dry) return;
    double t0 = timer_now_s(), rate = n->p->cfg.dropout;
    float keep = (float)(1.0 / (1.0 - rate)), *v = y;
    rng_t g = rng_stream(n->p->cfg.run.seed, 0x44524F50ULL /* "DROP" */, (uint64_t)n->fwd_count,
                         ((uint64_t)n->pt->group << 8) | (uint64_t)(L - n->p->layers));
    for (int64_t i = 0; i < e; i++) {
        mask[i] = rng_uniform(&g) < rate ? 0.0f : keep;
        v[i] *= mask[i];
    }
    r->time_s += timer_now_s() - t0;
}

void cf_dropout_bwd(cf_net *n, kc_t *kc, const cf_layer *L, void *dy, const float *mask)
{
    int64_t e = (int64_t)n->batch * L->co;
    ktab_row *r = row_for(kc, "dropout", L->name, e);
    if (n->dry) return;
    double t0 = timer_now_s();
    float *d = dy;
    for (int64_t i = 0; i < e; i++) d[i] *= mask[i];
    r->time_s += timer_now_s() - t0;
}

void cf_tanh_fwd(cf_net *n, kc_t *kc, void *out)
{
    int64_t e = (int64_t)n->batch * n->p->cfg.targets;
    ktab_row *r = row_for(kc, "tanh", "fc3", 2 * e);
    if (n->dry) return;
    double t0 = timer_now_s();
    float s = (float)n->p->cfg.out_scale, *o = out;
    for (int64_t i = 0; i < e; i++) o[i] = s * tanhf(o[i]);
    r->time_s += timer_now_s() - t0;
}

void cf_tanh_bwd(cf_net *n, kc_t *kc, const void *out, void *dout)
{
    int64_t e = (int64_t)n->batch * n->p->cfg.targets;
    ktab_row *r = row_for(kc, "tanh", "fc3", 4 * e);
    if (n->dry) return;
    double t0 = timer_now_s();
    float s = (float)n->p->cfg.out_scale, *d = dout;
    const float *o = out;
    for (int64_t i = 0; i < e; i++) d[i] *= s - o[i] * o[i] / s;
    r->time_s += timer_now_s() - t0;
}

/* element (b, c, z, y, x) of a view */
static float *at(const t3view *v, int b, int c, int z, int y, int x)
{
    return (float *)v->p + b * v->sn + c * v->sc + z * v->sd + y * v->sh + x * v->sw;
}

void cf_avgpool_fwd(cf_net *n, kc_t *kc, const char *layer, const t3view *x, const t3view *y)
{
    ktab_row *r = row_for(kc, "avgpool3d_fwd", layer, 8 * t3view_elems(y));
    if (n->dry) return;
    double t0 = timer_now_s();
    for (int b = 0; b < y->n; b++)
        for (int z = 0; z < y->d; z++)
            for (int yy = 0; yy < y->h; yy++)
                for (int xx = 0; xx < y->w; xx++)
                    for (int c = 0; c < y->c; c++) {
                        float s = 0;
                        for (int i = 0; i < 8; i++)
                            s += *at(x, b, c, 2 * z + (i >> 2), 2 * yy + (i >> 1 & 1), 2 * xx + (i & 1));
                        *at(y, b, c, z, yy, xx) = 0.125f * s;
                    }
    r->time_s += timer_now_s() - t0;
}

void cf_avgpool_bwd(cf_net *n, kc_t *kc, const char *layer, const t3view *dy, const t3view *dx)
{
    ktab_row *r = row_for(kc, "avgpool3d_bwd", layer, t3view_elems(dy));
    if (n->dry) return;
    double t0 = timer_now_s();
    for (int b = 0; b < dy->n; b++)
        for (int z = 0; z < dy->d; z++)
            for (int yy = 0; yy < dy->h; yy++)
                for (int xx = 0; xx < dy->w; xx++)
                    for (int c = 0; c < dy->c; c++) {
                        float g = 0.125f * *at(dy, b, c, z, yy, xx);
                        for (int i = 0; i < 8; i++)
                            *at(dx, b, c, 2 * z + (i >> 2), 2 * yy + (i >> 1 & 1), 2 * xx + (i & 1)) = g;
                    }
    r->time_s += timer_now_s() - t0;
}
