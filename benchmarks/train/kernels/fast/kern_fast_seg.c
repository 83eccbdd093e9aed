/* The segmentation kernels of the fast CPU set (kern.h, "segmentation
 * kernels") on oneDNN primitives:
 *
 *   dconv  oneDNN's dilated direct convolutions (forward, backward data,
 *          backward weights; oneDNN counts dilation from 0, kern_dconv from
 *          1).  As in kern_fast_conv.c the views are reordered into the
 *          blocked layouts the JIT kernels want (format "any"), the
 *          primitive runs, and its output is reordered back, all in the
 *          context's workspace.  Unlike kern_fast_conv.c there are no row
 *          bands: the whole call's blocked copies live in the workspace (the
 *          climate network's largest layer at the deepcam size is a few GB
 *          per 16 samples; banding is left for when it matters).
 *   bn     oneDNN's batch normalisation in training mode with scale and
 *          shift (dnnl_use_scale | dnnl_use_shift) straight on the views
 *          (plain NCHW, the sample stride of the view), which computes the
 *          batch statistics itself and returns mean and biased variance.
 *
 * In bf16 mode (--precision bf16) the convolutions take bf16 inputs with
 * fp32 accumulation and outputs, as kern_fast_conv.c's (conv_create below);
 * batch norm stays fp32 (kern_fast_kernel_dtype says which).  Primitives
 * are created once per shape and type and kept in the context's cache
 * (kf_ctx.cache_seg). */
#include "benchmarks/train/kernels/fast/kern_fast_seg.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/train/kernels/fast/kf_dnnl.h"
#include "benchmarks/train/kernels/kern.h"

enum { SEG_FWD = 1, SEG_BWDD = 2, SEG_BWDW = 3, SEG_BN_FWD = 4, SEG_BN_BWD = 5 };
enum { SKEY = 16 };

/* A cached primitive, key first (kf_prim_cache).  Convolutions: inputs a
 * and b and output o, each a user-side memory (view or plain weights) and a
 * blocked copy in the workspace.  Batch norms use only the user-side
 * memories (bn_* below). */
typedef struct {
    int64_t key[SKEY];
    dnnl_primitive_t prim, r_a, r_b, r_o;
    dnnl_memory_t a_user, a_blk, b_user, b_blk, o_user, o_blk, scratch;
    dnnl_memory_t bn_x, bn_y, bn_dy, bn_dx, bn_scale, bn_shift, bn_mean, bn_var, bn_dscale,
        bn_dshift;
    float *zeros; /* bn backward: oneDNN takes a shift argument it does not need */
    size_t off_a, off_b, off_o, off_scr, total; /* workspace layout */
} segprim;

struct kf_seg_cache {
    kf_prim_cache prims;
};

static dnnl_memory_desc_t view_md(int64_t n, int64_t c, int64_t h, int64_t w, int64_t sstride)
{
    dnnl_memory_desc_t md;
    dnnl_dims_t d = {n, c, h, w}, s = {sstride, h * w, w, 1};
    DNNL_CHECK(dnnl_memory_desc_init_by_strides(&md, 4, d, dnnl_f32, s));
    return md;
}

static dnnl_memory_desc_t any_md(int64_t a, int64_t b, int64_t c, int64_t d, dnnl_data_type_t t)
{
    dnnl_memory_desc_t md;
    dnnl_dims_t dims = {a, b, c, d};
    DNNL_CHECK(dnnl_memory_desc_init_by_tag(&md, 4, dims, t, dnnl_format_tag_any));
    return md;
}

/* key: kind, n, ci, co, H, W, Ho, Wo, k, stride, pad, dil, input-side
 * sstride (x or dx), output-side sstride (y or dy), groups, bf16.  Grouped
 * convolutions have 5-D weights (g, co/g, ci/g, k, k): the layout goihw is
 * kern.h's [co][ci/g][k][k].
 *
 * bf16 mode (key[15], kf_ctx.bf16): as kern_fast_conv.c, the pass's two
 * inputs are bf16 (x, w; dy, w; x, dy: the reorders into the blocked copies
 * round them) and its output (y, dx, dw) fp32 with fp32 accumulation; a
 * backward pass's forward hint takes bf16 everywhere (kf_dnnl.c says why). */
static segprim *conv_create(kf_ctx *c, const int64_t *key)
{
    int kind = (int)key[0];
    int64_t n = key[1], ci = key[2], co = key[3], H = key[4], W = key[5], Ho = key[6], Wo = key[7],
            k = key[8], s = key[9], p = key[10], d = key[11];
    segprim *e = XCALLOC(1, sizeof *e, "oneDNN dilated convolution");
    memcpy(e->key, key, sizeof e->key);

    dnnl_memory_desc_t src_view = view_md(n, ci, H, W, key[12]);
    dnnl_memory_desc_t dst_view = view_md(n, co, Ho, Wo, key[13]);
    int64_t G = key[14];
    dnnl_data_type_t in = key[15] ? dnnl_bf16 : dnnl_f32;
    dnnl_data_type_t st = kind == SEG_BWDD ? dnnl_f32 : in, wt = kind == SEG_BWDW ? dnnl_f32 : in,
                     dt = kind == SEG_FWD ? dnnl_f32 : in;
    dnnl_memory_desc_t wei_plain, wei, hwei, src = any_md(n, ci, H, W, st),
                                               dst = any_md(n, co, Ho, Wo, dt),
                                               hsrc = any_md(n, ci, H, W, in);
    if (G > 1) {
        dnnl_dims_t wd = {G, co / G, ci / G, k, k};
        DNNL_CHECK(dnnl_memory_desc_init_by_tag(&wei_plain, 5, wd, dnnl_f32, dnnl_goihw));
        DNNL_CHECK(dnnl_memory_desc_init_by_tag(&wei, 5, wd, wt, dnnl_format_tag_any));
        DNNL_CHECK(dnnl_memory_desc_init_by_tag(&hwei, 5, wd, in, dnnl_format_tag_any));
    } else {
        dnnl_dims_t wd = {co, ci, k, k};
        DNNL_CHECK(dnnl_memory_desc_init_by_tag(&wei_plain, 4, wd, dnnl_f32, dnnl_oihw));
        wei = any_md(co, ci, k, k, wt);
        hwei = any_md(co, ci, k, k, in);
    }
    /* the forward hint of a backward pass: bf16 inputs (fp32: all f32) */
    const dnnl_memory_desc_t *fsrc = kind == SEG_FWD ? &src : &hsrc,
                             *fwei = kind == SEG_FWD ? &wei : &hwei;

    /* the right padding that makes oneDNN's output extent ours */
    dnnl_dims_t strides = {s, s}, dil = {d - 1, d - 1}, pl = {p, p},
                pr = {(Ho - 1) * s + (k - 1) * d + 1 - H - p,
                      (Wo - 1) * s + (k - 1) * d + 1 - W - p};
    dnnl_primitive_attr_t attr;
    DNNL_CHECK(dnnl_primitive_attr_create(&attr));
    DNNL_CHECK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
    dnnl_convolution_desc_t fd, bd;
    dnnl_primitive_desc_t fpd, pd;
    DNNL_CHECK(dnnl_dilated_convolution_forward_desc_init(&fd, dnnl_forward_training,
                                                          dnnl_convolution_direct, fsrc, fwei, NULL,
                                                          &dst, strides, dil, pl, pr));
    DNNL_CHECK(dnnl_primitive_desc_create(&fpd, &fd, attr, c->eng, NULL));
    pd = fpd;
    if (kind == SEG_BWDD) {
        DNNL_CHECK(dnnl_dilated_convolution_backward_data_desc_init(
            &bd, dnnl_convolution_direct, &src, &wei, &dst, strides, dil, pl, pr));
        DNNL_CHECK(dnnl_primitive_desc_create(&pd, &bd, attr, c->eng, fpd));
    } else if (kind == SEG_BWDW) {
        DNNL_CHECK(dnnl_dilated_convolution_backward_weights_desc_init(
            &bd, dnnl_convolution_direct, &src, &wei, NULL, &dst, strides, dil, pl, pr));
        DNNL_CHECK(dnnl_primitive_desc_create(&pd, &bd, attr, c->eng, fpd));
    }
    DNNL_CHECK(dnnl_primitive_attr_destroy(attr));
    DNNL_CHECK(dnnl_primitive_create(&e->prim, pd));

    /* the pass's inputs a, b and output o: user side and the primitive's side */
    const dnnl_memory_desc_t *a_u, *b_u, *o_u;
    dnnl_query_t qa, qb, qo;
    if (kind == SEG_FWD)
        a_u = &src_view, b_u = &wei_plain, o_u = &dst_view, qa = dnnl_query_src_md,
        qb = dnnl_query_weights_md, qo = dnnl_query_dst_md;
    else if (kind == SEG_BWDD)
        a_u = &dst_view, b_u = &wei_plain, o_u = &src_view, qa = dnnl_query_diff_dst_md,
        qb = dnnl_query_weights_md, qo = dnnl_query_diff_src_md;
    else
        a_u = &src_view, b_u = &dst_view, o_u = &wei_plain, qa = dnnl_query_src_md,
        qb = dnnl_query_diff_dst_md, qo = dnnl_query_diff_weights_md;
    const dnnl_memory_desc_t *a_b = dnnl_primitive_desc_query_md(pd, qa, 0);
    const dnnl_memory_desc_t *b_b = dnnl_primitive_desc_query_md(pd, qb, 0);
    const dnnl_memory_desc_t *o_b = dnnl_primitive_desc_query_md(pd, qo, 0);
    const dnnl_memory_desc_t *scr = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    e->a_user = kf_dnnl_memory(c, a_u);
    e->b_user = kf_dnnl_memory(c, b_u);
    e->o_user = kf_dnnl_memory(c, o_u);
    e->a_blk = kf_dnnl_memory(c, a_b);
    e->b_blk = kf_dnnl_memory(c, b_b);
    e->o_blk = kf_dnnl_memory(c, o_b);
    e->scratch = kf_dnnl_memory(c, scr);
    e->r_a = kf_dnnl_reorder(c, a_u, a_b, 0);
    e->r_b = kf_dnnl_reorder(c, b_u, b_b, 0);
    e->r_o = kf_dnnl_reorder(c, o_b, o_u, 0);
    e->off_a = 0;
    e->off_b = e->off_a + kf_dnnl_round64(dnnl_memory_desc_get_size(a_b));
    e->off_o = e->off_b + kf_dnnl_round64(dnnl_memory_desc_get_size(b_b));
    e->off_scr = e->off_o + kf_dnnl_round64(dnnl_memory_desc_get_size(o_b));
    e->total = e->off_scr + kf_dnnl_round64(dnnl_memory_desc_get_size(scr));
    kf_dnnl_conv_pd_destroy(pd, fpd);
    return e;
}

static struct kf_seg_cache *cache_of(kf_ctx *c)
{
    if (!c->cache_seg)
        c->cache_seg = XCALLOC(1, sizeof *c->cache_seg, "segmentation cache");
    return c->cache_seg;
}

static segprim *bn_create(kf_ctx *c, const int64_t *key);

static segprim *prim_get(kf_ctx *c, const int64_t *key)
{
    struct kf_seg_cache *q = cache_of(c);
    segprim *e = kf_dnnl_cache_find(&q->prims, key, sizeof e->key);
    if (!e) {
        e = key[0] >= SEG_BN_FWD ? bn_create(c, key) : conv_create(c, key);
        kf_dnnl_cache_add(&q->prims, e, 32, "segmentation primitive");
    }
    return e;
}

void kf_seg_cache_free(kf_ctx *c)
{
    struct kf_seg_cache *q = c->cache_seg;
    if (!q)
        return;
    for (int i = 0; i < q->prims.n; i++) {
        segprim *e = q->prims.e[i];
        dnnl_primitive_t prims[] = {e->prim, e->r_a, e->r_b, e->r_o};
        dnnl_memory_t mems[] = {e->a_user,    e->a_blk,    e->b_user,   e->b_blk,   e->o_user,
                                e->o_blk,     e->scratch,  e->bn_x,     e->bn_y,    e->bn_dy,
                                e->bn_dx,     e->bn_scale, e->bn_shift, e->bn_mean, e->bn_var,
                                e->bn_dscale, e->bn_dshift};
        kf_dnnl_destroy(prims, sizeof prims / sizeof *prims, mems, sizeof mems / sizeof *mems);
        free(e->zeros);
        free(e);
    }
    kf_dnnl_cache_release(&q->prims);
    free(q);
    c->cache_seg = NULL;
}

static void conv_run(kf_ctx *c, int kind, const tview *in, const tview *out, const kern_dconv *g,
                     void *a, void *b, void *o)
{
    int64_t key[SKEY] = {kind,   in->n,  in->c,       out->c,       in->h,
                         in->w,  out->h, out->w,      g->k,         g->stride,
                         g->pad, g->dil, in->sstride, out->sstride, kern_dconv_groups(g),
                         c->bf16};
    kf_threads(c);
    segprim *e = prim_get(c, key);
    char *ws = kf_workspace(c, e->total);
    DNNL_CHECK(dnnl_memory_set_data_handle(e->a_user, a));
    DNNL_CHECK(dnnl_memory_set_data_handle(e->b_user, b));
    DNNL_CHECK(dnnl_memory_set_data_handle(e->o_user, o));
    DNNL_CHECK(dnnl_memory_set_data_handle(e->a_blk, ws + e->off_a));
    DNNL_CHECK(dnnl_memory_set_data_handle(e->b_blk, ws + e->off_b));
    DNNL_CHECK(dnnl_memory_set_data_handle(e->o_blk, ws + e->off_o));
    DNNL_CHECK(dnnl_memory_set_data_handle(e->scratch, ws + e->off_scr));
    kf_dnnl_exec2(c, e->r_a, DNNL_ARG_FROM, e->a_user, DNNL_ARG_TO, e->a_blk);
    kf_dnnl_exec2(c, e->r_b, DNNL_ARG_FROM, e->b_user, DNNL_ARG_TO, e->b_blk);
    int aa = kind == SEG_BWDD ? DNNL_ARG_DIFF_DST : DNNL_ARG_SRC;
    int ab = kind == SEG_BWDW ? DNNL_ARG_DIFF_DST : DNNL_ARG_WEIGHTS;
    int ao = kind == SEG_FWD    ? DNNL_ARG_DST
             : kind == SEG_BWDD ? DNNL_ARG_DIFF_SRC
                                : DNNL_ARG_DIFF_WEIGHTS;
    dnnl_exec_arg_t args[4] = {
        {aa, e->a_blk}, {ab, e->b_blk}, {ao, e->o_blk}, {DNNL_ARG_SCRATCHPAD, e->scratch}};
    DNNL_CHECK(dnnl_primitive_execute(e->prim, c->str, 4, args));
    kf_dnnl_exec2(c, e->r_o, DNNL_ARG_FROM, e->o_blk, DNNL_ARG_TO, e->o_user);
    DNNL_CHECK(dnnl_stream_wait(c->str));
}

static int empty(const tview *t) { return t->n <= 0 || t->c <= 0 || t->h <= 0 || t->w <= 0; }

static void fast_dconv_fwd(void *ctx, const tview *x, const void *w, const kern_dconv *g,
                           const tview *y)
{
    if (empty(y))
        return;
    conv_run(ctx, SEG_FWD, x, y, g, x->p, (void *)w, y->p);
}

static void fast_dconv_bwd_data(void *ctx, const tview *dy, const void *w, const kern_dconv *g,
                                const tview *dx)
{
    if (empty(dx))
        return;
    if (empty(dy)) { /* no output pixel read the input */
        for (int n = 0; n < dx->n; n++)
            memset((float *)dx->p + (int64_t)n * dx->sstride, 0,
                   (size_t)dx->c * dx->h * dx->w * sizeof(float));
        return;
    }
    conv_run(ctx, SEG_BWDD, dx, dy, g, dy->p, (void *)w, dx->p);
}

static void fast_dconv_bwd_weights(void *ctx, const tview *x, const tview *dy, const kern_dconv *g,
                                   void *dw)
{
    if (empty(x) || empty(dy)) {
        memset(dw, 0, (size_t)x->c / kern_dconv_groups(g) * dy->c * g->k * g->k * sizeof(float));
        return;
    }
    conv_run(ctx, SEG_BWDW, x, dy, g, x->p, dy->p, dw);
}

/* key: kind, n, c, h, w, sstride, eps (its bits) */
static segprim *bn_create(kf_ctx *c, const int64_t *key)
{
    segprim *e = XCALLOC(1, sizeof *e, "oneDNN batch norm");
    memcpy(e->key, key, sizeof e->key);
    float eps;
    uint32_t bits = (uint32_t)key[6];
    memcpy(&eps, &bits, sizeof eps);
    dnnl_memory_desc_t data = view_md(key[1], key[2], key[3], key[4], key[5]), vec;
    dnnl_dims_t vd = {key[2]};
    DNNL_CHECK(dnnl_memory_desc_init_by_tag(&vec, 1, vd, dnnl_f32, dnnl_a));
    unsigned flags = dnnl_use_scale | dnnl_use_shift;
    dnnl_batch_normalization_desc_t fd, bd;
    dnnl_primitive_desc_t fpd, pd;
    DNNL_CHECK(
        dnnl_batch_normalization_forward_desc_init(&fd, dnnl_forward_training, &data, eps, flags));
    DNNL_CHECK(dnnl_primitive_desc_create(&fpd, &fd, NULL, c->eng, NULL));
    pd = fpd;
    if (key[0] == SEG_BN_BWD) {
        DNNL_CHECK(dnnl_batch_normalization_backward_desc_init(&bd, dnnl_backward, &data, &data,
                                                               eps, flags));
        DNNL_CHECK(dnnl_primitive_desc_create(&pd, &bd, NULL, c->eng, fpd));
    }
    DNNL_CHECK(dnnl_primitive_create(&e->prim, pd));
    dnnl_memory_t *dm[] = {&e->bn_x, &e->bn_y, &e->bn_dy, &e->bn_dx};
    for (size_t i = 0; i < sizeof dm / sizeof *dm; i++)
        *dm[i] = kf_dnnl_memory(c, &data);
    dnnl_memory_t *vm[] = {&e->bn_scale, &e->bn_shift,  &e->bn_mean,
                           &e->bn_var,   &e->bn_dscale, &e->bn_dshift};
    for (size_t i = 0; i < sizeof vm / sizeof *vm; i++)
        *vm[i] = kf_dnnl_memory(c, &vec);
    if (key[0] == SEG_BN_BWD)
        e->zeros = XCALLOC((size_t)key[2], sizeof(float), "batch-norm shift");
    kf_dnnl_conv_pd_destroy(pd, fpd);
    return e;
}

static segprim *bn_get(kf_ctx *c, int kind, const tview *x, float eps)
{
    uint32_t bits;
    memcpy(&bits, &eps, sizeof bits);
    int64_t key[SKEY] = {kind, x->n, x->c, x->h, x->w, x->sstride, bits};
    kf_threads(c);
    return prim_get(c, key);
}

static void set(dnnl_memory_t m, const void *p)
{
    DNNL_CHECK(dnnl_memory_set_data_handle(m, (void *)p));
}

static void fast_bn_fwd(void *ctx, const tview *x, const void *gamma, const void *beta, float eps,
                        float *mean, float *var, const tview *y)
{
    kf_ctx *c = ctx;
    if (empty(x))
        return;
    segprim *e = bn_get(c, SEG_BN_FWD, x, eps);
    set(e->bn_x, x->p), set(e->bn_y, y->p), set(e->bn_scale, gamma), set(e->bn_shift, beta);
    set(e->bn_mean, mean), set(e->bn_var, var);
    dnnl_exec_arg_t a[6] = {{DNNL_ARG_SRC, e->bn_x},       {DNNL_ARG_DST, e->bn_y},
                            {DNNL_ARG_SCALE, e->bn_scale}, {DNNL_ARG_SHIFT, e->bn_shift},
                            {DNNL_ARG_MEAN, e->bn_mean},   {DNNL_ARG_VARIANCE, e->bn_var}};
    DNNL_CHECK(dnnl_primitive_execute(e->prim, c->str, 6, a));
    DNNL_CHECK(dnnl_stream_wait(c->str));
}

static void fast_bn_bwd(void *ctx, const tview *x, const tview *dy, const void *gamma,
                        const float *mean, const float *var, float eps, const tview *dx,
                        void *dgamma, void *dbeta)
{
    kf_ctx *c = ctx;
    if (empty(x))
        return;
    segprim *e = bn_get(c, SEG_BN_BWD, x, eps);
    set(e->bn_x, x->p), set(e->bn_dy, dy->p), set(e->bn_dx, dx->p), set(e->bn_scale, gamma);
    set(e->bn_mean, mean), set(e->bn_var, var), set(e->bn_dscale, dgamma);
    set(e->bn_dshift, dbeta), set(e->bn_shift, e->zeros);
    dnnl_exec_arg_t a[9] = {{DNNL_ARG_SHIFT, e->bn_shift},      {DNNL_ARG_SRC, e->bn_x},
                            {DNNL_ARG_DIFF_DST, e->bn_dy},      {DNNL_ARG_MEAN, e->bn_mean},
                            {DNNL_ARG_VARIANCE, e->bn_var},     {DNNL_ARG_SCALE, e->bn_scale},
                            {DNNL_ARG_DIFF_SRC, e->bn_dx},      {DNNL_ARG_DIFF_SCALE, e->bn_dscale},
                            {DNNL_ARG_DIFF_SHIFT, e->bn_dshift}};
    DNNL_CHECK(dnnl_primitive_execute(e->prim, c->str, 9, a));
    DNNL_CHECK(dnnl_stream_wait(c->str));
}

void kern_fast_fill_seg(kern_ops *o)
{
    o->dconv_fwd = fast_dconv_fwd;
    o->dconv_bwd_data = fast_dconv_bwd_data;
    o->dconv_bwd_weights = fast_dconv_bwd_weights;
    o->bn_fwd = fast_bn_fwd;
    o->bn_bwd = fast_bn_bwd;
    kf_seg_fill_ew(o);
}
