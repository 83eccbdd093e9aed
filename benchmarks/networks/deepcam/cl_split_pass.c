/* cl_split_pass: the climate network's split computation (cl_split.h,
 * docs/spatial.md "The climate network"): a convolution that reads its
 * neighbours' rows runs on a padded tile, the image pool sums over the
 * group.
 *
 * A halo convolution (a halo rows, cl_split_halo):
 *   forward   the input tile is copied into rows [a, a + th) of a zeroed
 *             padded buffer (th + 2a rows: `halo_pad`), whose first and last
 *             a rows the fill brings from the ranks above and below (zero at
 *             the sample's edges, where the neighbour is MPI_PROC_NULL: the
 *             convolution's own zero padding); the convolution runs over the
 *             padded rows with its own geometry, and the output rows that
 *             belong to the tile (from a / stride: a is a multiple of the
 *             stride, so they align) are copied out (`halo_crop`);
 *   backward  the padded input is built again (a second fill: keeping it from
 *             forward would hold a padded copy of every input); the output
 *             gradient goes into the same rows of a zeroed padded output, so
 *             that the weight gradient over the padded input sums exactly
 *             this tile's outputs (each output pixel counted on one rank);
 *             the data gradient over the padded rows has parts in the halo
 *             rows that belong to the neighbours' rows: the fold sends them
 *             and adds what comes back into the first and last own rows, and
 *             the own rows are the tile's gradient.
 * A transposed convolution (the data gradient of a stride-2 convolution,
 * halo 1) is the same with the roles of its passes swapped: its padded
 * output has 2 (th + 2) rows, of which rows [2, 2 + 2 th) are the tile's.
 * A convolution whose halo is deeper than the tile (cl_split_gathers) takes
 * the whole input map instead: an allgather of the tiles (`halo_gather`),
 * the convolution over the whole map, the tile's output rows kept; backward
 * the output gradient in the tile's rows of a zeroed whole map, and the data
 * gradient over the whole map reduce-scattered (`halo_scatter`: each rank
 * gets the group's sum of its own rows).  It runs on the host in fp32, and
 * each rank computes the whole map's convolution (the smallest maps only).
 * Every copy goes through counted kernels (rows `halo_pad`, `halo_crop`,
 * the exchange's `halo`, `halo_pack`, `halo_unpack`, sp_halo.c). */
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/networks/deepcam/cl_net_impl.h"

/* A dense [batch][c][rows][w] map in buffer buf. */
static tview dense(const cl_net *n, void *buf, int c, int rows, int w)
{
    return (tview){.p = buf, .n = n->batch, .c = c, .h = rows, .w = w,
                   .sstride = (int64_t)c * rows * w};
}

/* Rows [r0, r0 + nr) of view v as a t3view (copy3d's views). */
static t3view rows3(const cl_net *n, const tview *v, int r0, int nr)
{
    int64_t plane = (int64_t)v->h * v->w;
    t3view t = {.n = v->n, .c = v->c, .d = 1, .h = nr, .w = v->w, .sn = v->sstride, .sc = plane,
                .sd = plane, .sh = v->w, .sw = 1};
    t.p = v->p ? (char *)v->p + (size_t)r0 * (size_t)v->w * n->ops->act_bytes : NULL;
    return t;
}

static sp_pad pad_of(const tview *v, int a)
{
    return (sp_pad){.base = v->p, .n = v->n, .C = v->c, .hp = v->h, .wp = v->w, .c0 = 0,
                    .nc = v->c, .halo_h = a, .halo_w = 0};
}

/* The padded input of a halo convolution: x's rows in the middle of pin,
 * the neighbours' a rows above and below. */
static tview pad_input(cl_net *n, kc_t *kc, const char *layer, const tview *x, int a)
{
    tview xp = dense(n, n->pin, x->c, x->h + 2 * a, x->w);
    kc_zero(kc, layer, &xp);
    t3view src = rows3(n, x, 0, x->h), dst = rows3(n, &xp, a, x->h);
    kc_copy3d(kc, "halo_pad", layer, &src, &dst);
    sp_pad P = pad_of(&xp, a);
    sp_halo_fill(&n->xchg, kc, layer, &P);
    return xp;
}

/* Rows [r0, r0 + v->h) of the padded map `from` into the tile view v. */
static void crop(cl_net *n, kc_t *kc, const char *layer, const tview *from, int r0, const tview *v)
{
    t3view src = rows3(n, from, r0, v->h), dst = rows3(n, v, 0, v->h);
    kc_copy3d(kc, "halo_crop", layer, &src, &dst);
}

/* A zeroed padded output of `rows` rows with dy in rows [r0, r0 + dy->h). */
static tview pad_grad(cl_net *n, kc_t *kc, const char *layer, const tview *dy, int rows, int r0)
{
    tview yp = dense(n, n->pout, dy->c, rows, dy->w);
    kc_zero(kc, layer, &yp);
    t3view src = rows3(n, dy, 0, dy->h), dst = rows3(n, &yp, r0, dy->h);
    kc_copy3d(kc, "halo_pad", layer, &src, &dst);
    return yp;
}

/* The data gradient over the padded rows (in pin, xp's shape): the halo
 * rows' parts to the neighbours, then the own rows into d. */
static void fold_out(cl_net *n, kc_t *kc, const char *layer, const tview *dxp, int a,
                     const tview *d)
{
    sp_pad P = pad_of(dxp, a);
    sp_halo_fold(&n->xchg, kc, layer, &P);
    crop(n, kc, layer, dxp, a, d);
}

/* The group's tiles of x as one dense whole map in pin. */
static tview gather_input(cl_net *n, kc_t *kc, const char *layer, const tview *x)
{
    int S = n->S, th = x->h;
    tview xp = dense(n, n->pin, x->c, th * S, x->w);
    ktab_row *r = ktab_row_for(kc->tab, "halo_gather", layer);
    r->calls++;
    if (kc->dry || n->dry) return xp;
    CHECK(n->ops->act_bytes == 4, "the split's gathers move fp32 maps");
    size_t tile = (size_t)tview_elems(x), planes = (size_t)x->n * (size_t)x->c,
           rw = (size_t)th * (size_t)x->w;
    CHECK(tile <= 0x7fffffff, "a tile of %zu elements: over MPI's int count", tile);
    float *mine = XMALLOC(tile * sizeof *mine, "gather"),
          *all = XMALLOC(tile * (size_t)S * sizeof *all, "gather"),
          *full = XMALLOC(tile * (size_t)S * sizeof *full, "gather");
    double t0 = timer_now_s();
    n->ops->get_f32(n->ctx, x, mine);
    CHECK_MPI(MPI_Allgather(mine, (int)tile, MPI_FLOAT, all, (int)tile, MPI_FLOAT,
                            n->p->group->comm));
    /* all is [rank][plane][th][w]; the map is [plane][rank th + row][w] */
    for (int k = 0; k < S; k++)
        for (size_t q = 0; q < planes; q++)
            memcpy(full + (q * (size_t)S + (size_t)k) * rw, all + (size_t)k * tile + q * rw,
                   rw * sizeof *full);
    n->ops->put_f32(n->ctx, &xp, full);
    if (kc->timing) r->time_s += timer_now_s() - t0;
    free(mine);
    free(all);
    free(full);
    return xp;
}

/* A data gradient over the whole map (dxp): the group's sum of this rank's
 * rows into d. */
static void scatter_grad(cl_net *n, kc_t *kc, const char *layer, const tview *dxp,
                         const tview *d)
{
    ktab_row *r = ktab_row_for(kc->tab, "halo_scatter", layer);
    r->calls++;
    if (kc->dry || n->dry) return;
    int S = n->S;
    size_t tile = (size_t)tview_elems(d), planes = (size_t)d->n * (size_t)d->c,
           rw = (size_t)d->h * (size_t)d->w;
    float *mine = XMALLOC(tile * sizeof *mine, "scatter"),
          *all = XMALLOC(tile * (size_t)S * sizeof *all, "scatter"),
          *full = XMALLOC(tile * (size_t)S * sizeof *full, "scatter");
    double t0 = timer_now_s();
    n->ops->get_f32(n->ctx, dxp, full);
    for (int k = 0; k < S; k++)
        for (size_t q = 0; q < planes; q++)
            memcpy(all + (size_t)k * tile + q * rw, full + (q * (size_t)S + (size_t)k) * rw,
                   rw * sizeof *all);
    CHECK_MPI(MPI_Reduce_scatter_block(all, mine, (int)tile, MPI_FLOAT, MPI_SUM,
                                       n->p->group->comm));
    n->ops->put_f32(n->ctx, d, mine);
    if (kc->timing) r->time_s += timer_now_s() - t0;
    free(mine);
    free(all);
    free(full);
}

void cl_split_conv_fwd(cl_net *n, kc_t *kc, const cl_op *o, int a, const tview *x, const void *w,
                       const tview *y)
{
    int s = o->g.stride > 0 ? o->g.stride : 1, gather = a > x->h;
    tview xp = gather ? gather_input(n, kc, o->name, x) : pad_input(n, kc, o->name, x, a);
    tview yp = dense(n, n->pout, y->c, kern_dconv_out(xp.h, &o->g), y->w);
    kc_dconv_fwd(kc, o->name, &xp, w, &o->g, &yp);
    crop(n, kc, o->name, &yp, gather ? n->srank * y->h : a / s, y);
}

void cl_split_conv_bwd(cl_net *n, kc_t *kc, const cl_op *o, int a, const tview *x,
                       const tview *dy, const void *w, float *dw, const tview *d)
{
    int s = o->g.stride > 0 ? o->g.stride : 1, gather = a > x->h;
    tview xp = gather ? gather_input(n, kc, o->name, x) : pad_input(n, kc, o->name, x, a);
    tview yp = pad_grad(n, kc, o->name, dy, kern_dconv_out(xp.h, &o->g),
                        gather ? n->srank * dy->h : a / s);
    kc_dconv_bwd_weights(kc, o->name, &xp, &yp, &o->g, dw);
    if (!d) return;
    kc_dconv_bwd_data(kc, o->name, &yp, w, &o->g, &xp); /* xp's buffer now holds dx */
    if (gather) scatter_grad(n, kc, o->name, &xp, d);
    else fold_out(n, kc, o->name, &xp, a, d);
}

void cl_split_tconv_fwd(cl_net *n, kc_t *kc, const cl_op *o, int a, const tview *x,
                        const void *w, const tview *y)
{
    tview xp = pad_input(n, kc, o->name, x, a);
    tview yp = dense(n, n->pout, y->c, 2 * xp.h, y->w);
    kc_dconv_bwd_data(kc, o->name, &xp, w, &o->g, &yp);
    crop(n, kc, o->name, &yp, 2 * a, y);
}

void cl_split_tconv_bwd(cl_net *n, kc_t *kc, const cl_op *o, int a, const tview *x,
                        const tview *dy, const void *w, float *dw, const tview *d)
{
    tview xp = pad_input(n, kc, o->name, x, a);
    tview yp = pad_grad(n, kc, o->name, dy, 2 * xp.h, 2 * a);
    kc_dconv_bwd_weights(kc, o->name, &yp, &xp, &o->g, dw);
    kc_dconv_fwd(kc, o->name, &yp, w, &o->g, &xp); /* xp's buffer now holds dx */
    fold_out(n, kc, o->name, &xp, a, d);
}

/* The image pool's partial sums (forward: of the tile's pixels; backward:
 * of the broadcast's gradient over the tile) summed over the group, in
 * double on the host so that every rank gets the same value. */
void cl_split_sum(cl_net *n, kc_t *kc, const char *layer, const tview *v)
{
    ktab_row *r = ktab_row_for(kc->tab, "pool_allreduce", layer);
    r->calls++;
    if (kc->dry || n->dry || n->S <= 1) return;
    CHECK(n->ops->act_bytes == 4, "the split's image pool sums fp32 maps");
    size_t cnt = (size_t)tview_elems(v);
    CHECK(v->sstride == (int64_t)v->c * v->h * v->w, "the pooled map is dense");
    float *f = XMALLOC(cnt * sizeof *f, "pool sums");
    double *s = XMALLOC(cnt * sizeof *s, "pool sums");
    double t0 = timer_now_s();
    n->ops->d2h(n->ctx, f, v->p, cnt * sizeof *f);
    for (size_t i = 0; i < cnt; i++) s[i] = f[i];
    CHECK(cnt <= 0x7fffffff, "a pooled map of %zu elements: over MPI's int count", cnt);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, s, (int)cnt, MPI_DOUBLE, MPI_SUM, n->p->group->comm));
    for (size_t i = 0; i < cnt; i++) f[i] = (float)s[i];
    n->ops->h2d(n->ctx, v->p, f, cnt * sizeof *f);
    if (kc->timing) r->time_s += timer_now_s() - t0;
    free(f);
    free(s);
}
