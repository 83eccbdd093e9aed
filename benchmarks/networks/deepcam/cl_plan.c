/* The layer list of DeepCAM's DeepLabv3+ (docs/climate.md "The network"),
 * written from its description: a modified aligned Xception encoder at
 * output stride 16 (entry, middle and exit flows of depthwise separable
 * convolutions, residual blocks with a strided 1x1 convolution on the skip
 * where the shape changes), ASPP (a 1x1 branch, three 3x3 atrous branches at
 * rates 6, 12, 18, an image-pool branch), the low-level skip at stride 4,
 * and DeepCAM's decoder of transposed convolutions.  ReLUs come before each
 * separable convolution inside a block (Xception's pre-activation), after
 * the batch norms elsewhere. */
#include "benchmarks/networks/deepcam/cl_plan.h"

#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/count.h"

/* ---- the graph ------------------------------------------------------------ */

static int tensor(cl_plan *p, int c, int h, int w)
{
    CHECK(p->nt < p->capt, "the plan holds more tensors than its %d", p->capt);
    p->t[p->nt] = (cl_tensor){.c = c, .h = h, .w = w, .parent = -1};
    return p->nt++;
}

/* Channels [ch0, ch0 + c) of tensor parent. */
static int window(cl_plan *p, int parent, int ch0, int c)
{
    int id = tensor(p, c, p->t[parent].h, p->t[parent].w);
    p->t[id].parent = parent, p->t[id].ch0 = ch0;
    return id;
}

static cl_op *op(cl_plan *p, cl_opkind kind, const char *name, int in, int out)
{
    CHECK(p->nop < p->capop, "the plan holds more operations than its %d", p->capop);
    cl_op *o = &p->op[p->nop++];
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "%s", name);
    o->kind = kind, o->in = in, o->in2 = -1, o->out = out, o->layer = -1;
    return o;
}

static void add_params(cl_plan *p, cl_op *o, int64_t count)
{
    o->layer = p->layers++;
    o->off = p->params, o->count = count;
    CHECK(count_add(p->params, count, &p->params) == 0, "the parameter count overflows");
}

/* ---- layers ---------------------------------------------------------------- */

/* A k x k convolution of x to c_out maps (an existing tensor `out`, or a new
 * one when out < 0); returns the output tensor. */
static int conv(cl_plan *p, const char *name, int x, int c_out, int k, int stride, int dil,
                int groups, int bias, int out)
{
    const cl_tensor *t = &p->t[x];
    kern_dconv g = {.k = k, .stride = stride, .pad = dil * (k - 1) / 2, .dil = dil, .groups = groups};
    int ho = kern_dconv_out(t->h, &g), wo = kern_dconv_out(t->w, &g);
    int cin = t->c, gr = kern_dconv_groups(&g);
    if (out < 0) out = tensor(p, c_out, ho, wo);
    cl_op *o = op(p, CL_CONV, name, x, out);
    o->g = g, o->bias = bias;
    int64_t w = COUNT_PROD("a layer's weights", c_out, cin / gr, k, k);
    o->fwd_flops = COUNT_PROD("a layer's FLOPs", 2, w, ho, wo);
    add_params(p, o, w + (bias ? c_out : 0));
    CHECK(count_add(p->conv_weights, w, &p->conv_weights) == 0 &&
              count_add(p->fwd_conv_flops, o->fwd_flops, &p->fwd_conv_flops) == 0,
          "the network's counts overflow");
    p->convs++;
    return out;
}

/* 3x3 stride-2 transposed convolution: x (h x w) to c_out maps at 2h x 2w;
 * it costs what the convolution it transposes costs. */
static int tconv(cl_plan *p, const char *name, int x, int c_out)
{
    const cl_tensor *t = &p->t[x];
    int out = tensor(p, c_out, 2 * t->h, 2 * t->w);
    cl_op *o = op(p, CL_TCONV, name, x, out);
    o->g = (kern_dconv){.k = 3, .stride = 2, .pad = 1, .dil = 1, .groups = 1};
    int64_t w = COUNT_PROD("a layer's weights", t->c, c_out, 3, 3);
    o->fwd_flops = COUNT_PROD("a layer's FLOPs", 2, w, t->h, t->w);
    add_params(p, o, w);
    CHECK(count_add(p->conv_weights, w, &p->conv_weights) == 0 &&
              count_add(p->fwd_conv_flops, o->fwd_flops, &p->fwd_conv_flops) == 0,
          "the network's counts overflow");
    p->convs++;
    return out;
}

static int unary(cl_plan *p, cl_opkind kind, const char *name, int x, int out, int params)
{
    const cl_tensor *t = &p->t[x];
    if (out < 0) out = tensor(p, t->c, t->h, t->w);
    cl_op *o = op(p, kind, name, x, out);
    if (params) add_params(p, o, 2 * (int64_t)t->c);
    return out;
}

static int bn(cl_plan *p, const char *name, int x) { return unary(p, CL_BN, name, x, -1, 1); }
static int relu(cl_plan *p, const char *name, int x, int out)
{
    return unary(p, CL_RELU, name, x, out, 0);
}

static int addt(cl_plan *p, const char *name, int a, int b)
{
    int out = tensor(p, p->t[a].c, p->t[a].h, p->t[a].w);
    op(p, CL_ADD, name, a, out)->in2 = b;
    return out;
}

static const char *nm(char *buf, size_t len, const char *a, const char *b)
{
    snprintf(buf, len, "%.24s.%.14s", a, b);
    return buf;
}

/* A depthwise separable convolution: 3x3 depthwise (stride, dilation), then
 * 1x1 pointwise to c_out maps. */
static int sep(cl_plan *p, const char *name, int x, int c_out, int stride, int dil)
{
    char b[48];
    int d = conv(p, nm(b, sizeof b, name, "dw"), x, p->t[x].c, 3, stride, dil, p->t[x].c, 0, -1);
    return conv(p, nm(b, sizeof b, name, "pw"), d, c_out, 1, 1, 1, 1, 0, -1);
}

/* relu (optional), separable convolution, batch norm (optional) */
static int unit(cl_plan *p, const char *name, int x, int c_out, int stride, int dil, int pre_relu,
                int with_bn)
{
    char b[48];
    if (pre_relu) x = relu(p, nm(b, sizeof b, name, "relu"), x, -1);
    x = sep(p, name, x, c_out, stride, dil);
    return with_bn ? bn(p, nm(b, sizeof b, name, "bn"), x) : x;
}

/* An Xception block of reps separable units (docs/climate.md); the first
 * unit widens to c_out unless grow_first is 0 (then the last does); a
 * strided block ends in a strided unit without batch norm, a last block
 * (is_last) in an unstrided one. */
static int block(cl_plan *p, const char *name, int x, int c_out, int reps, int stride, int dil,
                 int start_relu, int grow_first, int is_last)
{
    char b[48], u[24];
    int cin = p->t[x].c, skip = x;
    if (c_out != cin || stride != 1) {
        skip = conv(p, nm(b, sizeof b, name, "skip"), x, c_out, 1, stride, 1, 1, 0, -1);
        skip = bn(p, nm(b, sizeof b, name, "skip.bn"), skip);
    }
    int y = x, n = 0;
    if (grow_first) {
        snprintf(u, sizeof u, "sep%d", n++);
        y = unit(p, nm(b, sizeof b, name, u), y, c_out, 1, dil, start_relu, 1);
    }
    for (int i = 0; i < reps - 1; i++) {
        snprintf(u, sizeof u, "sep%d", n++);
        y = unit(p, nm(b, sizeof b, name, u), y, p->t[y].c, 1, dil, start_relu || n > 1, 1);
    }
    if (!grow_first) {
        snprintf(u, sizeof u, "sep%d", n++);
        y = unit(p, nm(b, sizeof b, name, u), y, c_out, 1, dil, 1, 1);
    }
    if (stride != 1)
        y = unit(p, nm(b, sizeof b, name, "down"), y, c_out, stride, dil, 1, 0);
    else if (is_last)
        y = unit(p, nm(b, sizeof b, name, "last"), y, c_out, 1, dil, 1, 0);
    return addt(p, nm(b, sizeof b, name, "sum"), y, skip);
}

/* conv, batch norm, relu into out (a window of a concatenation, or -1) */
static int cbr(cl_plan *p, const char *name, int x, int c_out, int k, int dil, int out)
{
    char b[48];
    int y = conv(p, name, x, c_out, k, 1, dil, 1, 0, -1);
    y = bn(p, nm(b, sizeof b, name, "bn"), y);
    return relu(p, nm(b, sizeof b, name, "relu"), y, out);
}

static int tbr(cl_plan *p, const char *name, int x, int c_out, int out)
{
    char b[48];
    int y = tconv(p, name, x, c_out);
    y = bn(p, nm(b, sizeof b, name, "bn"), y);
    return relu(p, nm(b, sizeof b, name, "relu"), y, out);
}

static int encoder(cl_plan *p, int x)
{
    const cl_cfg *c = &p->cfg;
    char b[24];
    x = conv(p, "conv1", x, cl_cfg_ch(c, 32), 3, 2, 1, 1, 0, -1);
    x = relu(p, "conv1.relu", bn(p, "conv1.bn", x), -1);
    x = conv(p, "conv2", x, cl_cfg_ch(c, 64), 3, 1, 1, 1, 0, -1);
    x = relu(p, "conv2.relu", bn(p, "conv2.bn", x), -1);
    x = block(p, "block1", x, cl_cfg_ch(c, 128), 2, 2, 1, 0, 1, 0);
    x = relu(p, "block1.relu", x, -1);
    p->low = x; /* stride 4: the decoder's skip */
    x = block(p, "block2", x, cl_cfg_ch(c, 256), 2, 2, 1, 0, 1, 0);
    x = block(p, "block3", x, cl_cfg_ch(c, 728), 2, 2, 1, 1, 1, 1);
    for (int i = 0; i < c->middle_blocks; i++) {
        snprintf(b, sizeof b, "block%d", 4 + i);
        x = block(p, b, x, cl_cfg_ch(c, 728), 3, 1, 1, 1, 1, 0);
    }
    /* exit flow: rates 1 then 2 (output stride 16) */
    x = block(p, "exit", x, cl_cfg_ch(c, 1024), 2, 1, 1, 1, 0, 1);
    x = unit(p, "conv3", x, cl_cfg_ch(c, 1536), 1, 2, 1, 1);
    x = unit(p, "conv4", x, cl_cfg_ch(c, 1536), 1, 2, 1, 1);
    x = unit(p, "conv5", x, cl_cfg_ch(c, 2048), 1, 2, 1, 1);
    return relu(p, "conv5.relu", x, -1);
}

static int aspp(cl_plan *p, int x)
{
    const cl_cfg *c = &p->cfg;
    int a = cl_cfg_ch(c, 256);
    const cl_tensor *t = &p->t[x];
    int cat = tensor(p, 5 * a, t->h, t->w);
    cbr(p, "aspp1", x, a, 1, 1, window(p, cat, 0, a));
    static const int rates[3] = {6, 12, 18};
    for (int i = 0; i < 3; i++) {
        char b[16];
        snprintf(b, sizeof b, "aspp%d", i + 2);
        cbr(p, b, x, a, 3, rates[i], window(p, cat, (i + 1) * a, a));
    }
    /* image-level pooling: mean, 1x1 conv, affine (no batch norm on one
     * pixel per sample), relu, broadcast back over the map */
    int pooled = tensor(p, t->c, 1, 1);
    op(p, CL_GPOOL, "aspp_pool", x, pooled);
    int y = conv(p, "aspp_pool.conv", pooled, a, 1, 1, 1, 1, 0, -1);
    y = unary(p, CL_AFFINE, "aspp_pool.affine", y, -1, 1);
    y = relu(p, "aspp_pool.relu", y, -1);
    op(p, CL_BCAST, "aspp_pool.bcast", y, window(p, cat, 4 * a, a));
    return cbr(p, "aspp_proj", cat, a, 1, 1, -1);
}

static int decoder(cl_plan *p, int x)
{
    const cl_cfg *c = &p->cfg;
    int d = cl_cfg_ch(c, 256), l = cl_cfg_ch(c, 48);
    x = tbr(p, "deconv1a", x, d, -1);
    const cl_tensor *lo = &p->t[p->low];
    int cat = tensor(p, d + l, lo->h, lo->w);
    tbr(p, "deconv1b", x, d, window(p, cat, 0, d));
    cbr(p, "low.conv", p->low, l, 1, 1, window(p, cat, d, l));
    x = cbr(p, "dec.conv1", cat, d, 3, 1, -1);
    x = cbr(p, "dec.conv2", x, d, 3, 1, -1);
    x = conv(p, "dec.conv3", x, d, 1, 1, 1, 1, 1, -1);
    x = tbr(p, "deconv2", x, d, -1);
    return tconv(p, "last_deconv", x, CL_CLASSES);
}

/* Consumers and which gradients accumulate (cl_net_pass.c's backward). */
static void mark(cl_plan *p)
{
    for (int i = 0; i < p->nop; i++) {
        const cl_op *o = &p->op[i];
        int ins[2] = {o->in, o->in2};
        for (int j = 0; j < 2; j++) {
            if (ins[j] < 0) continue;
            cl_tensor *t = &p->t[ins[j]];
            CHECK(t->parent < 0, "%s reads a window of a concatenation", o->name);
            t->consumers++;
            /* relu's backward adds into its input's gradient */
            if (o->kind == CL_RELU || t->consumers > 1) t->accumulate = 1;
        }
    }
}

void cl_plan_build(cl_plan *p, const cl_cfg *c)
{
    memset(p, 0, sizeof *p);
    p->cfg = *c;
    /* every block makes at most 20 tensors and operations; the rest of the
     * network fewer than 400 */
    p->capt = p->capop = 400 + 20 * (c->middle_blocks > 0 ? c->middle_blocks : 0);
    p->t = XCALLOC((size_t)p->capt, sizeof *p->t, "plan tensors");
    p->op = XCALLOC((size_t)p->capop, sizeof *p->op, "plan operations");
    p->input = tensor(p, c->channels, c->height, c->width);
    int x = encoder(p, p->input);
    x = aspp(p, x);
    p->logits = decoder(p, x);
    CHECK(p->t[p->logits].h == c->height && p->t[p->logits].w == c->width,
          "the decoder's output is %dx%d, not the input's %dx%d", p->t[p->logits].h,
          p->t[p->logits].w, c->height, c->width);
    mark(p);
    p->layer_op = XCALLOC((size_t)p->layers, sizeof *p->layer_op, "plan layers");
    for (int i = 0; i < p->nop; i++)
        if (p->op[i].layer >= 0) p->layer_op[p->op[i].layer] = i;
}

void cl_plan_free(cl_plan *p)
{
    free(p->t);
    free(p->op);
    free(p->layer_op);
    memset(p, 0, sizeof *p);
}

int64_t cl_plan_bnsync_reductions(const cl_plan *p)
{
    int64_t k = 0;
    for (int i = 0; i < p->nop; i++) k += p->op[i].kind == CL_BN;
    return 2 * k;
}

int64_t cl_plan_bnsync_bytes(const cl_plan *p)
{
    int64_t b = 0;
    for (int i = 0; i < p->nop; i++)
        if (p->op[i].kind == CL_BN)
            b += 2 * (2 * (int64_t)p->t[p->op[i].in].c + 1) * (int64_t)sizeof(double);
    return b;
}
