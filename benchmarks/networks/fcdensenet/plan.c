#include "benchmarks/networks/fcdensenet/plan.h"

#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/count.h"
#include "benchmarks/train/kernels/flops.h"

/* Every count of a layer and every total through count.h: a configuration
 * whose counts do not fit 64 bits sets p->overflow (plan_build_checked says
 * which layer) instead of wrapping. */
static void add_layer(plan_t *p, int kind, const char *name, int k, int c_in, int c_out,
                      int h_in, int w_in, int bias)
{
    plan_layer *l = &p->layers[p->n++];
    memset(l, 0, sizeof *l);
    snprintf(l->name, sizeof l->name, "%s", name);
    l->kind = kind;
    l->k = k;
    l->c_in = c_in;
    l->c_out = c_out;
    l->h_in = h_in;
    l->w_in = w_in;
    l->h_out = kind == PLAN_TCONV ? 2 * h_in : h_in;
    l->w_out = kind == PLAN_TCONV ? 2 * w_in : w_in;
    l->bias = bias;
    /* the FLOPs come from flops.h, which stops on overflow: ask first whether
     * the factors of its formula fit */
    int64_t fl;
    int bad = count_prod((const int64_t[]){k, k, c_in, c_out}, 4, &l->weights) ||
              count_prod((const int64_t[]){2, l->weights, h_in, w_in}, 4, &fl);
    if (!bad)
        l->fwd_flops = kind == PLAN_TCONV ? flops_tconv_fwd(1, c_in, c_out, h_in, w_in)
                                          : flops_conv_fwd(1, c_in, c_out, k, h_in, w_in);
    l->off_w = p->params;
    bad = bad || count_add(p->params, l->weights, &p->params);
    l->off_b = bias ? p->params : -1;
    bad = bad || count_add(p->params, bias ? c_out : 0, &p->params) ||
          count_add(p->weights, l->weights, &p->weights) ||
          count_add(p->fwd_conv_flops, l->fwd_flops, &p->fwd_conv_flops);
    p->biases += bias ? c_out : 0;
    if (bad && !p->overflow) p->overflow = p->n; /* 1 + the first layer that overflowed */
}

/* A dense block of `layers` layers on c0 input channels: returns its width. */
static int add_block(plan_t *p, const char *prefix, int layers, int c0, int h, int w)
{
    int c = c0;
    for (int l = 0; l < layers; l++) {
        char name[40];
        snprintf(name, sizeof name, "%.20s.l%d", prefix, l);
        add_layer(p, PLAN_CONV, name, p->cfg.k, c, p->cfg.growth, h, w, 0);
        c += p->cfg.growth;
    }
    return c;
}

static void build(plan_t *p, const cfg_t *c)
{
    memset(p, 0, sizeof *p);
    p->cfg = *c;
    int L = c->levels, maxlayers = 2 + 2 * L + c->bottleneck;
    for (int i = 0; i < L; i++) maxlayers += c->down[i] + c->up[i];
    p->layers = XCALLOC((size_t)maxlayers, sizeof *p->layers, "layer plan");

    int h = c->height, w = c->width;
    /* CONV_INIT keeps a bias: it is followed by a ReLU, not by a dense layer */
    p->conv_init = p->n;
    add_layer(p, PLAN_CONV, "conv_init", c->k0, c->c_in, c->f0, h, w, 1);
    int ch = c->f0;
    int skip_c[CFG_MAX_LEVELS];
    for (int i = 0; i < L; i++) {
        char name[40];
        p->level_h[i] = h;
        p->level_w[i] = w;
        p->down_c0[i] = ch;
        p->down_first[i] = p->n;
        snprintf(name, sizeof name, "down%d", i);
        ch = add_block(p, name, c->down[i], ch, h, w);
        skip_c[i] = ch;
        p->td[i] = p->n;
        snprintf(name, sizeof name, "td%d", i);
        add_layer(p, PLAN_CONV, name, 1, ch, c->td[i], h, w, 0);
        ch = c->td[i];
        h /= 2;
        w /= 2;
    }
    p->level_h[L] = h;
    p->level_w[L] = w;
    p->bott_c0 = ch;
    p->bott_first = p->n;
    add_block(p, "bottleneck", c->bottleneck, ch, h, w);
    int new_maps = c->bottleneck * c->growth;
    for (int j = 0; j < L; j++) {
        char name[40];
        p->tu[j] = p->n;
        snprintf(name, sizeof name, "tu%d", j);
        add_layer(p, PLAN_TCONV, name, 1, new_maps, c->tu[j], h, w, 0);
        h *= 2;
        w *= 2;
        ch = c->tu[j] + skip_c[L - 1 - j];
        p->up_c0[j] = ch;
        p->up_first[j] = p->n;
        snprintf(name, sizeof name, "up%d", j);
        ch = add_block(p, name, c->up[j], ch, h, w);
        new_maps = c->up[j] * c->growth;
    }
    /* CONV_FIN keeps a bias: the regression target has a non-zero mean */
    p->conv_fin = p->n;
    add_layer(p, PLAN_CONV, "conv_fin", 1, ch, c->c_out, h, w, 1);
}

void plan_build(plan_t *p, const cfg_t *c)
{
    build(p, c);
    CHECK(!p->overflow, "the counts of layer %s overflow 64 bits: cfg_validate should have "
                        "refused this configuration", p->layers[p->overflow - 1].name);
}

int plan_build_checked(plan_t *p, const cfg_t *c, char *err, size_t errlen)
{
    build(p, c);
    if (!p->overflow) return 0;
    snprintf(err, errlen, "network too large: the weight or FLOP count of layer %s (%d -> %d "
             "channels, %dx%d, kernel %d) does not fit a 64-bit integer",
             p->layers[p->overflow - 1].name, p->layers[p->overflow - 1].c_in,
             p->layers[p->overflow - 1].c_out, p->layers[p->overflow - 1].h_in,
             p->layers[p->overflow - 1].w_in, p->layers[p->overflow - 1].k);
    plan_free(p);
    return -1;
}

void plan_free(plan_t *p)
{
    free(p->layers);
    p->layers = NULL;
}

int plan_tensors(const plan_t *p, gsync_tensor **out)
{
    gsync_tensor *t = XCALLOC((size_t)2 * p->n, sizeof *t, "gradient tensors");
    int n = 0;
    for (int i = 0; i < p->n; i++) {
        const plan_layer *l = &p->layers[i];
        snprintf(t[n].name, sizeof t[n].name, "%.40s.w", l->name);
        t[n].layer = i, t[n].off = l->off_w, t[n].count = l->weights;
        n++;
        if (l->bias) {
            snprintf(t[n].name, sizeof t[n].name, "%.40s.b", l->name);
            t[n].layer = i, t[n].off = l->off_b, t[n].count = l->c_out;
            n++;
        }
    }
    *out = t;
    return n;
}

int plan_preset_tensors(const char *preset, gsync_tensor **out, int *nlayers)
{
    cfg_t c;
    if (cfg_preset(&c, preset)) return -1;
    plan_t p;
    plan_build(&p, &c);
    int n = plan_tensors(&p, out);
    *nlayers = p.n;
    plan_free(&p);
    return n;
}
