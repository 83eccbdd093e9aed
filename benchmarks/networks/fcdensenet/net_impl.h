/* net_impl: the FC-DenseNet's buffers as net.c, net_pass.c and net_split.c
 * share them (private to the network: nothing outside these three files
 * includes it).  net.c allocates the network and holds its parameters;
 * net_pass.c runs forward and backward over its buffers; net_split.c holds
 * what a spatial split adds (fd_split.h, docs/spatial.md): padded buffers,
 * halo fills and folds around the k x k convolutions, the loss's 1/S.
 *
 * defines: nbuf, struct net, alloc_t, net_grab, net_buf_alloc, net_view,
 *          nsp_* */
#ifndef EXADL_FCDENSENET_NET_IMPL_H
#define EXADL_FCDENSENET_NET_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/train/sp_halo.h"
#include "benchmarks/networks/fcdensenet/fd_shuffle.h"
#include "benchmarks/networks/fcdensenet/net.h"

/* One activation buffer of the network: values, their ReLU twin (dense
 * blocks only) and the gradients of both.  h is this rank's rows (the tile
 * of a spatial split, fd_split.h); in a split, the dense blocks keep r and
 * dr as halo-padded twins rp and drp instead (hp = h + 2 halo rows), which
 * their k x k convolutions read and write (wp = w + 2 halo columns when W
 * is split too). */
typedef struct {
    void *x, *r, *dx, *dr;
    void *rp, *drp;
    int c, h, w, hp, wp;
    int n;                 /* samples: the batch, or batch / S at a plan's sample levels */
    int sp;                /* split along H with halos (rp, drp in place of r, dr) */
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
    int S, srank;          /* ranks per sample; this rank's tile (0: top left, row-major) */
    int Sh, Sw, srh, srw;  /* tiles along H and W; this rank's tile row and column */
    int hk, hk0;           /* half the dense layers' and conv_init's kernels */
    int ph, pw, ph0, pw0;  /* their halo rows and columns (0 along an axis not split) */
    void *inp;             /* conv_init's padded input [batch][c_in][h + 2 hk0][w] */
    void *yp, *dyp;        /* padded scratch: a k x k conv's output, its output gradient */
    void *rs, *drs;        /* unpadded scratch of a block's ReLU maps and their gradient on
                              their way into and out of the padded twins (which replace a
                              split block's r and dr) */
    nbuf lossg;            /* the tile's L1 gradient before the 1/S of the sample's mean */
    float *scale_master;   /* a 1x1 conv of c_out maps by diag(1/S): that scale */
    void *scale_w;
    float *host_tile;      /* the tile's rows of a batch, cropped on the host */
    sp_xchg hx;
    int hx_open;
    /* a per-level plan (fd_split.h): levels [K, L] hold whole samples */
    int K;
    nbuf shin, shup;       /* tiles of the pooled maps into level K, of the maps out of it */
    fd_shuf sh;
    int sh_open;
};

typedef struct {
    net_t *n;
    int failed;
    size_t failed_bytes;
} alloc_t;

/* Count bytes and allocate them (nothing when dry or after a failure). */
void *net_grab(alloc_t *a, size_t bytes);
/* The arrays of a buffer of `samples`; which: bit 1 = x, 2 = r, 4 = dx, 8 = dr. */
void net_buf_alloc_n(alloc_t *a, nbuf *b, int samples, int c, int h, int w, int which);
/* The same for the whole batch. */
void net_buf_alloc(alloc_t *a, nbuf *b, int c, int h, int w, int which);

/* Channels [ch0, ch0 + nch) of one of a buffer's four arrays. */
static inline tview net_view(const net_t *n, const nbuf *b, void *base, int ch0, int nch)
{
    tview t;
    t.p = base ? (char *)base + (size_t)ch0 * b->h * b->w * n->ops->act_bytes : NULL;
    (void)n;
    t.n = b->n;
    t.c = nch;
    t.h = b->h;
    t.w = b->w;
    t.sstride = (int64_t)b->c * b->h * b->w;
    return t;
}

/* ---- the split (net_split.c) ---------------------------------------------- */

/* S, the halos and this rank's tile from the plan. */
void nsp_setup(net_t *n);
/* The split's buffers (after the unsplit ones, whose tile sizes it reads). */
void nsp_alloc(alloc_t *a);
/* The loss scale's weights, the host tile, the exchange; 0, or -1 with err. */
int nsp_open(net_t *n, char *err, size_t errlen);
/* Release what nsp_alloc and nsp_open made. */
void nsp_release(net_t *n);
/* This rank's rows of whole samples (host, dense) into the instance. */
void nsp_load(net_t *n, const float *input, const float *target);

tview nsp_pview(const net_t *n, const nbuf *b, void *base, int ch0, int nch);
tview nsp_sview(const net_t *n, const nbuf *b, void *base, int nch);
t3view nsp_pbox(const net_t *n, void *base, int C, int hp, int wp, int ch0, int nch, int r0, int nr,
                int c0, int ncol);
t3view nsp_as3(const tview *t);
void nsp_pad_fill(net_t *n, kc_t *kc, const char *name, nbuf *b, const tview *src, int ch0, int nch);
void nsp_fold_dr(net_t *n, kc_t *kc, const char *name, nbuf *b, int ch0, int nch, const tview *dst);
void nsp_conv_fwd(net_t *n, kc_t *kc, const char *name, const tview *xp, const void *w, int k,
                  const tview *y);
tview nsp_pad_dy(net_t *n, kc_t *kc, const char *name, const tview *dy, int h);
void nsp_init_fwd(net_t *n, kc_t *kc, const tview *in, const void *w, const tview *y0);
void nsp_init_bwd(net_t *n, kc_t *kc, const tview *dpre, float *gw);

#endif
