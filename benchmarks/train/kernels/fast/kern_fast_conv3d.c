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
 * in the context's workspace with oneDNN's scratchpad. */
#include "benchmarks/train/kernels/fast/kern_fast_conv3d.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"

enum { C3_FWD = 1, C3_BWDW = 2 };
enum { C3_NKEY = 8 };

typedef struct {
    int64_t key[C3_NKEY]; /* kind, n, ci, co, k, out d, h, w */
    dnnl_primitive_t conv, r_wei, r_wei_acc;
    dnnl_memory_t src, dst, wei_plain, wei_blk, scratch;
    size_t off_scr, total; /* workspace: blocked weights, then the scratchpad */
} c3prim;

struct kf3_cache {
    c3prim **p;
    int n, cap;
    float *pack;           /* dense copies of views oneDNN cannot take as they are */
    size_t pack_elems;
};

static size_t up64(size_t b) { return (b + 63) / 64 * 64; }

static dnnl_memory_t mem_of(kf_ctx *c, const dnnl_memory_desc_t *md)
{
    dnnl_memory_t m;
    DNNL_CHECK(dnnl_memory_create(&m, md, c->eng, DNNL_MEMORY_NONE));
    return m;
}

static dnnl_primitive_t reorder_of(kf_ctx *c, const dnnl_memory_desc_t *from,
                                   const dnnl_memory_desc_t *to, int accumulate)
{
    dnnl_primitive_attr_t attr;
    DNNL_CHECK(dnnl_primitive_attr_create(&attr));
    if (accumulate) {
        dnnl_post_ops_t po;
        DNNL_CHECK(dnnl_post_ops_create(&po));
        DNNL_CHECK(dnnl_post_ops_append_sum(po, 1.0f));
        DNNL_CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
        DNNL_CHECK(dnnl_post_ops_destroy(po));
    }
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t p;
    DNNL_CHECK(dnnl_reorder_primitive_desc_create(&pd, from, c->eng, to, c->eng, attr));
    DNNL_CHECK(dnnl_primitive_create(&p, pd));
    DNNL_CHECK(dnnl_primitive_desc_destroy(pd));
    DNNL_CHECK(dnnl_primitive_attr_destroy(attr));
    return p;
}

static c3prim *prim_create(kf_ctx *c, const int64_t *key)
{
    int kind = (int)key[0];
    dnnl_dim_t n = key[1], ci = key[2], co = key[3], k = key[4];
    c3prim *e = XCALLOC(1, sizeof *e, "oneDNN 3D primitive");
    memcpy(e->key, key, sizeof e->key);
    dnnl_dims_t sd = {n, ci, key[5] + k - 1, key[6] + k - 1, key[7] + k - 1};
    dnnl_dims_t dd = {n, co, key[5], key[6], key[7]};
    dnnl_dims_t wd = {co, ci, k, k, k};
    dnnl_memory_desc_t src, dst, wany, wplain;
    DNNL_CHECK(dnnl_memory_desc_init_by_tag(&src, 5, sd, dnnl_f32, dnnl_ndhwc));
    DNNL_CHECK(dnnl_memory_desc_init_by_tag(&dst, 5, dd, dnnl_f32, dnnl_ndhwc));
    DNNL_CHECK(dnnl_memory_desc_init_by_tag(&wany, 5, wd, dnnl_f32, dnnl_format_tag_any));
    DNNL_CHECK(dnnl_memory_desc_init_by_tag(&wplain, 5, wd, dnnl_f32, dnnl_oidhw));
    dnnl_dims_t stride = {1, 1, 1}, pad = {0, 0, 0};
    dnnl_primitive_attr_t attr;
    DNNL_CHECK(dnnl_primitive_attr_create(&attr));
    DNNL_CHECK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
    dnnl_convolution_desc_t fd, bd;
    dnnl_primitive_desc_t fpd, pd;
    DNNL_CHECK(dnnl_convolution_forward_desc_init(&fd, dnnl_forward_training,
                                                  dnnl_convolution_direct, &src, &wany, NULL,
                                                  &dst, stride, pad, pad));
    DNNL_CHECK(dnnl_primitive_desc_create(&fpd, &fd, attr, c->eng, NULL));
    pd = fpd;
    if (kind == C3_BWDW) {
        DNNL_CHECK(dnnl_convolution_backward_weights_desc_init(
            &bd, dnnl_convolution_direct, &src, &wany, NULL, &dst, stride, pad, pad));
        DNNL_CHECK(dnnl_primitive_desc_create(&pd, &bd, attr, c->eng, fpd));
    }
    DNNL_CHECK(dnnl_primitive_create(&e->conv, pd));
    const dnnl_memory_desc_t *wblk = dnnl_primitive_desc_query_md(
        pd, kind == C3_BWDW ? dnnl_query_diff_weights_md : dnnl_query_weights_md, 0);
    const dnnl_memory_desc_t *scr = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    e->src = mem_of(c, &src);
    e->dst = mem_of(c, &dst);
    e->wei_plain = mem_of(c, &wplain);
    e->wei_blk = mem_of(c, wblk);
    e->scratch = mem_of(c, scr);
    if (kind == C3_BWDW) {
        e->r_wei = reorder_of(c, wblk, &wplain, 0);
        e->r_wei_acc = reorder_of(c, wblk, &wplain, 1);
    } else {
        e->r_wei = reorder_of(c, &wplain, wblk, 0);
    }
    e->off_scr = up64(dnnl_memory_desc_get_size(wblk));
    e->total = e->off_scr + up64(dnnl_memory_desc_get_size(scr));
    if (pd != fpd) DNNL_CHECK(dnnl_primitive_desc_destroy(pd));
    DNNL_CHECK(dnnl_primitive_desc_destroy(fpd));
    DNNL_CHECK(dnnl_primitive_attr_destroy(attr));
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
    for (int i = q->n; i-- > 0;)
        if (!memcmp(q->p[i]->key, key, sizeof q->p[i]->key)) return q->p[i];
    if (q->n == q->cap) {
        int cap = q->cap ? 2 * q->cap : 32;
        c3prim **p = realloc(q->p, (size_t)cap * sizeof *p);
        CHECK(p, "out of memory growing the 3D primitive cache to %d entries", cap);
        q->p = p;
        q->cap = cap;
    }
    c3prim *e = prim_create(c, key);
    q->p[q->n++] = e;
    return e;
}

void kf_conv3d_cache_free(kf_ctx *c)
{
    struct kf3_cache *q = c->cache3;
    if (!q) return;
    for (int i = 0; i < q->n; i++) {
        c3prim *e = q->p[i];
        dnnl_primitive_t prims[] = {e->conv, e->r_wei, e->r_wei_acc};
        for (size_t j = 0; j < sizeof prims / sizeof *prims; j++)
            if (prims[j]) DNNL_CHECK(dnnl_primitive_destroy(prims[j]));
        dnnl_memory_t mems[] = {e->src, e->dst, e->wei_plain, e->wei_blk, e->scratch};
        for (size_t j = 0; j < sizeof mems / sizeof *mems; j++)
            DNNL_CHECK(dnnl_memory_destroy(mems[j]));
        free(e);
    }
    free(q->p);
    free(q->pack);
    free(q);
    c->cache3 = NULL;
}

static void exec2(kf_ctx *c, dnnl_primitive_t p, int a0, dnnl_memory_t m0, int a1, dnnl_memory_t m1)
{
    dnnl_exec_arg_t args[2] = {{a0, m0}, {a1, m1}};
    DNNL_CHECK(dnnl_primitive_execute(p, c->str, 2, args));
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
    int64_t key[C3_NKEY] = {kind, n, ci, co, k, out->d, out->h, out->w};
    c3prim *e = prim_get(c, key);
    char *ws = kf_workspace(c, e->total);
    DNNL_CHECK(dnnl_memory_set_data_handle(e->src, sp));
    DNNL_CHECK(dnnl_memory_set_data_handle(e->dst, dp));
    DNNL_CHECK(dnnl_memory_set_data_handle(e->wei_plain, wplain));
    DNNL_CHECK(dnnl_memory_set_data_handle(e->wei_blk, ws));
    DNNL_CHECK(dnnl_memory_set_data_handle(e->scratch, ws + e->off_scr));
    if (kind == C3_BWDW) {
        dnnl_exec_arg_t a[4] = {{DNNL_ARG_SRC, e->src},
                                {DNNL_ARG_DIFF_DST, e->dst},
                                {DNNL_ARG_DIFF_WEIGHTS, e->wei_blk},
                                {DNNL_ARG_SCRATCHPAD, e->scratch}};
        DNNL_CHECK(dnnl_primitive_execute(e->conv, c->str, 4, a));
        exec2(c, accumulate ? e->r_wei_acc : e->r_wei, DNNL_ARG_FROM, e->wei_blk, DNNL_ARG_TO,
              e->wei_plain);
    } else {
        exec2(c, e->r_wei, DNNL_ARG_FROM, e->wei_plain, DNNL_ARG_TO, e->wei_blk);
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
            q->pack = aligned_alloc(64, up64((ns + nd) * sizeof(float)));
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
    /* flip(w)[ci][co][t] = w[co][ci][k^3 - 1 - t], kept in the context */
    const float *w = wv;
    int ci_n = dx->c, co_n = dy->c, kk = k * k * k;
    size_t need = (size_t)ci_n * co_n * kk;
    if (c->wtmp_n < need) {
        free(c->wtmp);
        c->wtmp = XMALLOC(need * sizeof(float), "flipped weights");
        c->wtmp_n = need;
    }
    float *f = c->wtmp;
    for (int co = 0; co < co_n; co++)
        for (int ci = 0; ci < ci_n; ci++) {
            const float *s = w + ((size_t)co * ci_n + ci) * kk;
            float *d = f + ((size_t)ci * co_n + co) * kk;
            for (int t = 0; t < kk; t++) d[kk - 1 - t] = s[t];
        }
    run(c, C3_FWD, dy, dx, dx, co_n, ci_n, k, f);
}

void kf_conv3d_bwd_weights(void *ctx, const t3view *x, const t3view *dy, int k, void *dw)
{
    run(ctx, C3_BWDW, x, dy, dy, x->c, dy->c, k, dw);
}
