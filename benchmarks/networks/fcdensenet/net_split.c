/* net_split: what a spatial split along H adds to the FC-DenseNet's
 * buffers and step (net_impl.h, fd_split.h, docs/spatial.md). */
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/count.h"
#include "benchmarks/networks/fcdensenet/fd_split.h"
#include "benchmarks/networks/fcdensenet/net_impl.h"

/* The padded twins of r and dr of a split's dense block. */
static void buf_alloc_pad(alloc_t *a, nbuf *b)
{
    b->hp = b->h + 2 * a->n->ph;
    b->wp = b->w + 2 * a->n->pw;
    size_t bytes = (size_t)COUNT_PROD("a buffer's bytes", a->n->batch, b->c, b->hp, b->wp,
                                      (int64_t)a->n->ops->act_bytes);
    b->rp = net_grab(a, bytes);
    b->drp = net_grab(a, bytes);
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Elements per sample of the widest halo region of a dense block split:
 * rows over the padded width, or columns over the own rows. */
static int64_t split_face(const net_t *n)
{
    const nbuf *blocks[2 * CFG_MAX_LEVELS + 1];
    int nb = 0;
    for (int i = 0; i < n->plan->cfg.levels; i++) blocks[nb++] = &n->down[i], blocks[nb++] = &n->up[i];
    blocks[nb++] = &n->bott;
    int64_t face = 0;
    for (int i = 0; i < nb; i++)
        if (blocks[i]->sp)
            face = max64(face, (int64_t)blocks[i]->c *
                                   max64((int64_t)n->ph * blocks[i]->wp, (int64_t)n->pw * blocks[i]->h));
    return face;
}

/* The plan's shuffle buffers (tiles at level K) and staging. */
static void alloc_shuffle(alloc_t *a)
{
    net_t *n = a->n;
    const plan_t *p = n->plan;
    const cfg_t *c = &p->cfg;
    int L = c->levels, K = n->K;
    if (K > L) return;
    int h = p->level_h[K] / n->Sh, w = p->level_w[K] / n->Sw;
    int out = (K == L ? c->bottleneck : c->up[L - 1 - K]) * c->growth;
    net_buf_alloc(a, &n->shin, c->td[K - 1], h, w, 1 | 4);
    net_buf_alloc(a, &n->shup, out, h, w, 1 | 4);
    int64_t widest = c->td[K - 1] > out ? c->td[K - 1] : out;
    int64_t elems = COUNT_PROD("shuffle elements", n->batch, widest, h, w);
    int64_t t;
    /* 2 staging buffers in the set's memory (fd_shuffle.c) */
    CHECK(count_add((int64_t)n->bytes, 2 * elems * (int64_t)n->ops->act_bytes, &t) == 0,
          "the network's bytes overflow");
    n->bytes = (size_t)t;
}

static int64_t shuffle_elems(const net_t *n)
{
    const nbuf *a = &n->shin, *b = &n->shup;
    return (int64_t)n->batch * (a->c > b->c ? a->c : b->c) * a->h * a->w;
}

/* A split's extra buffers: padded twins, conv_init's padded input, the
 * scratch of one k x k conv's padded output, the loss scale. */
void nsp_alloc(alloc_t *a)
{
    net_t *n = a->n;
    const plan_t *p = n->plan;
    const cfg_t *c = &p->cfg;
    int L = c->levels, g = c->growth;
    int64_t esz = (int64_t)n->ops->act_bytes, scratch = 0, face = 0;
    for (int i = 0; i < L; i++)
        if (n->down[i].sp) buf_alloc_pad(a, &n->down[i]);
    if (n->bott.sp) buf_alloc_pad(a, &n->bott);
    for (int j = 0; j < L; j++)
        if (n->up[j].sp) buf_alloc_pad(a, &n->up[j]);
    int h0 = n->in.h, w0 = n->in.w, hp0 = h0 + 2 * n->ph0, wp0 = w0 + 2 * n->pw0;
    n->inp = net_grab(a, (size_t)COUNT_PROD("a buffer's bytes", n->batch, c->c_in, hp0, wp0, esz));
    scratch = (int64_t)c->f0 * hp0 * wp0;
    face = (int64_t)c->c_in * max64((int64_t)n->ph0 * wp0, (int64_t)n->pw0 * h0);
    for (int l = 0; l <= L && l < n->K; l++) {
        int64_t rows = p->level_h[l] / n->Sh + 2 * n->ph, w = p->level_w[l] / n->Sw + 2 * n->pw;
        scratch = max64(scratch, g * rows * w);
    }
    face = max64(face, split_face(n));
    size_t sb = (size_t)COUNT_PROD("scratch bytes", n->batch, scratch, esz);
    n->yp = net_grab(a, sb);
    n->dyp = net_grab(a, sb);
    /* the ReLU scratch: a block's input maps or one layer's new maps */
    int64_t rsz = 0;
    for (int i = 0; i < L; i++) {
        const nbuf *d = &n->down[i], *u = &n->up[i];
        int64_t cd = p->down_c0[i] > g ? p->down_c0[i] : g, cu = p->up_c0[i] > g ? p->up_c0[i] : g;
        if (d->sp) rsz = max64(rsz, cd * d->h * d->w);
        if (u->sp) rsz = max64(rsz, cu * u->h * u->w);
    }
    int64_t cb = p->bott_c0 > g ? p->bott_c0 : g;
    if (n->bott.sp) rsz = max64(rsz, cb * n->bott.h * n->bott.w);
    size_t rb = (size_t)COUNT_PROD("scratch bytes", n->batch, rsz, esz);
    n->rs = net_grab(a, rb);
    n->drs = net_grab(a, rb);
    net_buf_alloc(a, &n->lossg, c->c_out, h0, w0, 1);
    int64_t cc = (int64_t)c->c_out * c->c_out;
    n->scale_master = net_grab(a, (size_t)cc * sizeof(float));
    n->scale_w = esz == (int64_t)sizeof(float) ? n->scale_master : net_grab(a, (size_t)(cc * esz));
    /* the exchange's staging: 2 x 2 regions of the widest halo (sp_halo.c) */
    int64_t fe = COUNT_PROD("halo elements", n->batch, face);
    int64_t t;
    CHECK(count_add((int64_t)n->bytes, 4 * fe * esz, &t) == 0, "the network's bytes overflow");
    n->bytes = (size_t)t;
    alloc_shuffle(a);
}

/* The split of a plan: S, the halos, this rank's tile. */
void nsp_setup(net_t *n)
{
    const cfg_t *c = &n->plan->cfg;
    int s[2];
    if (cfg_parse_spatial(c->spatial, s)) s[0] = s[1] = 1;
    n->Sh = s[0], n->Sw = s[1];
    n->S = n->Sh * n->Sw;
    const struct sp_group *g = n->plan->group;
    n->srank = g ? g->rank : 0;
    n->srh = g ? g->rh : 0;
    n->srw = g ? g->rw : 0;
    n->hk = c->k / 2;
    n->hk0 = c->k0 / 2;
    /* an axis that is not split needs no halo: the convolution's own SAME
     * padding is the sample's edge */
    n->ph = n->Sh > 1 ? n->hk : 0;
    n->pw = n->Sw > 1 ? n->hk : 0;
    n->ph0 = n->Sh > 1 ? n->hk0 : 0;
    n->pw0 = n->Sw > 1 ? n->hk0 : 0;
    n->K = fd_plan_level(c);
}

/* The split's state beyond buffers: the loss scale's weights, the host
 * tile, the exchange.  0, or -1 with err. */
int nsp_open(net_t *n, char *err, size_t errlen)
{
    const cfg_t *c = &n->plan->cfg;
    int64_t wp0 = n->in.w + 2 * n->pw0;
    int64_t face = max64((int64_t)c->c_in * max64(n->ph0 * wp0, (int64_t)n->pw0 * n->in.h),
                         split_face(n));
    if (sp_xchg_init(&n->hx, n->plan->group, n->ops, n->ctx, n->dry, (int64_t)n->batch * face, err,
                     errlen))
        return -1;
    n->hx_open = 1;
    if (n->K <= c->levels) {
        if (fd_shuf_init(&n->sh, n->plan->group, n->Sh, n->Sw, n->ops, n->ctx, n->dry,
                         shuffle_elems(n), err, errlen))
            return -1;
        n->sh_open = 1;
    }
    if (n->dry) return 0;
    int64_t cc = (int64_t)c->c_out * c->c_out;
    float *diag = XCALLOC((size_t)cc, sizeof *diag, "loss scale");
    /* 1/S: exact for powers of two, so the split's gradients are the
     * unsplit run's up to the order of the sums */
    for (int i = 0; i < c->c_out; i++) diag[(int64_t)i * c->c_out + i] = (float)(1.0 / n->S);
    n->ops->h2d(n->ctx, n->scale_master, diag, (size_t)cc * sizeof(float));
    n->ops->cast_params(n->ctx, n->scale_master, n->scale_w, cc);
    free(diag);
    int cmax = c->c_in > c->c_out ? c->c_in : c->c_out;
    n->host_tile = XMALLOC((size_t)COUNT_PROD("tile floats", n->batch, cmax, n->in.h, n->in.w,
                                              (int64_t)sizeof(float)),
                           "a batch's tile");
    return 0;
}

/* ---- the split's padded views (fd_split.h) ---------------------------------- */

/* Channels [ch0, ch0 + nch) of a padded twin, every row. */
tview nsp_pview(const net_t *n, const nbuf *b, void *base, int ch0, int nch)
{
    tview t = {NULL, n->batch, nch, b->hp, b->wp, (int64_t)b->c * b->hp * b->wp};
    if (base) t.p = (char *)base + (size_t)ch0 * b->hp * b->wp * n->ops->act_bytes;
    return t;
}

/* Rows [r0, r0 + nr), columns [c0, c0 + ncol) of channels [ch0, ch0 + nch)
 * of a [batch][C][hp][wp] buffer. */
t3view nsp_pbox(const net_t *n, void *base, int C, int hp, int wp, int ch0, int nch, int r0, int nr,
                int c0, int ncol)
{
    int64_t plane = (int64_t)hp * wp;
    t3view v = {NULL, n->batch, nch, 1, nr, ncol, (int64_t)C * plane, plane, plane, wp, 1};
    if (base)
        v.p = (char *)base + (ch0 * plane + (int64_t)r0 * wp + c0) * (int64_t)n->ops->act_bytes;
    return v;
}

t3view nsp_as3(const tview *t)
{
    int64_t plane = (int64_t)t->h * t->w;
    return (t3view){t->p, t->n, t->c, 1, t->h, t->w, t->sstride, plane, plane, t->w, 1};
}

/* nch maps of a block's tile, dense in a scratch buffer. */
tview nsp_sview(const net_t *n, const nbuf *b, void *base, int nch)
{
    return (tview){base, n->batch, nch, b->h, b->w, (int64_t)nch * b->h * b->w};
}

/* ReLU'd maps (src, own rows) into channels [ch0, ch0 + nch) of the padded
 * twin, then the halos. */
void nsp_pad_fill(net_t *n, kc_t *kc, const char *name, nbuf *b, const tview *src, int ch0,
                     int nch)
{
    t3view s = nsp_as3(src),
           d = nsp_pbox(n, b->rp, b->c, b->hp, b->wp, ch0, nch, n->ph, b->h, n->pw, b->w);
    kc_copy3d(kc, "halo_pad", name, &s, &d);
    sp_pad P = {b->rp, n->batch, b->c, b->hp, b->wp, ch0, nch, n->ph, n->pw};
    sp_halo_fill(&n->hx, kc, name, &P);
}

/* The neighbours' parts of the padded data gradient added in, then the own
 * rows into the scratch view dst (what the ReLU's backward reads). */
void nsp_fold_dr(net_t *n, kc_t *kc, const char *name, nbuf *b, int ch0, int nch,
                    const tview *dst)
{
    sp_pad P = {b->drp, n->batch, b->c, b->hp, b->wp, ch0, nch, n->ph, n->pw};
    sp_halo_fold(&n->hx, kc, name, &P);
    t3view s = nsp_pbox(n, b->drp, b->c, b->hp, b->wp, ch0, nch, n->ph, b->h, n->pw, b->w),
           d = nsp_as3(dst);
    kc_copy3d(kc, "halo_crop", name, &s, &d);
}

/* y (own rows) = a k x k conv of the padded input xp: SAME over the padded
 * rows, whose own rows are exact, then those rows copied out. */
void nsp_conv_fwd(net_t *n, kc_t *kc, const char *name, const tview *xp, const void *w,
                           int k, const tview *y)
{
    int ph = n->Sh > 1 ? k / 2 : 0, pw = n->Sw > 1 ? k / 2 : 0;
    int hp = y->h + 2 * ph, wp = y->w + 2 * pw;
    tview yp = {n->yp, n->batch, y->c, hp, wp, (int64_t)y->c * hp * wp};
    kc_conv_fwd(kc, name, xp, w, k, &yp);
    t3view s = nsp_pbox(n, n->yp, y->c, hp, wp, 0, y->c, ph, y->h, pw, y->w), d = nsp_as3(y);
    kc_copy3d(kc, "halo_crop", name, &s, &d);
}

/* dy (own rows) padded with zero rows: with it, the weight gradient over
 * the padded input sums exactly this tile's outputs, and the data gradient
 * lands on the padded rows (halo rows: the neighbours' parts, fold_dr). */
tview nsp_pad_dy(net_t *n, kc_t *kc, const char *name, const tview *dy, int h)
{
    int ph = n->Sh > 1 ? h : 0, pw = n->Sw > 1 ? h : 0;
    int hp = dy->h + 2 * ph, wp = dy->w + 2 * pw;
    tview dp = {n->dyp, n->batch, dy->c, hp, wp, (int64_t)dy->c * hp * wp};
    kc_zero(kc, name, &dp);
    t3view s = nsp_as3(dy), d = nsp_pbox(n, n->dyp, dy->c, hp, wp, 0, dy->c, ph, dy->h, pw, dy->w);
    kc_copy3d(kc, "halo_pad", name, &s, &d);
    return dp;
}

void nsp_release(net_t *n)
{
    if (n->hx_open) sp_xchg_free(&n->hx);
    n->hx_open = 0;
    if (n->sh_open) fd_shuf_free(&n->sh);
    n->sh_open = 0;
    free(n->host_tile);
    n->host_tile = NULL;
    if (n->dry) return;
    void *bufs[] = {n->inp, n->yp, n->dyp, n->rs, n->drs, n->scale_master,
                    n->scale_w != n->scale_master ? n->scale_w : NULL, n->lossg.x,
                    n->shin.x, n->shin.dx, n->shup.x, n->shup.dx};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        if (bufs[i]) n->ops->release(n->ctx, bufs[i]);
    nbuf *blocks[2 * CFG_MAX_LEVELS + 1];
    int nb = 0;
    for (int i = 0; i < n->plan->cfg.levels; i++) blocks[nb++] = &n->down[i], blocks[nb++] = &n->up[i];
    blocks[nb++] = &n->bott;
    for (int i = 0; i < nb; i++) {
        if (blocks[i]->rp) n->ops->release(n->ctx, blocks[i]->rp);
        if (blocks[i]->drp) n->ops->release(n->ctx, blocks[i]->drp);
    }
}

void nsp_load(net_t *n, const float *input, const float *target)
{
    const cfg_t *c = &n->plan->cfg;
    tview in = net_view(n, &n->in, n->in.x, 0, c->c_in);
    tview tg = net_view(n, &n->target, n->target.x, 0, c->c_out);
    /* this rank's rows and columns of every plane of the whole samples */
    const float *src[2] = {input, target};
    const tview *dst[2] = {&in, &tg};
    int th = n->in.h, tw = n->in.w;
    int64_t W = (int64_t)tw * n->Sw, plane = (int64_t)th * n->Sh * W;
    int64_t at = (int64_t)n->srh * th * W + (int64_t)n->srw * tw;
    for (int a = 0; a < 2; a++) {
        int64_t planes = (int64_t)n->batch * dst[a]->c, tile = (int64_t)th * tw;
        for (int64_t q = 0; q < planes; q++)
            for (int r = 0; r < th; r++)
                memcpy(n->host_tile + q * tile + (int64_t)r * tw, src[a] + q * plane + at + r * W,
                       (size_t)tw * sizeof(float));
        n->ops->put_f32(n->ctx, dst[a], n->host_tile);
    }
}

/* conv_init's input: padded, its halos filled, then the SAME conv. */
void nsp_init_fwd(net_t *n, kc_t *kc, const tview *in, const void *w, const tview *y0)
{
    const cfg_t *c = &n->plan->cfg;
    int hp = n->in.h + 2 * n->ph0, wp = n->in.w + 2 * n->pw0;
    t3view s = nsp_as3(in),
           d = nsp_pbox(n, n->inp, c->c_in, hp, wp, 0, c->c_in, n->ph0, n->in.h, n->pw0, n->in.w);
    kc_copy3d(kc, "halo_pad", "conv_init", &s, &d);
    sp_pad P = {n->inp, n->batch, c->c_in, hp, wp, 0, c->c_in, n->ph0, n->pw0};
    sp_halo_fill(&n->hx, kc, "conv_init", &P);
    tview inp = {n->inp, n->batch, c->c_in, hp, wp, (int64_t)c->c_in * hp * wp};
    nsp_conv_fwd(n, kc, "conv_init", &inp, w, c->k0, y0);
}

/* conv_init's weight gradient over the padded input (no data gradient). */
void nsp_init_bwd(net_t *n, kc_t *kc, const tview *dpre, float *gw)
{
    const cfg_t *c = &n->plan->cfg;
    int hp = n->in.h + 2 * n->ph0, wp = n->in.w + 2 * n->pw0;
    tview inp = {n->inp, n->batch, c->c_in, hp, wp, (int64_t)c->c_in * hp * wp};
    tview dp = nsp_pad_dy(n, kc, "conv_init", dpre, n->hk0);
    kc_conv_bwd_weights(kc, "conv_init", &inp, &dp, c->k0, gw);
}
