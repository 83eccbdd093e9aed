/* k x k x k valid convolutions of the fast CPU path on oneDNN's direct
 * convolutions.
 *
 * Layout: oneDNN's AVX-512 kernels (brgconv, jit) take channels-last (ndhwc)
 * activations as they are, at 85-95% of the core's FMA peak on CosmoFlow's
 * layers; with the blocked layouts (nCdhw16c) they are no faster, and the
 * reorders into them would add a memory pass per call
 * (docs/cosmoflow.md "Kernels").  So the network keeps its activations
 * channels-last and dense within a sample, and this file hands the views to
 * oneDNN as they are.  A view of any other shape (a sub-box of a padded
 * buffer, a channels-first test view) is first copied into a dense
 * channels-last buffer: correct for every view, fast for the network's.
 *
 * Three shapes of work, one primitive kind each:
 *   FWD     y  = x (*) w                        forward, no padding
 *   FWD     dx = dy (*) flip(w)^T               the data gradient as a forward
 *           convolution of the halo-padded dy with the weights transposed
 *           ([ci][co]) and turned by 180 degrees: any band of planes is then
 *           a valid convolution (the overlap of halo exchange splits the
 *           volume into bands), and brgconv's forward beats the
 *           data-gradient kernel on these shapes
 *   BWDW    dw = sum x (*) dy                   backward-weights primitive;
 *           samples that are not one dense batch run one by one, the
 *           weights reorder adding into dw after the first
 * Weights go plain -> blocked (and back for BWDW) through a reorder per call,
 * in the context's workspace with oneDNN's scratchpad.
 *
 * bf16 mode (kf_ctx.bf16): the pass's activation inputs (x; dy) are rounded
 * to bf16 by a reorder into channels-last copies in the workspace (one more
 * memory pass each, half the bytes of the fp32 view), the weights by their
 * plain -> blocked reorder; the primitive accumulates in fp32 into the fp32
 * output view (y, dx) or the fp32 weight gradient. */
#include "benchmarks/train/kernels/fast/kern_fast_conv3d.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/train/kernels/fast/kf_dnnl.h"

enum { C3_FWD = 1, C3_BWDW = 2 };
enum { C3_NKEY = 9 };

typedef struct {
    int64_t key[C3_NKEY]; /* first (kf_prim_cache): kind, n, ci, co, k, out d, h, w, bf16 */
    dnnl_primitive_t conv, r_wei, r_wei_acc;
    dnnl_memory_t src, dst, wei_plain, wei_blk, scratch;
    /* bf16 mode: the fp32 views of the inputs and their reorders into the
     * bf16 copies src (and dst for BWDW); NULL in fp32 */
    dnnl_primitive_t r_src, r_dst;
    dnnl_memory_t src_in, dst_in;
    /* workspace: blocked weights, the scratchpad, the bf16 copies */
    size_t off_scr, off_src, off_dst, total;
} c3prim;

struct kf3_cache {
    kf_prim_cache prims;
    float *pack;           /* dense copies of views oneDNN cannot take as they are */
    size_t pack_elems;
};

static c3prim *prim_create(kf_ctx *c, const int64_t *key)
{
    int kind = (int)key[0];
    dnnl_dim_t n = key[1], ci = key[2], co = key[3], k = key[4];
    c3prim *e = XCALLOC(1, sizeof *e, "oneDNN 3D primitive");
    memcpy(e->key, key, sizeof e->key);
    dnnl_dims_t sd = {n, ci, key[5] + k - 1, key[6] + k - 1, key[7] + k - 1};
    dnnl_dims_t dd = {n, co, key[5], key[6], key[7]};
    dnnl_dims_t wd = {co, ci, k, k, k};
    int bf = key[8] != 0, bwdw = kind == C3_BWDW;
    dnnl_data_type_t in = bf ? dnnl_bf16 : dnnl_f32;
    dnnl_memory_desc_t src, dst, wany, wplain, src32, dst32;
    DNNL_CHECK(dnnl_memory_desc_init_by_tag(&src, 5, sd, in, dnnl_ndhwc));
    DNNL_CHECK(dnnl_memory_desc_init_by_tag(&dst, 5, dd, bwdw ? in : dnnl_f32, dnnl_ndhwc));
    DNNL_CHECK(dnnl_memory_desc_init_by_tag(&src32, 5, sd, dnnl_f32, dnnl_ndhwc));
    DNNL_CHECK(dnnl_memory_desc_init_by_tag(&dst32, 5, dd, dnnl_f32, dnnl_ndhwc));
    DNNL_CHECK(dnnl_memory_desc_init_by_tag(&wany, 5, wd, bwdw ? dnnl_f32 : in,
                                            dnnl_format_tag_any));
    DNNL_CHECK(dnnl_memory_desc_init_by_tag(&wplain, 5, wd, dnnl_f32, dnnl_oidhw));
    dnnl_dims_t stride = {1, 1, 1}, pad = {0, 0, 0};
    int pass = kind == C3_BWDW ? KF_DNNL_BWD_WEIGHTS : KF_DNNL_FWD;
    dnnl_primitive_desc_t fpd,
        pd = kf_dnnl_conv_pd(c, pass, &src, &wany, &dst, stride, pad, pad, &fpd);
    DNNL_CHECK(dnnl_primitive_create(&e->conv, pd));
    const dnnl_memory_desc_t *wblk = dnnl_primitive_desc_query_md(
        pd, kind == C3_BWDW ? dnnl_query_diff_weights_md : dnnl_query_weights_md, 0);
    const dnnl_memory_desc_t *scr = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    e->src = kf_dnnl_memory(c, &src);
    e->dst = kf_dnnl_memory(c, &dst);
    e->wei_plain = kf_dnnl_memory(c, &wplain);
    e->wei_blk = kf_dnnl_memory(c, wblk);
    e->scratch = kf_dnnl_memory(c, scr);
    if (kind == C3_BWDW) {
        e->r_wei = kf_dnnl_reorder(c, wblk, &wplain, 0);
        e->r_wei_acc = kf_dnnl_reorder(c, wblk, &wplain, 1);
    } else {
        e->r_wei = kf_dnnl_reorder(c, &wplain, wblk, 0);
    }
    e->off_scr = kf_dnnl_round64(dnnl_memory_desc_get_size(wblk));
    e->off_src = e->off_scr + kf_dnnl_round64(dnnl_memory_desc_get_size(scr));
    e->off_dst = e->off_src;
    if (bf) {
        e->src_in = kf_dnnl_memory(c, &src32);
        e->r_src = kf_dnnl_reorder(c, &src32, &src, 0);
        e->off_dst += kf_dnnl_round64(dnnl_memory_desc_get_size(&src));
    }
    e->total = e->off_dst;
    if (bf && bwdw) {
        e->dst_in = kf_dnnl_memory(c, &dst32);
        e->r_dst = kf_dnnl_reorder(c, &dst32, &dst, 0);
        e->total += kf_dnnl_round64(dnnl_memory_desc_get_size(&dst));
    }
    kf_dnnl_conv_pd_destroy(pd, fpd);
    return e;
}

static struct kf3_cache *cache_of(kf_ctx *c)
{
    if (!c->cache3) c->cache3 = XCALLOC(1, sizeof *c->cache3, "3D primitive cache");
    return c->cache3;
}

static c3prim *prim_get(kf_ctx *c, const int64_t *key)
{
    struct kf3_cache *q = cache_of(c);
    c3prim *e = kf_dnnl_cache_find(&q->prims, key, sizeof e->key);
    if (!e) {
        e = prim_create(c, key);
        kf_dnnl_cache_add(&q->prims, e, 32, "3D primitive");
    }
    return e;
}

void kf_conv3d_cache_free(kf_ctx *c)
{
    struct kf3_cache *q = c->cache3;
    if (!q) return;
    for (int i = 0; i < q->prims.n; i++) {
        c3prim *e = q->prims.e[i];
        dnnl_primitive_t prims[] = {e->conv, e->r_wei, e->r_wei_acc, e->r_src, e->r_dst};
        dnnl_memory_t mems[] = {e->src,     e->dst,     e->wei_plain, e->wei_blk,
                                e->scratch, e->src_in, e->dst_in};
        kf_dnnl_destroy(prims, sizeof prims / sizeof *prims, mems, sizeof mems / sizeof *mems);
        free(e);
    }
    kf_dnnl_cache_release(&q->prims);
    free(q->pack);
    free(q);
    c->cache3 = NULL;
}

/* Channels-last and dense within a sample: what the primitives take. */
static int cl_dense(const t3view *v)
{
    return v->sc == 1 && v->sw == v->c && v->sh == (int64_t)v->c * v->w &&
           v->sd == (int64_t)v->c * v->w * v->h;
}
static int64_t sample_elems(const t3view *v) { return (int64_t)v->c * v->d * v->h * v->w; }

/* A dense channels-last view of v's shape at p. */
static t3view dense_like(const t3view *v, float *p)
{
    t3view d = *v;
    d.p = p;
    d.sc = 1;
    d.sw = v->c;
    d.sh = (int64_t)v->c * v->w;
    d.sd = d.sh * v->h;
    d.sn = d.sd * v->d;
    return d;
}

/* One primitive call on dense views of `n` samples from sp/dp; wplain holds
 * the plain weights (FWD) or receives the weight gradient (BWDW; accumulate:
 * add to it). */
static void call(kf_ctx *c, int kind, int n, int ci, int co, int k, const t3view *out, float *sp,
                 float *dp, float *wplain, int accumulate)
{
    int64_t key[C3_NKEY] = {kind, n, ci, co, k, out->d, out->h, out->w, c->bf16};
    c3prim *e = prim_get(c, key);
    char *ws = kf_workspace(c, e->total);
    if (e->r_src) { /* bf16: the primitive reads the rounded copies */
        DNNL_CHECK(dnnl_memory_set_data_handle(e->src_in, sp));
        DNNL_CHECK(dnnl_memory_set_data_handle(e->src, ws + e->off_src));
        kf_dnnl_exec2(c, e->r_src, DNNL_ARG_FROM, e->src_in, DNNL_ARG_TO, e->src);
    } else {
        DNNL_CHECK(dnnl_memory_set_data_handle(e->src, sp));
    }
    if (e->r_dst) {
        DNNL_CHECK(dnnl_memory_set_data_handle(e->dst_in, dp));
        DNNL_CHECK(dnnl_memory_set_data_handle(e->dst, ws + e->off_dst));
        kf_dnnl_exec2(c, e->r_dst, DNNL_ARG_FROM, e->dst_in, DNNL_ARG_TO, e->dst);
    } else {
        DNNL_CHECK(dnnl_memory_set_data_handle(e->dst, dp));
    }
    DNNL_CHECK(dnnl_memory_set_data_handle(e->wei_plain, wplain));
    DNNL_CHECK(dnnl_memory_set_data_handle(e->wei_blk, ws));
    DNNL_CHECK(dnnl_memory_set_data_handle(e->scratch, ws + e->off_scr));
    if (kind == C3_BWDW) {
        dnnl_exec_arg_t a[4] = {{DNNL_ARG_SRC, e->src},
                                {DNNL_ARG_DIFF_DST, e->dst},
                                {DNNL_ARG_DIFF_WEIGHTS, e->wei_blk},
                                {DNNL_ARG_SCRATCHPAD, e->scratch}};
        DNNL_CHECK(dnnl_primitive_execute(e->conv, c->str, 4, a));
        kf_dnnl_exec2(c, accumulate ? e->r_wei_acc : e->r_wei, DNNL_ARG_FROM, e->wei_blk,
                      DNNL_ARG_TO, e->wei_plain);
    } else {
        kf_dnnl_exec2(c, e->r_wei, DNNL_ARG_FROM, e->wei_plain, DNNL_ARG_TO, e->wei_blk);
        dnnl_exec_arg_t a[4] = {{DNNL_ARG_SRC, e->src},
                                {DNNL_ARG_WEIGHTS, e->wei_blk},
                                {DNNL_ARG_DST, e->dst},
                                {DNNL_ARG_SCRATCHPAD, e->scratch}};
        DNNL_CHECK(dnnl_primitive_execute(e->conv, c->str, 4, a));
    }
    DNNL_CHECK(dnnl_stream_wait(c->str));
}

/* src -> dst (FWD: dst is written; BWDW: dst is dy, read, and wplain gets
 * dw).  `out` is the view whose extents are the convolution's output. */
static void run(kf_ctx *c, int kind, const t3view *src, const t3view *dst, const t3view *out,
                int ci, int co, int k, float *wplain)
{
    kf_threads(c);
    if (src->n == 0) {
        if (kind == C3_BWDW) memset(wplain, 0, (size_t)co * ci * k * k * k * sizeof(float));
        return;
    }
    t3view s = *src, d = *dst;
    float *pack_s = NULL, *pack_d = NULL;
    if (!cl_dense(src) || !cl_dense(dst)) {
        /* dense copies of both, in the cache's packing buffer */
        struct kf3_cache *q = cache_of(c);
        size_t ns = (size_t)t3view_elems(src), nd = (size_t)t3view_elems(dst);
        if (q->pack_elems < ns + nd) {
            free(q->pack);
            q->pack = aligned_alloc(64, kf_dnnl_round64((ns + nd) * sizeof(float)));
            CHECK(q->pack, "out of memory for %zu floats of packed 3D views", ns + nd);
            q->pack_elems = ns + nd;
        }
        pack_s = q->pack;
        pack_d = q->pack + ns;
        s = dense_like(src, pack_s);
        d = dense_like(dst, pack_d);
        kf3_copy(c, src, &s);
        if (kind == C3_BWDW) kf3_copy(c, dst, &d);
    }
    int batch = s.n == 1 || (s.sn == sample_elems(&s) && d.sn == sample_elems(&d));
    if (batch) {
        call(c, kind, s.n, ci, co, k, out, s.p, d.p, wplain, 0);
    } else {
        for (int i = 0; i < s.n; i++)
            call(c, kind, 1, ci, co, k, out, (float *)s.p + i * s.sn, (float *)d.p + i * d.sn,
                 wplain, i > 0);
    }
    if (pack_d && kind == C3_FWD) kf3_copy(c, &d, dst);
}

void kf_conv3d_fwd(void *ctx, const t3view *x, const void *w, int k, const t3view *y)
{
    run(ctx, C3_FWD, x, y, y, x->c, y->c, k, (float *)w);
}

void kf_conv3d_bwd_data(void *ctx, const t3view *dy, const void *wv, int k, const t3view *dx)
{
    kf_ctx *c = ctx;
    float *f = kf_flip_weights(c, wv, dy->c, dx->c, k * k * k);
    run(c, C3_FWD, dy, dx, dx, dy->c, dx->c, k, f);
}

void kf_conv3d_bwd_weights(void *ctx, const t3view *x, const t3view *dy, int k, void *dw)
{
    run(ctx, C3_BWDW, x, dy, dy, x->c, dy->c, k, dw);
}
