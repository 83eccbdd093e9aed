/* k x k convolutions (k > 1, stride 1, SAME padding) of the fast CPU path on
 * oneDNN's direct convolutions (jit:avx2 / jit:avx512 kernels); kern_fast.c
 * sends 1x1 kernels to kern_fast_gemm.c.
 *
 * Those kernels want blocked layouts (nChw8c, OIhw8i8o, ...), so each call
 * reorders the views into blocked copies in the workspace, runs the
 * primitive and reorders the result back.  The reorders are memory-bound:
 * about 10-15% of the time of the 5x5 convolutions of `small`, most of it on
 * the 8x8 and 16x16 layers, whose weights are large next to their images
 * (docs/stemdl-cpu-kernels.md).
 *
 * Four shapes of work, all with one geometry (input rows -> output rows):
 *   FWD      y  = conv(x, w)                 forward primitive, dst reorder "="
 *   BWDD     dx += conv_T(dy, w)             oneDNN's data-gradient primitive;
 *            the reorder back to the view carries a sum post-op ("+=")
 *   FWD_ACC  dx += conv(dy, flip(w))         the data gradient over row bands
 *            (below), as a forward convolution with w transposed ([ci][co])
 *            and rotated by 180 degrees: a band of a data gradient would need
 *            padding wider than the kernel, which oneDNN's backward-data
 *            kernels do not take; the forward ones take any band
 *   BWDW     dw  = sum x (*) dy              backward-weights primitive; the
 *            weights reorder writes dw ("=") for the first band and adds
 *            (sum post-op) for the others
 * On the `small` preset BWDD is 5-10% faster than FWD_ACC on one core and
 * more on two (docs/stemdl-cpu-kernels.md), so FWD_ACC serves only calls
 * that need bands.
 *
 * Bounded workspace: the blocked copies of a band must fit ws_limit.  When
 * the whole call does not, the samples are split into chunks and, if one
 * sample is still too big, the rows into bands: output rows [r0, r1) read
 * input rows [r0 - p, r1 + p) clipped to the image, and the clipped rows
 * become explicit zero padding of that band's primitive.  Each distinct
 * band shape gets its own primitive (first, middle, last band: at most four
 * per layer), created once and kept in the context's cache.
 *
 * bf16 mode (kf_ctx.bf16): the same reorders write the blocked copies of
 * the pass's inputs in bf16 (x, w; dy, w; x, dy), so rounding to bf16 costs
 * no extra memory pass, and the primitive accumulates in fp32 into an fp32
 * output (y, dx, dw), which reorders back as in fp32. */
#include "benchmarks/train/kernels/fast/kern_fast_conv.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/train/kernels/fast/kf_dnnl.h"

enum { KF_FWD = 1, KF_FWD_ACC = 2, KF_BWDW = 3, KF_BWDD = 4 };
enum { NKEY = 15 };

/* a cached convolution with its reorders; the key first (kf_prim_cache) */
typedef struct {
    int64_t key[NKEY];
    dnnl_primitive_t conv, r_src, r_dst, r_wei, r_wei_acc;
    dnnl_memory_t src_view, src_blk, dst_view, dst_blk, wei_plain, wei_blk, scratch;
    size_t off_src, off_dst, off_wei, off_scr, total; /* workspace layout */
} kf_prim;

/* key: kind, ns, ci, co, k, W, Hs, Hb, pt, pb, src sstride, src channel
 * stride, dst sstride, dst channel stride, bf16 */
static kf_prim *prim_create(kf_ctx *c, const int64_t *key)
{
    int kind = (int)key[0];
    dnnl_dim_t ns = key[1], ci = key[2], co = key[3], k = key[4], W = key[5], Hs = key[6],
               Hb = key[7];
    kf_prim *e = XCALLOC(1, sizeof *e, "oneDNN primitive");
    memcpy(e->key, key, sizeof e->key);

    /* views: the call's input (ci channels, Hs rows) and output (co, Hb) */
    dnnl_memory_desc_t src_view, dst_view, wei_plain;
    dnnl_dims_t sd = {ns, ci, Hs, W}, dd = {ns, co, Hb, W};
    dnnl_dims_t ss = {key[10], key[11], W, 1}, ds = {key[12], key[13], W, 1};
    DNNL_CHECK(dnnl_memory_desc_init_by_strides(&src_view, 4, sd, dnnl_f32, ss));
    DNNL_CHECK(dnnl_memory_desc_init_by_strides(&dst_view, 4, dd, dnnl_f32, ds));
    /* the convolution's own geometry: for BWDD its source is the output dx
     * and its destination the input dy, with the layer's weights [dy][dx] */
    int bwdd = kind == KF_BWDD;
    dnnl_dims_t cs = {ns, bwdd ? co : ci, bwdd ? Hb : Hs, W}, cd = {ns, bwdd ? ci : co, bwdd ? Hs : Hb, W};
    dnnl_dims_t wd = {bwdd ? ci : co, bwdd ? co : ci, k, k};
    /* bf16 mode: the pass's inputs are bf16 (the reorders into the blocked
     * copies round them), its output (y, dx or dw) stays fp32 */
    dnnl_data_type_t in = key[14] ? dnnl_bf16 : dnnl_f32;
    dnnl_data_type_t st = bwdd ? dnnl_f32 : in, wt = kind == KF_BWDW ? dnnl_f32 : in;
    dnnl_data_type_t dt = kind == KF_BWDW || bwdd ? in : dnnl_f32;
    dnnl_memory_desc_t any_src, any_wei, any_dst;
    DNNL_CHECK(dnnl_memory_desc_init_by_tag(&any_src, 4, cs, st, dnnl_format_tag_any));
    DNNL_CHECK(dnnl_memory_desc_init_by_tag(&any_dst, 4, cd, dt, dnnl_format_tag_any));
    DNNL_CHECK(dnnl_memory_desc_init_by_tag(&any_wei, 4, wd, wt, dnnl_format_tag_any));
    DNNL_CHECK(dnnl_memory_desc_init_by_tag(&wei_plain, 4, wd, dnnl_f32, dnnl_oihw));

    dnnl_dims_t stride = {1, 1}, pl = {key[8], k / 2}, pr = {key[9], k / 2};
    int pass = kind == KF_BWDW ? KF_DNNL_BWD_WEIGHTS : bwdd ? KF_DNNL_BWD_DATA : KF_DNNL_FWD;
    dnnl_primitive_desc_t fpd,
        pd = kf_dnnl_conv_pd(c, pass, &any_src, &any_wei, &any_dst, stride, pl, pr, &fpd);
    DNNL_CHECK(dnnl_primitive_create(&e->conv, pd));

    /* blocked copies: src_blk of the call's input, dst_blk of its output */
    const dnnl_memory_desc_t *src_blk = dnnl_primitive_desc_query_md(
        pd, bwdd ? dnnl_query_diff_dst_md : dnnl_query_src_md, 0);
    const dnnl_memory_desc_t *wei_blk = dnnl_primitive_desc_query_md(
        pd, kind == KF_BWDW ? dnnl_query_diff_weights_md : dnnl_query_weights_md, 0);
    const dnnl_memory_desc_t *dst_blk = dnnl_primitive_desc_query_md(
        pd, kind == KF_BWDW ? dnnl_query_diff_dst_md : bwdd ? dnnl_query_diff_src_md : dnnl_query_dst_md, 0);
    const dnnl_memory_desc_t *scr = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);

    e->src_view = kf_dnnl_memory(c, &src_view);
    e->dst_view = kf_dnnl_memory(c, &dst_view);
    e->wei_plain = kf_dnnl_memory(c, &wei_plain);
    e->src_blk = kf_dnnl_memory(c, src_blk);
    e->dst_blk = kf_dnnl_memory(c, dst_blk);
    e->wei_blk = kf_dnnl_memory(c, wei_blk);
    e->scratch = kf_dnnl_memory(c, scr);
    e->r_src = kf_dnnl_reorder(c, &src_view, src_blk, 0);
    if (kind == KF_BWDW) {
        e->r_dst = kf_dnnl_reorder(c, &dst_view, dst_blk, 0);
        e->r_wei = kf_dnnl_reorder(c, wei_blk, &wei_plain, 0);
        e->r_wei_acc = kf_dnnl_reorder(c, wei_blk, &wei_plain, 1);
    } else {
        e->r_dst = kf_dnnl_reorder(c, dst_blk, &dst_view, kind != KF_FWD);
        e->r_wei = kf_dnnl_reorder(c, &wei_plain, wei_blk, 0);
    }
    e->off_src = 0;
    e->off_dst = e->off_src + kf_dnnl_round64(dnnl_memory_desc_get_size(src_blk));
    e->off_wei = e->off_dst + kf_dnnl_round64(dnnl_memory_desc_get_size(dst_blk));
    e->off_scr = e->off_wei + kf_dnnl_round64(dnnl_memory_desc_get_size(wei_blk));
    e->total = e->off_scr + kf_dnnl_round64(dnnl_memory_desc_get_size(scr));

    kf_dnnl_conv_pd_destroy(pd, fpd);
    return e;
}

static kf_prim *prim_get(kf_ctx *c, const int64_t *key)
{
    kf_prim *e = kf_dnnl_cache_find(&c->cache, key, sizeof e->key);
    if (!e) {
        e = prim_create(c, key);
        kf_dnnl_cache_add(&c->cache, e, 64, "primitive");
    }
    return e;
}

void kf_conv_cache_free(kf_ctx *c)
{
    for (int i = 0; i < c->cache.n; i++) {
        kf_prim *e = c->cache.e[i];
        dnnl_primitive_t prims[] = {e->conv, e->r_src, e->r_dst, e->r_wei, e->r_wei_acc};
        dnnl_memory_t mems[] = {e->src_view, e->src_blk, e->dst_view, e->dst_blk,
                                e->wei_plain, e->wei_blk, e->scratch};
        kf_dnnl_destroy(prims, sizeof prims / sizeof *prims, mems, sizeof mems / sizeof *mems);
        free(e);
    }
    kf_dnnl_cache_release(&c->cache);
}

static size_t pad8(int64_t v) { return (size_t)((v + 7) / 8 * 8); }

/* Samples per chunk and rows per band so that the blocked copies of one band
 * of activations (source rows with their halo, destination rows) fit the
 * workspace limit.  Weights and oneDNN's scratchpad come on top (the
 * weights of one layer, a few tens of MB for gb2019). */
static void plan_bands(const kf_ctx *c, int n, int H, int W, int cs, int cd, int k, int *ns,
                       int *hb)
{
    size_t row_s = 4 * pad8(cs) * (size_t)W, row_d = 4 * pad8(cd) * (size_t)W;
    size_t one = row_s * (size_t)H + row_d * (size_t)H; /* one whole sample */
    size_t room = c->ws_limit;
    *ns = n;
    *hb = H;
    if ((size_t)n * one <= room) return;
    if (one <= room) {
        *ns = (int)(room / one);
        return;
    }
    *ns = 1;
    size_t halo = row_s * (size_t)(k - 1);
    size_t rows = room > halo ? (room - halo) / (row_s + row_d) : 1;
    *hb = rows < 1 ? 1 : (int)rows;
}

/* src -> dst through the band geometry; see the top of the file. */
static void run(kf_ctx *c, int kind, const tview *src, const tview *dst, float *wplain, int k)
{
    int n = src->n, H = dst->h, W = dst->w, p = k / 2;
    int ci = src->c, co = dst->c;
    int ns, hb;
    plan_bands(c, n, H, W, ci, co, k, &ns, &hb);
    int first = 1;
    for (int s0 = 0; s0 < n; s0 += ns) {
        int nn = n - s0 < ns ? n - s0 : ns;
        for (int r0 = 0; r0 < H; r0 += hb) {
            int r1 = r0 + hb < H ? r0 + hb : H;
            int in0 = r0 - p > 0 ? r0 - p : 0, in1 = r1 + p < H ? r1 + p : H;
            int64_t key[NKEY] = {kind,          nn, ci, co, k, W, in1 - in0, r1 - r0,
                                 in0 - (r0 - p), (r1 + p) - in1, src->sstride,
                                 (int64_t)src->h * src->w, dst->sstride,
                                 (int64_t)dst->h * dst->w, c->bf16};
            kf_prim *e = prim_get(c, key);
            char *ws = kf_workspace(c, e->total);
            float *sp = (float *)src->p + (int64_t)s0 * src->sstride + (int64_t)in0 * W;
            float *dp = (float *)dst->p + (int64_t)s0 * dst->sstride + (int64_t)r0 * W;
            DNNL_CHECK(dnnl_memory_set_data_handle(e->src_view, sp));
            DNNL_CHECK(dnnl_memory_set_data_handle(e->dst_view, dp));
            DNNL_CHECK(dnnl_memory_set_data_handle(e->wei_plain, wplain));
            DNNL_CHECK(dnnl_memory_set_data_handle(e->src_blk, ws + e->off_src));
            DNNL_CHECK(dnnl_memory_set_data_handle(e->dst_blk, ws + e->off_dst));
            DNNL_CHECK(dnnl_memory_set_data_handle(e->wei_blk, ws + e->off_wei));
            DNNL_CHECK(dnnl_memory_set_data_handle(e->scratch, ws + e->off_scr));
            kf_dnnl_exec2(c, e->r_src, DNNL_ARG_FROM, e->src_view, DNNL_ARG_TO, e->src_blk);
            if (kind == KF_BWDW) {
                kf_dnnl_exec2(c, e->r_dst, DNNL_ARG_FROM, e->dst_view, DNNL_ARG_TO, e->dst_blk);
                dnnl_exec_arg_t a[4] = {{DNNL_ARG_SRC, e->src_blk},
                                        {DNNL_ARG_DIFF_DST, e->dst_blk},
                                        {DNNL_ARG_DIFF_WEIGHTS, e->wei_blk},
                                        {DNNL_ARG_SCRATCHPAD, e->scratch}};
                DNNL_CHECK(dnnl_primitive_execute(e->conv, c->str, 4, a));
                kf_dnnl_exec2(c, first ? e->r_wei : e->r_wei_acc, DNNL_ARG_FROM, e->wei_blk,
                              DNNL_ARG_TO, e->wei_plain);
            } else {
                kf_dnnl_exec2(c, e->r_wei, DNNL_ARG_FROM, e->wei_plain, DNNL_ARG_TO, e->wei_blk);
                int bwdd = kind == KF_BWDD;
                dnnl_exec_arg_t a[4] = {{bwdd ? DNNL_ARG_DIFF_DST : DNNL_ARG_SRC, e->src_blk},
                                        {DNNL_ARG_WEIGHTS, e->wei_blk},
                                        {bwdd ? DNNL_ARG_DIFF_SRC : DNNL_ARG_DST, e->dst_blk},
                                        {DNNL_ARG_SCRATCHPAD, e->scratch}};
                DNNL_CHECK(dnnl_primitive_execute(e->conv, c->str, 4, a));
                kf_dnnl_exec2(c, e->r_dst, DNNL_ARG_FROM, e->dst_blk, DNNL_ARG_TO, e->dst_view);
            }
            first = 0;
        }
    }
    DNNL_CHECK(dnnl_stream_wait(c->str));
}

void kf_conv_fwd(void *ctx, const tview *x, const void *w, int k, const tview *y)
{
    kf_ctx *c = ctx;
    kf_threads(c);
    run(c, KF_FWD, x, y, (float *)w, k);
}

void kf_conv_bwd_data(void *ctx, const tview *dy, const void *wv, int k, const tview *dx)
{
    kf_ctx *c = ctx;
    kf_threads(c);
    const float *w = wv;
    int ns, hb;
    plan_bands(c, dx->n, dx->h, dx->w, dy->c, dx->c, k, &ns, &hb);
    if (hb == dx->h) { /* whole images: oneDNN's own data-gradient primitive */
        run(c, KF_BWDD, dy, dx, (float *)w, k);
        return;
    }
    /* row bands: a forward convolution of dy with flip(w), kept in the
     * temporary buffer of the context (run() uses the workspace) */
    float *f = kf_flip_weights(c, w, dy->c, dx->c, k * k);
    run(c, KF_FWD_ACC, dy, dx, f, k);
}

void kf_conv_bwd_weights(void *ctx, const tview *x, const tview *dy, int k, void *dw)
{
    kf_ctx *c = ctx;
    kf_threads(c);
    if (x->n == 0) {
        memset(dw, 0, (size_t)x->c * dy->c * k * k * sizeof(float));
        return;
    }
    run(c, KF_BWDW, x, dy, dw, k);
}
