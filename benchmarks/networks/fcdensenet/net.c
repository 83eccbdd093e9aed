#include "benchmarks/networks/fcdensenet/net.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/count.h"
#include "benchmarks/common/rng.h"
#include "benchmarks/networks/fcdensenet/fd_halo.h"
#include "benchmarks/networks/fcdensenet/fd_split.h"

/* One activation buffer of the network: values, their ReLU twin (dense
 * blocks only) and the gradients of both.  h is this rank's rows (the tile
 * of a spatial split, fd_split.h); in a split, the dense blocks keep r and
 * dr as halo-padded twins rp and drp instead (hp = h + 2 halo rows), which
 * their k x k convolutions read and write. */
typedef struct {
    void *x, *r, *dx, *dr;
    void *rp, *drp;
    int c, h, w, hp;
} nbuf;

struct net {
    const plan_t *plan;
    const kern_ops *ops;
    void *ctx;
    int batch, dry;
    size_t bytes;
    nbuf in, out, target, dinit;
    nbuf down[CFG_MAX_LEVELS], tdpre[CFG_MAX_LEVELS], up[CFG_MAX_LEVELS], bott;
    float *params;         /* fp32 master weights */
    void *wc;              /* weights in the compute type (== params when that is fp32) */
    float *grads;          /* fp32 gradients, same layout as params */
    /* spatial split (fd_split.h, docs/spatial.md); S == 1: none, nothing below */
    int S, srank;          /* ranks per sample along H; this rank's tile (0: top) */
    int hk, hk0;           /* halo rows of the dense layers' and of conv_init's kernel */
    void *inp;             /* conv_init's padded input [batch][c_in][h + 2 hk0][w] */
    void *yp, *dyp;        /* padded scratch: a k x k conv's output, its output gradient */
    void *rs, *drs;        /* unpadded scratch of a block's ReLU maps and their gradient on
                              their way into and out of the padded twins (which replace a
                              split block's r and dr) */
    nbuf lossg;            /* the tile's L1 gradient before the 1/S of the sample's mean */
    float *scale_master;   /* a 1x1 conv of c_out maps by diag(1/S): that scale */
    void *scale_w;
    float *host_tile;      /* the tile's rows of a batch, cropped on the host */
    fd_xchg hx;
    int hx_open;
};

/* ---- allocation ------------------------------------------------------------ */

typedef struct {
    net_t *n;
    int failed;
    size_t failed_bytes;
} alloc_t;

static void *grab(alloc_t *a, size_t bytes)
{
    int64_t total;
    CHECK(count_add((int64_t)a->n->bytes, (int64_t)bytes, &total) == 0,
          "the network's bytes overflow 64 bits: cfg_validate should have refused it");
    a->n->bytes = (size_t)total;
    if (a->n->dry || a->failed) return NULL;
    void *p = a->n->ops->alloc(a->n->ctx, bytes);
    if (!p) {
        a->failed = 1;
        a->failed_bytes = bytes;
    }
    return p;
}

/* which: bit 1 = x, 2 = r, 4 = dx, 8 = dr */
static void buf_alloc(alloc_t *a, nbuf *b, int c, int h, int w, int which)
{
    size_t bytes = (size_t)COUNT_PROD("a buffer's bytes", a->n->batch, c, h, w,
                                      (int64_t)a->n->ops->act_bytes);
    b->c = c, b->h = h, b->w = w;
    if (which & 1) b->x = grab(a, bytes);
    if (which & 2) b->r = grab(a, bytes);
    if (which & 4) b->dx = grab(a, bytes);
    if (which & 8) b->dr = grab(a, bytes);
    b->hp = h;
}

/* The padded twins of r and dr of a split's dense block. */
static void buf_alloc_pad(alloc_t *a, nbuf *b, int halo)
{
    b->hp = b->h + 2 * halo;
    size_t bytes = (size_t)COUNT_PROD("a buffer's bytes", a->n->batch, b->c, b->hp, b->w,
                                      (int64_t)a->n->ops->act_bytes);
    b->rp = grab(a, bytes);
    b->drp = grab(a, bytes);
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Elements per sample of the widest halo region of a dense block. */
static int64_t split_face(const net_t *n)
{
    const nbuf *blocks[2 * CFG_MAX_LEVELS + 1];
    int nb = 0;
    for (int i = 0; i < n->plan->cfg.levels; i++) blocks[nb++] = &n->down[i], blocks[nb++] = &n->up[i];
    blocks[nb++] = &n->bott;
    int64_t face = 0;
    for (int i = 0; i < nb; i++) face = max64(face, (int64_t)blocks[i]->c * n->hk * blocks[i]->w);
    return face;
}

/* A split's extra buffers: padded twins, conv_init's padded input, the
 * scratch of one k x k conv's padded output, the loss scale. */
static void alloc_split(alloc_t *a)
{
    net_t *n = a->n;
    const plan_t *p = n->plan;
    const cfg_t *c = &p->cfg;
    int L = c->levels, g = c->growth;
    int64_t esz = (int64_t)n->ops->act_bytes, scratch = 0, face = 0;
    for (int i = 0; i < L; i++) buf_alloc_pad(a, &n->down[i], n->hk);
    buf_alloc_pad(a, &n->bott, n->hk);
    for (int j = 0; j < L; j++) buf_alloc_pad(a, &n->up[j], n->hk);
    int h0 = n->in.h, w0 = n->in.w;
    n->inp = grab(a, (size_t)COUNT_PROD("a buffer's bytes", n->batch, c->c_in, h0 + 2 * n->hk0, w0,
                                        esz));
    scratch = (int64_t)c->f0 * (h0 + 2 * n->hk0) * w0;
    face = (int64_t)c->c_in * n->hk0 * w0;
    for (int l = 0; l <= L; l++) {
        int64_t rows = p->level_h[l] / n->S + 2 * n->hk, w = p->level_w[l];
        scratch = max64(scratch, g * rows * w);
    }
    face = max64(face, split_face(n));
    size_t sb = (size_t)COUNT_PROD("scratch bytes", n->batch, scratch, esz);
    n->yp = grab(a, sb);
    n->dyp = grab(a, sb);
    /* the ReLU scratch: a block's input maps or one layer's new maps */
    int64_t rsz = 0;
    for (int i = 0; i < L; i++) {
        const nbuf *d = &n->down[i], *u = &n->up[i];
        int64_t cd = p->down_c0[i] > g ? p->down_c0[i] : g, cu = p->up_c0[i] > g ? p->up_c0[i] : g;
        rsz = max64(rsz, max64(cd * d->h * d->w, cu * u->h * u->w));
    }
    int64_t cb = p->bott_c0 > g ? p->bott_c0 : g;
    rsz = max64(rsz, cb * n->bott.h * n->bott.w);
    size_t rb = (size_t)COUNT_PROD("scratch bytes", n->batch, rsz, esz);
    n->rs = grab(a, rb);
    n->drs = grab(a, rb);
    buf_alloc(a, &n->lossg, c->c_out, h0, w0, 1);
    int64_t cc = (int64_t)c->c_out * c->c_out;
    n->scale_master = grab(a, (size_t)cc * sizeof(float));
    n->scale_w = esz == (int64_t)sizeof(float) ? n->scale_master : grab(a, (size_t)(cc * esz));
    /* the exchange's staging: 2 x 2 regions of the widest halo (fd_halo.c) */
    int64_t fe = COUNT_PROD("halo elements", n->batch, face);
    int64_t t;
    CHECK(count_add((int64_t)n->bytes, 4 * fe * esz, &t) == 0, "the network's bytes overflow");
    n->bytes = (size_t)t;
}

static void buf_release(net_t *n, nbuf *b)
{
    void *all[4] = {b->x, b->r, b->dx, b->dr};
    for (int i = 0; i < 4; i++)
        if (all[i]) n->ops->release(n->ctx, all[i]);
}

static void alloc_all(alloc_t *a)
{
    net_t *n = a->n;
    const plan_t *p = n->plan;
    const cfg_t *c = &p->cfg;
    int L = c->levels, g = c->growth;
    int S = n->S, blk = S > 1 ? 5 : 15; /* a split's blocks: r and dr padded (alloc_split) */
    buf_alloc(a, &n->in, c->c_in, c->height / S, c->width, 1);
    for (int i = 0; i < L; i++) {
        int h = p->level_h[i] / S, w = p->level_w[i];
        buf_alloc(a, &n->down[i], p->down_c0[i] + c->down[i] * g, h, w, blk);
        buf_alloc(a, &n->tdpre[i], c->td[i], h, w, 5);
    }
    buf_alloc(a, &n->bott, p->bott_c0 + c->bottleneck * g, p->level_h[L] / S, p->level_w[L], blk);
    for (int j = 0; j < L; j++)
        buf_alloc(a, &n->up[j], p->up_c0[j] + c->up[j] * g, p->level_h[L - 1 - j] / S,
                  p->level_w[L - 1 - j], blk);
    buf_alloc(a, &n->out, c->c_out, c->height / S, c->width, 5);
    buf_alloc(a, &n->target, c->c_out, c->height / S, c->width, 1);
    buf_alloc(a, &n->dinit, c->f0, c->height / S, c->width, 4);
    size_t pb = (size_t)COUNT_PROD("parameter bytes", p->params, (int64_t)sizeof(float));
    n->params = grab(a, pb);
    n->grads = grab(a, pb);
    n->wc = n->ops->act_bytes == sizeof(float) ? n->params
                 : grab(a, (size_t)COUNT_PROD("parameter bytes", p->params,
                                              (int64_t)n->ops->act_bytes));
    if (S > 1) alloc_split(a);
}

/* The split of a plan: S, the halos, this rank's tile. */
static void split_setup(net_t *n)
{
    const cfg_t *c = &n->plan->cfg;
    n->S = fd_split_of(c);
    n->srank = n->plan->group ? n->plan->group->rank : 0;
    n->hk = c->k / 2;
    n->hk0 = c->k0 / 2;
}

/* The split's state beyond buffers: the loss scale's weights, the host
 * tile, the exchange.  0, or -1 with err. */
static int split_open(net_t *n, char *err, size_t errlen)
{
    const cfg_t *c = &n->plan->cfg;
    int64_t face = max64((int64_t)c->c_in * n->hk0 * n->in.w, split_face(n));
    if (fd_xchg_init(&n->hx, n->plan->group, n->ops, n->ctx, n->dry, (int64_t)n->batch * face, err,
                     errlen))
        return -1;
    n->hx_open = 1;
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

net_t *net_create(const plan_t *p, const kern_ops *ops, void *ctx, int batch, int dry, char *err,
                  size_t errlen)
{
    net_t *n = XCALLOC(1, sizeof *n, "network");
    n->plan = p;
    n->ops = ops;
    n->ctx = ctx;
    n->batch = batch;
    n->dry = dry;
    split_setup(n);
    alloc_t a = {.n = n};
    alloc_all(&a);
    if (!a.failed && n->S > 1 && split_open(n, err, errlen)) {
        net_free(n);
        return NULL;
    }
    if (a.failed) {
        snprintf(err, errlen, "a buffer of %.3g GB could not be allocated",
                 (double)a.failed_bytes / 1e9);
        net_free(n);
        return NULL;
    }
    return n;
}

size_t net_bytes_needed(const plan_t *p, const kern_ops *ops, int batch)
{
    net_t n = {.plan = p, .ops = ops, .batch = batch, .dry = 1};
    split_setup(&n);
    alloc_t a = {.n = &n};
    alloc_all(&a);
    return n.bytes;
}

void net_free(net_t *n)
{
    if (!n) return;
    if (n->hx_open) fd_xchg_free(&n->hx);
    free(n->host_tile);
    if (!n->dry) {
        nbuf *bufs[] = {&n->in, &n->out, &n->target, &n->dinit, &n->bott};
        for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) buf_release(n, bufs[i]);
        for (int i = 0; i < n->plan->cfg.levels; i++) {
            buf_release(n, &n->down[i]);
            buf_release(n, &n->tdpre[i]);
            buf_release(n, &n->up[i]);
        }
        void *flat[] = {n->params, n->grads};
        for (size_t i = 0; i < 2; i++)
            if (flat[i]) n->ops->release(n->ctx, flat[i]);
        if (n->wc && n->wc != n->params) n->ops->release(n->ctx, n->wc);
        void *split[] = {n->inp, n->yp, n->dyp, n->rs, n->drs, n->scale_master,
                         n->scale_w != n->scale_master ? n->scale_w : NULL, n->lossg.x};
        for (size_t i = 0; i < sizeof split / sizeof *split; i++)
            if (split[i]) n->ops->release(n->ctx, split[i]);
        nbuf *blocks[] = {&n->bott};
        for (int i = 0; i < n->plan->cfg.levels; i++) {
            void *pads[] = {n->down[i].rp, n->down[i].drp, n->up[i].rp, n->up[i].drp};
            for (int j = 0; j < 4; j++)
                if (pads[j]) n->ops->release(n->ctx, pads[j]);
        }
        if (blocks[0]->rp) n->ops->release(n->ctx, blocks[0]->rp);
        if (blocks[0]->drp) n->ops->release(n->ctx, blocks[0]->drp);
    }
    free(n);
}

size_t net_bytes(const net_t *n) { return n->bytes; }

/* ---- views ------------------------------------------------------------------ */

/* Channels [ch0, ch0 + nch) of one of a buffer's four arrays. */
static tview view(const net_t *n, const nbuf *b, void *base, int ch0, int nch)
{
    tview t;
    t.p = base ? (char *)base + (size_t)ch0 * b->h * b->w * n->ops->act_bytes : NULL;
    t.n = n->batch;
    t.c = nch;
    t.h = b->h;
    t.w = b->w;
    t.sstride = (int64_t)b->c * b->h * b->w;
    return t;
}

static const plan_layer *layer(const net_t *n, int i) { return &n->plan->layers[i]; }

/* ---- the split's padded views (fd_split.h) ---------------------------------- */

/* Channels [ch0, ch0 + nch) of a padded twin, every row. */
static tview pview(const net_t *n, const nbuf *b, void *base, int ch0, int nch)
{
    tview t = {NULL, n->batch, nch, b->hp, b->w, (int64_t)b->c * b->hp * b->w};
    if (base) t.p = (char *)base + (size_t)ch0 * b->hp * b->w * n->ops->act_bytes;
    return t;
}

/* Rows [r0, r0 + nr) of channels [ch0, ch0 + nch) of a [batch][C][hp][w] buffer. */
static t3view prows(const net_t *n, void *base, int C, int hp, int w, int ch0, int nch, int r0,
                    int nr)
{
    int64_t plane = (int64_t)hp * w;
    t3view v = {NULL, n->batch, nch, 1, nr, w, (int64_t)C * plane, plane, plane, w, 1};
    if (base) v.p = (char *)base + (ch0 * plane + (int64_t)r0 * w) * (int64_t)n->ops->act_bytes;
    return v;
}

static t3view as3(const tview *t)
{
    int64_t plane = (int64_t)t->h * t->w;
    return (t3view){t->p, t->n, t->c, 1, t->h, t->w, t->sstride, plane, plane, t->w, 1};
}

/* nch maps of a block's tile, dense in a scratch buffer. */
static tview sview(const net_t *n, const nbuf *b, void *base, int nch)
{
    return (tview){base, n->batch, nch, b->h, b->w, (int64_t)nch * b->h * b->w};
}

/* ReLU'd maps (src, own rows) into channels [ch0, ch0 + nch) of the padded
 * twin, then the halos. */
static void pad_fill(net_t *n, kc_t *kc, const char *name, nbuf *b, const tview *src, int ch0,
                     int nch)
{
    t3view s = as3(src), d = prows(n, b->rp, b->c, b->hp, b->w, ch0, nch, n->hk, b->h);
    kc_copy3d(kc, "halo_pad", name, &s, &d);
    fd_pad P = {b->rp, n->batch, b->c, b->hp, b->w, ch0, nch, n->hk};
    fd_halo_fill(&n->hx, kc, name, &P);
}

/* The neighbours' parts of the padded data gradient added in, then the own
 * rows into the scratch view dst (what the ReLU's backward reads). */
static void fold_dr(net_t *n, kc_t *kc, const char *name, nbuf *b, int ch0, int nch,
                    const tview *dst)
{
    fd_pad P = {b->drp, n->batch, b->c, b->hp, b->w, ch0, nch, n->hk};
    fd_halo_fold(&n->hx, kc, name, &P);
    t3view s = prows(n, b->drp, b->c, b->hp, b->w, ch0, nch, n->hk, b->h), d = as3(dst);
    kc_copy3d(kc, "halo_crop", name, &s, &d);
}

/* y (own rows) = a k x k conv of the padded input xp: SAME over the padded
 * rows, whose own rows are exact, then those rows copied out. */
static void conv_fwd_split(net_t *n, kc_t *kc, const char *name, const tview *xp, const void *w,
                           int k, const tview *y)
{
    int h = k / 2, hp = y->h + 2 * h;
    tview yp = {n->yp, n->batch, y->c, hp, y->w, (int64_t)y->c * hp * y->w};
    kc_conv_fwd(kc, name, xp, w, k, &yp);
    t3view s = prows(n, n->yp, y->c, hp, y->w, 0, y->c, h, y->h), d = as3(y);
    kc_copy3d(kc, "halo_crop", name, &s, &d);
}

/* dy (own rows) padded with zero rows: with it, the weight gradient over
 * the padded input sums exactly this tile's outputs, and the data gradient
 * lands on the padded rows (halo rows: the neighbours' parts, fold_dr). */
static tview pad_dy(net_t *n, kc_t *kc, const char *name, const tview *dy, int h)
{
    int hp = dy->h + 2 * h;
    tview dp = {n->dyp, n->batch, dy->c, hp, dy->w, (int64_t)dy->c * hp * dy->w};
    kc_zero(kc, name, &dp);
    t3view s = as3(dy), d = prows(n, n->dyp, dy->c, hp, dy->w, 0, dy->c, h, dy->h);
    kc_copy3d(kc, "halo_pad", name, &s, &d);
    return dp;
}

static void *weights(const net_t *n, int i)
{
    if (!n->wc) return NULL;
    return (char *)n->wc + (size_t)layer(n, i)->off_w * n->ops->act_bytes;
}

static void *bias(const net_t *n, int i)
{
    if (!n->wc) return NULL;
    return (char *)n->wc + (size_t)layer(n, i)->off_b * n->ops->act_bytes;
}

static float *gw(const net_t *n, int i) { return n->grads ? n->grads + layer(n, i)->off_w : NULL; }
static float *gb(const net_t *n, int i) { return n->grads ? n->grads + layer(n, i)->off_b : NULL; }

/* ---- forward ----------------------------------------------------------------- */

static void dense_fwd(net_t *n, kc_t *kc, nbuf *b, int c0, int layers, int first)
{
    int g = n->plan->cfg.growth, k = n->plan->cfg.k;
    tview xin = view(n, b, b->x, 0, c0);
    tview rin = n->S > 1 ? sview(n, b, n->rs, c0) : view(n, b, b->r, 0, c0);
    kc_relu_fwd(kc, layer(n, first)->name, &xin, &rin);
    if (n->S > 1) pad_fill(n, kc, layer(n, first)->name, b, &rin, 0, c0);
    for (int l = 0; l < layers; l++) {
        int c = c0 + l * g;
        tview y = view(n, b, b->x, c, g);
        if (n->S > 1) {
            tview rp = pview(n, b, b->rp, 0, c);
            conv_fwd_split(n, kc, layer(n, first + l)->name, &rp, weights(n, first + l), k, &y);
        } else {
            tview r = view(n, b, b->r, 0, c);
            kc_conv_fwd(kc, layer(n, first + l)->name, &r, weights(n, first + l), k, &y);
        }
        if (l + 1 < layers) {
            /* the next layer reads these maps through its ReLU */
            tview ry = n->S > 1 ? sview(n, b, n->rs, g) : view(n, b, b->r, c, g);
            kc_relu_fwd(kc, layer(n, first + l + 1)->name, &y, &ry);
            if (n->S > 1) pad_fill(n, kc, layer(n, first + l + 1)->name, b, &ry, c, g);
        }
    }
}

/* The new maps of the block before up level j: what transition up j reads. */
static nbuf *prev_block(net_t *n, int j, int *ch0, int *nch)
{
    const plan_t *p = n->plan;
    const cfg_t *c = &p->cfg;
    if (j == 0) {
        *ch0 = p->bott_c0;
        *nch = c->bottleneck * c->growth;
        return &n->bott;
    }
    *ch0 = p->up_c0[j - 1];
    *nch = c->up[j - 1] * c->growth;
    return &n->up[j - 1];
}

void net_load(net_t *n, const float *input, const float *target)
{
    if (n->dry) return;
    const cfg_t *c = &n->plan->cfg;
    tview in = view(n, &n->in, n->in.x, 0, c->c_in);
    tview tg = view(n, &n->target, n->target.x, 0, c->c_out);
    if (n->S == 1) {
        n->ops->put_f32(n->ctx, &in, input);
        n->ops->put_f32(n->ctx, &tg, target);
        return;
    }
    /* a split: this rank's rows of every plane of the whole samples */
    const float *src[2] = {input, target};
    const tview *dst[2] = {&in, &tg};
    for (int a = 0; a < 2; a++) {
        int64_t planes = (int64_t)n->batch * dst[a]->c, tile = (int64_t)n->in.h * n->in.w;
        for (int64_t q = 0; q < planes; q++)
            memcpy(n->host_tile + q * tile, src[a] + q * n->S * tile + n->srank * tile,
                   (size_t)tile * sizeof(float));
        n->ops->put_f32(n->ctx, dst[a], n->host_tile);
    }
}

double net_forward(net_t *n, kc_t *kc, const float *input, const float *target)
{
    const plan_t *p = n->plan;
    const cfg_t *c = &p->cfg;
    int L = c->levels;
    tview in = view(n, &n->in, n->in.x, 0, c->c_in);
    tview tg = view(n, &n->target, n->target.x, 0, c->c_out);
    if (input) net_load(n, input, target);

    /* CONV_INIT: conv, bias, ReLU, written into the first block's input slice */
    tview y0 = view(n, &n->down[0], n->down[0].x, 0, c->f0);
    if (n->S > 1) {
        int hp = n->in.h + 2 * n->hk0;
        t3view s = as3(&in), d = prows(n, n->inp, c->c_in, hp, n->in.w, 0, c->c_in, n->hk0, n->in.h);
        kc_copy3d(kc, "halo_pad", "conv_init", &s, &d);
        fd_pad P = {n->inp, n->batch, c->c_in, hp, n->in.w, 0, c->c_in, n->hk0};
        fd_halo_fill(&n->hx, kc, "conv_init", &P);
        tview inp = {n->inp, n->batch, c->c_in, hp, n->in.w, (int64_t)c->c_in * hp * n->in.w};
        conv_fwd_split(n, kc, "conv_init", &inp, weights(n, p->conv_init), c->k0, &y0);
    } else {
        kc_conv_fwd(kc, "conv_init", &in, weights(n, p->conv_init), c->k0, &y0);
    }
    kc_bias_fwd(kc, "conv_init", &y0, bias(n, p->conv_init));
    kc_relu_fwd(kc, "conv_init", &y0, &y0);

    for (int i = 0; i < L; i++) {
        nbuf *b = &n->down[i];
        dense_fwd(n, kc, b, p->down_c0[i], c->down[i], p->down_first[i]);
        tview x = view(n, b, b->x, 0, b->c);
        tview t = view(n, &n->tdpre[i], n->tdpre[i].x, 0, c->td[i]);
        const char *name = layer(n, p->td[i])->name;
        kc_conv_fwd(kc, name, &x, weights(n, p->td[i]), 1, &t);
        nbuf *next = i + 1 < L ? &n->down[i + 1] : &n->bott;
        tview pooled = view(n, next, next->x, 0, c->td[i]);
        kc_pool_fwd(kc, name, &t, &pooled);
    }
    dense_fwd(n, kc, &n->bott, p->bott_c0, c->bottleneck, p->bott_first);

    for (int j = 0; j < L; j++) {
        int ch0, nch;
        nbuf *src = prev_block(n, j, &ch0, &nch), *b = &n->up[j];
        const char *name = layer(n, p->tu[j])->name;
        tview s = view(n, src, src->x, ch0, nch), y = view(n, b, b->x, 0, c->tu[j]);
        kc_tconv_fwd(kc, name, &s, weights(n, p->tu[j]), &y);
        /* concatenation: the skip connection is copied next to the upsampled maps */
        nbuf *skip = &n->down[L - 1 - j];
        tview sk = view(n, skip, skip->x, 0, skip->c), dst = view(n, b, b->x, c->tu[j], skip->c);
        kc_copy(kc, name, &sk, &dst);
        dense_fwd(n, kc, b, p->up_c0[j], c->up[j], p->up_first[j]);
    }

    nbuf *last = &n->up[L - 1];
    tview x = view(n, last, last->x, 0, last->c), out = view(n, &n->out, n->out.x, 0, c->c_out);
    kc_conv_fwd(kc, "conv_fin", &x, weights(n, p->conv_fin), 1, &out);
    kc_bias_fwd(kc, "conv_fin", &out, bias(n, p->conv_fin));
    return kc_l1_fwd(kc, "loss", &out, &tg);
}

/* ---- backward ---------------------------------------------------------------- */

static int64_t layer_params(const plan_layer *l) { return l->weights + (l->bias ? l->c_out : 0); }

static void notify(net_t *n, net_grad_ready_fn ready, void *user, int i)
{
    if (ready) ready(user, i, gw(n, i), layer_params(layer(n, i)));
}

/* Gradients of a dense block: on entry dx of the block's output maps holds
 * everything its consumers outside the block sent; on exit dx of the block
 * input [0, c0) is complete. */
static void dense_bwd(net_t *n, kc_t *kc, nbuf *b, int c0, int layers, int first,
                      net_grad_ready_fn ready, void *user)
{
    int g = n->plan->cfg.growth, k = n->plan->cfg.k;
    for (int l = layers - 1; l >= 0; l--) {
        int c = c0 + l * g;
        const char *name = layer(n, first + l)->name;
        tview dy = view(n, b, b->dx, c, g);
        if (l + 1 < layers) {
            /* what later layers sent through these maps' ReLU */
            tview x = view(n, b, b->x, c, g), dr = view(n, b, b->dr, c, g);
            if (n->S > 1) {
                dr = sview(n, b, n->drs, g);
                fold_dr(n, kc, layer(n, first + l + 1)->name, b, c, g, &dr);
            }
            kc_relu_bwd(kc, layer(n, first + l + 1)->name, &x, &dr, &dy);
        }
        tview r = view(n, b, b->r, 0, c), dr_in = view(n, b, b->dr, 0, c), dyc = dy;
        if (n->S > 1) {
            r = pview(n, b, b->rp, 0, c);
            dr_in = pview(n, b, b->drp, 0, c);
            dyc = pad_dy(n, kc, name, &dy, n->hk);
        }
        kc_conv_bwd_weights(kc, name, &r, &dyc, k, gw(n, first + l));
        notify(n, ready, user, first + l);
        kc_conv_bwd_data(kc, name, &dyc, weights(n, first + l), k, &dr_in);
    }
    tview x = view(n, b, b->x, 0, c0), dr = view(n, b, b->dr, 0, c0), dx = view(n, b, b->dx, 0, c0);
    if (n->S > 1) {
        dr = sview(n, b, n->drs, c0);
        fold_dr(n, kc, layer(n, first)->name, b, 0, c0, &dr);
    }
    kc_relu_bwd(kc, layer(n, first)->name, &x, &dr, &dx);
}

/* Gradients accumulate ("+="), so the buffers that collect them start at zero. */
static void zero_grads(net_t *n, kc_t *kc, nbuf *b, int with_relu_twin)
{
    tview t = view(n, b, b->dx, 0, b->c);
    kc_zero(kc, "grad_zero", &t);
    if (with_relu_twin) {
        /* a split accumulates into the padded twin (dr is not allocated) */
        tview tr = n->S > 1 ? pview(n, b, b->drp, 0, b->c) : view(n, b, b->dr, 0, b->c);
        kc_zero(kc, "grad_zero", &tr);
    }
}

void net_backward(net_t *n, kc_t *kc, net_grad_ready_fn ready, void *user)
{
    const plan_t *p = n->plan;
    const cfg_t *c = &p->cfg;
    int L = c->levels;

    for (int i = 0; i < L; i++) zero_grads(n, kc, &n->down[i], 1);
    zero_grads(n, kc, &n->bott, 1);
    for (int j = 0; j < L; j++) zero_grads(n, kc, &n->up[j], 1);
    zero_grads(n, kc, &n->dinit, 0);

    tview out = view(n, &n->out, n->out.x, 0, c->c_out);
    tview dout = view(n, &n->out, n->out.dx, 0, c->c_out);
    tview tg = view(n, &n->target, n->target.x, 0, c->c_out);
    if (n->S > 1) {
        /* the tile's mean is over 1/S of the sample: its part of the
         * sample's gradient is 1/S of the tile's */
        tview lg = view(n, &n->lossg, n->lossg.x, 0, c->c_out);
        kc_l1_bwd(kc, "loss", &out, &tg, &lg);
        kc_conv_fwd(kc, "loss", &lg, n->scale_w, 1, &dout);
    } else {
        kc_l1_bwd(kc, "loss", &out, &tg, &dout);
    }

    nbuf *last = &n->up[L - 1];
    tview x = view(n, last, last->x, 0, last->c), dx = view(n, last, last->dx, 0, last->c);
    kc_bias_bwd(kc, "conv_fin", &dout, gb(n, p->conv_fin));
    kc_conv_bwd_weights(kc, "conv_fin", &x, &dout, 1, gw(n, p->conv_fin));
    notify(n, ready, user, p->conv_fin);
    kc_conv_bwd_data(kc, "conv_fin", &dout, weights(n, p->conv_fin), 1, &dx);

    for (int j = L - 1; j >= 0; j--) {
        nbuf *b = &n->up[j];
        dense_bwd(n, kc, b, p->up_c0[j], c->up[j], p->up_first[j], ready, user);
        const char *name = layer(n, p->tu[j])->name;
        nbuf *skip = &n->down[L - 1 - j];
        tview dsk = view(n, b, b->dx, c->tu[j], skip->c), dskip = view(n, skip, skip->dx, 0, skip->c);
        kc_add(kc, name, &dsk, &dskip);
        int ch0, nch;
        nbuf *src = prev_block(n, j, &ch0, &nch);
        tview s = view(n, src, src->x, ch0, nch), ds = view(n, src, src->dx, ch0, nch);
        tview dy = view(n, b, b->dx, 0, c->tu[j]);
        kc_tconv_bwd_weights(kc, name, &s, &dy, gw(n, p->tu[j]));
        notify(n, ready, user, p->tu[j]);
        kc_tconv_bwd_data(kc, name, &dy, weights(n, p->tu[j]), &ds);
    }
    dense_bwd(n, kc, &n->bott, p->bott_c0, c->bottleneck, p->bott_first, ready, user);

    for (int i = L - 1; i >= 0; i--) {
        nbuf *b = &n->down[i], *next = i + 1 < L ? &n->down[i + 1] : &n->bott;
        const char *name = layer(n, p->td[i])->name;
        tview dpooled = view(n, next, next->dx, 0, c->td[i]);
        tview dt = view(n, &n->tdpre[i], n->tdpre[i].dx, 0, c->td[i]);
        kc_pool_bwd(kc, name, &dpooled, &dt);
        tview bx = view(n, b, b->x, 0, b->c), bdx = view(n, b, b->dx, 0, b->c);
        kc_conv_bwd_weights(kc, name, &bx, &dt, 1, gw(n, p->td[i]));
        notify(n, ready, user, p->td[i]);
        kc_conv_bwd_data(kc, name, &dt, weights(n, p->td[i]), 1, &bdx);
        dense_bwd(n, kc, b, p->down_c0[i], c->down[i], p->down_first[i], ready, user);
    }

    /* CONV_INIT: through its ReLU; the data gradient of the input is never needed */
    tview y0 = view(n, &n->down[0], n->down[0].x, 0, c->f0);
    tview dy0 = view(n, &n->down[0], n->down[0].dx, 0, c->f0);
    tview dpre = view(n, &n->dinit, n->dinit.dx, 0, c->f0);
    tview in = view(n, &n->in, n->in.x, 0, c->c_in);
    kc_relu_bwd(kc, "conv_init", &y0, &dy0, &dpre);
    kc_bias_bwd(kc, "conv_init", &dpre, gb(n, p->conv_init));
    if (n->S > 1) {
        int hp = n->in.h + 2 * n->hk0;
        tview inp = {n->inp, n->batch, c->c_in, hp, n->in.w, (int64_t)c->c_in * hp * n->in.w};
        tview dp = pad_dy(n, kc, "conv_init", &dpre, n->hk0);
        kc_conv_bwd_weights(kc, "conv_init", &inp, &dp, c->k0, gw(n, p->conv_init));
    } else {
        kc_conv_bwd_weights(kc, "conv_init", &in, &dpre, c->k0, gw(n, p->conv_init));
    }
    notify(n, ready, user, p->conv_init);
}

/* ---- parameters -------------------------------------------------------------- */

void net_init_params(net_t *n, uint64_t seed)
{
    if (n->dry) return;
    const plan_t *p = n->plan;
    float *host = XCALLOC((size_t)p->params, sizeof *host, "initial weights");
    for (int i = 0; i < p->n; i++) {
        const plan_layer *l = layer(n, i);
        /* dense layers read ReLU'd maps (He); the others read raw values (LeCun) */
        int relu_fed = strstr(l->name, ".l") != NULL;
        int64_t fan_in = (int64_t)l->c_in * l->k * l->k;
        double sd = sqrt((relu_fed ? 2.0 : 1.0) / (double)fan_in);
        rng_t r = rng_stream(seed, 0x5745494748ULL /* "WEIGH" */, (uint64_t)i, 0);
        for (int64_t j = 0; j < l->weights; j++) host[l->off_w + j] = (float)(sd * rng_normal(&r));
    }
    net_set_params(n, host);
    free(host);
}

void net_set_params(net_t *n, const float *host)
{
    if (n->dry) return;
    size_t pb = (size_t)n->plan->params * sizeof(float);
    n->ops->h2d(n->ctx, n->params, host, pb);
    n->ops->cast_params(n->ctx, n->params, n->wc, n->plan->params);
}

void net_get_params(const net_t *n, float *host)
{
    if (n->dry) return;
    n->ops->d2h(n->ctx, host, n->params, (size_t)n->plan->params * sizeof(float));
}

void *net_grads(const net_t *n) { return n->grads; }

void net_param_arrays(const net_t *n, net_params *p)
{
    p->master = n->params;
    p->compute = n->wc;
    p->grads = n->grads;
}

void net_get_output(const net_t *n, float *host)
{
    if (n->dry) return;
    tview out = view(n, &n->out, n->out.x, 0, n->plan->cfg.c_out);
    n->ops->get_f32(n->ctx, &out, host);
}
