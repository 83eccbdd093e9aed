#include "benchmarks/stemdl/model/plan.h"

#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/train/kernels/flops.h"

static plan_layer *add_layer(plan_t *p, int kind, const char *name, int k, int c_in, int c_out,
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
    l->weights = (int64_t)k * k * c_in * c_out;
    l->fwd_flops = kind == PLAN_TCONV ? flops_tconv_fwd(1, c_in, c_out, h_in, w_in)
                                      : flops_conv_fwd(1, c_in, c_out, k, h_in, w_in);
    l->off_w = p->params;
    p->params += l->weights;
    l->off_b = bias ? p->params : -1;
    if (bias) p->params += c_out;
    p->weights += l->weights;
    p->biases += bias ? c_out : 0;
    p->fwd_conv_flops += l->fwd_flops;
    return l;
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

void plan_build(plan_t *p, const cfg_t *c)
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

void plan_free(plan_t *p)
{
    free(p->layers);
    p->layers = NULL;
}

void plan_si(double v, char *buf, size_t len)
{
    static const char *prefix[] = {"", "k", "M", "G", "T", "P", "E", "Z"};
    int i = 0;
    double a = v < 0 ? -v : v;
    while (a >= 1000.0 && i < 7) {
        a /= 1000.0;
        v /= 1000.0;
        i++;
    }
    snprintf(buf, len, i ? "%.2f %s" : "%.0f %s", v, prefix[i]);
}

void plan_print(const plan_t *p, FILE *f, int64_t executed_per_step, int batch)
{
    const cfg_t *c = &p->cfg;
    fprintf(f, "# STEMDL FC-DenseNet%s%s: %d levels, input %dx%dx%d, growth %d, k %d\n",
            c->preset[0] ? " preset " : "", c->preset, c->levels, c->c_in, c->height, c->width,
            c->growth, c->k);
    fprintf(f, "%-16s %-5s %4s %20s %20s %14s %18s\n", "layer", "type", "k", "input CxHxW",
            "output CxHxW", "weights", "fwd_flops/sample");
    for (int i = 0; i < p->n; i++) {
        const plan_layer *l = &p->layers[i];
        char in[32], out[32];
        snprintf(in, sizeof in, "%dx%dx%d", l->c_in, l->h_in, l->w_in);
        snprintf(out, sizeof out, "%dx%dx%d", l->c_out, l->h_out, l->w_out);
        fprintf(f, "%-16s %-5s %4d %20s %20s %14lld %18lld\n", l->name,
                l->kind == PLAN_TCONV ? "tconv" : "conv", l->k, in, out, (long long)l->weights,
                (long long)l->fwd_flops);
    }
    char a[32], b[32], e[32];
    plan_si((double)p->fwd_conv_flops, a, sizeof a);
    plan_si(3.0 * (double)p->fwd_conv_flops, b, sizeof b);
    fprintf(f, "\n");
    fprintf(f, "layers                         %d\n", p->n);
    fprintf(f, "conv_weights                   %lld\n", (long long)p->weights);
    fprintf(f, "biases                         %lld\n", (long long)p->biases);
    fprintf(f, "parameters                     %lld\n", (long long)p->params);
    fprintf(f, "forward_conv_flops_per_sample  %lld  (%sFLOP)\n", (long long)p->fwd_conv_flops, a);
    fprintf(f, "convention_flops_per_sample    %lld  (%sFLOP, 3 x forward)\n",
            (long long)(3 * p->fwd_conv_flops), b);
    if (executed_per_step > 0 && batch > 0) {
        plan_si((double)executed_per_step / batch, e, sizeof e);
        fprintf(f, "executed_flops_per_sample      %lld  (%sFLOP, every kernel of a step at batch %d)\n",
                (long long)(executed_per_step / batch), e, batch);
    }
}
