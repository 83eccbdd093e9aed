/* cl_net_impl: the climate network's instance as cl_net.c and cl_net_pass.c
 * share it (private to the network: nothing outside these two files includes
 * it).  cl_net.c allocates it (the activation arrays, the shared gradient
 * buffers and when each gradient is live) and holds its parameters;
 * cl_net_pass.c runs forward and backward over it.  The split is where the
 * memory ends and the arithmetic begins, so that each file stays under the
 * project's ~400 lines and reads as one thing.
 *
 * defines: struct cl_net */
#ifndef CLIMATE_CL_NET_IMPL_H
#define CLIMATE_CL_NET_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/networks/deepcam/cl_net.h"
#include "benchmarks/train/sp_halo.h"

struct cl_net {
    const cl_plan *p;
    const kern_ops *ops;
    void *ctx;
    int batch, dry;
    size_t bytes;
    int failed;
    size_t failed_bytes;
    void **x, **dx;      /* [nt]: root tensors' arrays (NULL for windows); the dx share buffers */
    int *live_lo, *live_hi; /* [nt]: ops between which a root's gradient is live (backward) */
    void **gbuf;         /* the gradient buffers, ngbuf of them */
    int ngbuf;
    void *scratch;       /* a gradient that is added, not written */
    float *mean, *var;   /* batch norm statistics, all layers */
    int64_t *stat_off;   /* [nop]: a batch norm op's offset in mean and var */
    int32_t *label;      /* [batch][h][w] in the set's memory */
    int32_t *label_host;
    float *class_w;      /* [CL_CLASSES] in the set's memory */
    float *params, *grads;
    void *wc;
    /* the spatial split (cl_split.h; S 1: none, and nothing below is used) */
    int S, srank;        /* ranks per sample, this rank's tile (0: the top left one) */
    int sh, sw, rh, rw;  /* the grid's tiles along H and W; this rank's tile row, column */
    char *whole;         /* [nt]: maps every rank holds whole (the image-pool branch) */
    int *halo;           /* [2 nop]: a convolution's halo rows and columns, halo[2 i + axis]
                            (both 0: it runs on the tile) */
    void *pin, *pout;    /* a halo convolution's padded input (or its data gradient)
                            and padded output (or output gradient) */
    sp_xchg xchg;
    float *class_wb;     /* class weights / S: the tile's share of the sample's mean loss */
    float *host_tile;    /* load's staging of the tile's rows */
};

/* Rows (columns) a rank holds of tensor t: its tile's, or all for a whole map. */
static inline int cl_tiled(const struct cl_net *n, int t)
{
    const cl_tensor *x = &n->p->t[t];
    return n->S > 1 && !n->whole[x->parent >= 0 ? x->parent : t];
}
static inline int cl_rows(const struct cl_net *n, int t)
{
    return cl_tiled(n, t) ? n->p->t[t].h / n->sh : n->p->t[t].h;
}
static inline int cl_cols(const struct cl_net *n, int t)
{
    return cl_tiled(n, t) ? n->p->t[t].w / n->sw : n->p->t[t].w;
}

/* cl_split_pass.c: the halo convolutions (a[0] halo rows, a[1] columns, not
 * both 0) on padded tiles,
 * and the image pool's sum over the group.  x, dy, y, d: the tile views; d
 * (the data gradient's destination) may be NULL. */
void cl_split_conv_fwd(cl_net *n, kc_t *kc, const cl_op *o, const int a[2], const tview *x, const void *w,
                       const tview *y);
void cl_split_conv_bwd(cl_net *n, kc_t *kc, const cl_op *o, const int a[2], const tview *x,
                       const tview *dy, const void *w, float *dw, const tview *d);
void cl_split_tconv_fwd(cl_net *n, kc_t *kc, const cl_op *o, const int a[2], const tview *x,
                        const void *w, const tview *y);
void cl_split_tconv_bwd(cl_net *n, kc_t *kc, const cl_op *o, const int a[2], const tview *x,
                        const tview *dy, const void *w, float *dw, const tview *d);
/* v (a dense whole map in set memory) summed over the group, in place */
void cl_split_sum(cl_net *n, kc_t *kc, const char *layer, const tview *v);

#endif
