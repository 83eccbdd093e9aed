#include "benchmarks/cosmoflow/model/un_plan.h"

#include <stdio.h>
#include <string.h>

#include "benchmarks/train/trec.h"

/* LBANN's widths at filters 32, from the input down, then up */
static const int down_w[UN_LEVELS][2] = {{32, 64}, {64, 128}, {128, 256}};
static const int bottom_w[2] = {256, 512};
static const int deconv_w[UN_LEVELS] = {512, 256, 128};
static const int up_w[UN_LEVELS][2] = {{256, 256}, {128, 128}, {64, 64}};

const char *un_preset_list(void) { return "unet-tiny or unet128"; }

int un_preset(un_cfg *c, const char *name)
{
    un_cfg d = {.size = 16, .channels = 1, .classes = 3, .filters = 4, .batch = 1, .steps = 10,
                .seed = 1, .lr = 0.05, .spatial = "1", .split = 1};
    if (!strcmp(name, "unet128")) {
        d.size = 128, d.filters = 32;
    } else if (strcmp(name, "unet-tiny")) {
        return -1;
    }
    snprintf(d.preset, sizeof d.preset, "%s", name);
    *c = d;
    return 0;
}

int un_validate(const un_cfg *c, char *err, size_t errlen)
{
    if (c->size < 8 || c->size > 1024 || c->size % (1 << UN_LEVELS))
        snprintf(err, errlen, "--size %d: must be a multiple of 8 from 8 to 1024", c->size);
    else if (c->channels < 1 || c->channels > 64)
        snprintf(err, errlen, "--channels %d: must be 1 to 64", c->channels);
    else if (c->classes < 2 || c->classes > 64)
        snprintf(err, errlen, "--classes %d: must be 2 to 64", c->classes);
    else if (c->filters < 1 || c->filters > 64)
        snprintf(err, errlen, "--filters %d: must be 1 to 64 (LBANN: 32)", c->filters);
    else if (c->batch < 1 || c->batch > 1024)
        snprintf(err, errlen, "--batch %d: must be 1 to 1024", c->batch);
    else if (c->steps < 1 || c->steps > 1000000)
        snprintf(err, errlen, "--steps %d: must be 1 to 1000000", c->steps);
    else if (c->split < 1 || (c->size / 8) % c->split)
        snprintf(err, errlen, "--spatial %s: D / 8 = %d planes at the bottom level do not split "
                 "into %d equal parts", c->spatial, c->size / 8, c->split);
    else if (!(c->lr > 0 && c->lr < 10))
        snprintf(err, errlen, "--lr %g: must be in (0, 10)", c->lr);
    else
        return 0;
    return -1;
}

static void add(un_plan *p, const char *name, int kind, int k, int ci, int co, int ext)
{
    un_layer *l = &p->layers[p->nlayers++];
    snprintf(l->name, sizeof l->name, "%s", name);
    l->kind = kind, l->k = k, l->ci = ci, l->co = co, l->ext = ext;
    l->nw = (int64_t)k * k * k * ci * co;
    l->nbn = kind == UN_CBR ? 2 * co : 0;
    l->off = p->params;
    int64_t vox = (int64_t)ext * ext * ext;
    if (kind == UN_TCONV) vox /= 8;  /* per voxel of its input */
    l->fwd_flops = 2 * l->nw * vox;
    p->conv_weights += l->nw;
    p->bn_params += l->nbn;
    p->params += l->nw + l->nbn;
    p->fwd_conv_flops += l->fwd_flops;
}

void un_plan_build(un_plan *p, const un_cfg *c)
{
    memset(p, 0, sizeof *p);
    p->cfg = *c;
    int f = c->filters, ext = c->size, ci = c->channels;
    char name[12];
    /* widths are 32 x 2^i at filters 32: w * f / 32 is whole for any f */
#define W(x) ((x) / 32 * f)
    for (int i = 0; i < UN_LEVELS; i++) {
        snprintf(name, sizeof name, "down%da", i + 1);
        add(p, name, UN_CBR, 3, ci, W(down_w[i][0]), ext);
        snprintf(name, sizeof name, "down%db", i + 1);
        add(p, name, UN_CBR, 3, W(down_w[i][0]), W(down_w[i][1]), ext);
        ci = W(down_w[i][1]), ext /= 2;
    }
    add(p, "bottom_a", UN_CBR, 3, ci, W(bottom_w[0]), ext);
    add(p, "bottom_b", UN_CBR, 3, W(bottom_w[0]), W(bottom_w[1]), ext);
    ci = W(bottom_w[1]);
    for (int i = 0; i < UN_LEVELS; i++) {
        ext *= 2;
        snprintf(name, sizeof name, "deconv%d", i + 1);
        add(p, name, UN_TCONV, 2, ci, W(deconv_w[i]), ext);
        int skip = W(down_w[UN_LEVELS - 1 - i][1]);
        snprintf(name, sizeof name, "up%da", i + 1);
        add(p, name, UN_CBR, 3, W(deconv_w[i]) + skip, W(up_w[i][0]), ext);
        snprintf(name, sizeof name, "up%db", i + 1);
        add(p, name, UN_CBR, 3, W(up_w[i][0]), W(up_w[i][1]), ext);
        ci = W(up_w[i][1]);
    }
    add(p, "last", UN_LAST, 1, ci, c->classes, ext);
#undef W
}

void un_describe(const un_plan *p, FILE *f)
{
    const un_cfg *c = &p->cfg;
    fprintf(f, "# 3D U-Net%s%s (LBANN's UNet3D, widths x %d/32): input %d^3 x %d, %d levels of "
               "two conv 3^3 + batch norm + ReLU and 2^3 max-pool, a bottom pair, per level a "
               "2^3 stride-2 transposed conv, concatenation with the skip and two conv; conv "
               "1^3 to %d classes; softmax cross-entropy per voxel\n",
            c->preset[0] ? " preset " : "", c->preset, c->filters, c->size, c->channels,
            UN_LEVELS, c->classes);
    fprintf(f, "%-9s %-5s %4s %6s %6s %6s %14s %20s\n", "layer", "type", "k", "c_in", "c_out",
            "ext", "weights", "fwd_flops/sample");
    static const char *const kinds[] = {"conv", "tconv", "conv"};
    for (int i = 0; i < p->nlayers; i++) {
        const un_layer *l = &p->layers[i];
        fprintf(f, "%-9s %-5s %4d %6d %6d %6d %14lld %20lld\n", l->name, kinds[l->kind], l->k,
                l->ci, l->co, l->ext, (long long)l->nw, (long long)l->fwd_flops);
    }
    char a[32];
    trec_si((double)p->fwd_conv_flops, a, sizeof a);
    fprintf(f, "\n");
    fprintf(f, "layers                          %d\n", p->nlayers);
    fprintf(f, "conv_weights                    %lld\n", (long long)p->conv_weights);
    fprintf(f, "bn_parameters                   %lld\n", (long long)p->bn_params);
    fprintf(f, "parameters                      %lld\n", (long long)p->params);
    fprintf(f, "forward_conv_flops_per_sample   %lld  (%sFLOP)\n", (long long)p->fwd_conv_flops, a);
}
