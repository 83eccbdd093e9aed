/* cl_split_pass: the climate network's split computation (cl_split.h,
 * docs/spatial.md "The climate network"): a convolution that reads its
 * neighbours' rows runs on a padded tile, the image pool sums over the
 * group.
 *
 * A halo convolution (a[0] halo rows, a[1] columns, cl_split_halo; 0
 * along an axis that is not split):
 *   forward   the input tile is copied into rows [a0, a0 + th) and columns
 *             [a1, a1 + tw) of a zeroed padded buffer (th + 2 a0 rows,
 *             tw + 2 a1 columns: `halo_pad`), whose halo the fill brings from
 *             the ranks left and right, above and below, the corners with the
 *             rows (zero at the sample's edges, where the neighbour is
 *             MPI_PROC_NULL: the convolution's own zero padding); the
 *             convolution runs over the padded tile with its own geometry,
 *             and the output rows and columns that belong to the tile (from
 *             a / stride: a is a multiple of the stride, so they align) are
 *             copied out (`halo_crop`);
 *   backward  the padded input is built again (a second fill: keeping it from
 *             forward would hold a padded copy of every input); the output
 *             gradient goes into the same rows of a zeroed padded output, so
 *             that the weight gradient over the padded input sums exactly
 *             this tile's outputs (each output pixel counted on one rank);
 *             the data gradient over the padded tile has parts in the halo
 *             that belong to the neighbours' own: the fold sends them and
 *             adds what comes back into the first and last own rows and
 *             columns, and the own box is the tile's gradient.
 * A transposed convolution (the data gradient of a stride-2 convolution,
 * halo 1 along each split axis) is the same with the roles of its passes
 * swapped: its padded output has 2 (th + 2 a0) rows and 2 (tw + 2 a1)
 * columns, of which [2 a0, 2 a0 + 2 th) x [2 a1, 2 a1 + 2 tw) are the tile's.
 * A convolution whose halo is deeper than the tile (cl_split_gathers) takes
 * the whole input map instead: an allgather of the tiles (`halo_gather`),
 * the convolution over the whole map, the tile's output box kept; backward
 * the output gradient in the tile's box of a zeroed whole map, and the data
 * gradient over the whole map reduce-scattered (`halo_scatter`: each rank
 * gets the group's sum of its own tile).  It runs on the host in fp32, and
 * each rank computes the whole map's convolution (the smallest maps only).
 * Every copy goes through counted kernels (rows `halo_pad`, `halo_crop`,
 * the exchange's `halo`, `halo_pack`, `halo_unpack`, sp_halo.c). */
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/networks/deepcam/cl_net_impl.h"

/* A dense [batch][c][rows][cols] map in buffer buf. */
static tview dense(const cl_net *n, void *buf, int c, int rows, int cols)
{
    return (tview){.p = buf, .n = n->batch, .c = c, .h = rows, .w = cols,
                   .sstride = (int64_t)c * rows * cols};
}

/* Rows [r0, r0 + nr) and columns [c0, c0 + nc) of view v as a t3view
 * (copy3d's views). */
static t3view box(const cl_net *n, const tview *v, int r0, int nr, int c0, int nc)
{
    int64_t plane = (int64_t)v->h * v->w;
    t3view t = {.n = v->n, .c = v->c, .d = 1, .h = nr, .w = nc, .sn = v->sstride, .sc = plane,
                .sd = plane, .sh = v->w, .sw = 1};
    t.p = v->p ? (char *)v->p + ((size_t)r0 * (size_t)v->w + (size_t)c0) * n->ops->act_bytes
               : NULL;
    return t;
}

static sp_pad pad_of(const tview *v, const int a[2])
{
    return (sp_pad){.base = v->p, .n = v->n, .C = v->c, .hp = v->h, .wp = v->w, .c0 = 0,
                    .nc = v->c, .halo_h = a[0], .halo_w = a[1]};
}

/* The padded input of a halo convolution: x in the middle of pin, the
 * neighbours' a[0] rows above and below, a[1] columns left and right and
 * the corners (sp_halo_fill). */
static tview pad_input(cl_net *n, kc_t *kc, const char *layer, const tview *x, const int a[2])
{
    tview xp = dense(n, n->pin, x->c, x->h + 2 * a[0], x->w + 2 * a[1]);
    kc_zero(kc, layer, &xp);
    t3view src = box(n, x, 0, x->h, 0, x->w), dst = box(n, &xp, a[0], x->h, a[1], x->w);
    kc_copy3d(kc, "halo_pad", layer, &src, &dst);
    sp_pad P = pad_of(&xp, a);
    sp_halo_fill(&n->xchg, kc, layer, &P);
    return xp;
}

/* The box of the padded map `from` at (r0, c0) of v's size into the tile view v. */
static void crop(cl_net *n, kc_t *kc, const char *layer, const tview *from, int r0, int c0,
                 const tview *v)
{
    t3view src = box(n, from, r0, v->h, c0, v->w), dst = box(n, v, 0, v->h, 0, v->w);
    kc_copy3d(kc, "halo_crop", layer, &src, &dst);
}

/* A zeroed padded output of rows x cols with dy at (r0, c0). */
static tview pad_grad(cl_net *n, kc_t *kc, const char *layer, const tview *dy, int rows, int cols,
                      int r0, int c0)
{
    tview yp = dense(n, n->pout, dy->c, rows, cols);
    kc_zero(kc, layer, &yp);
    t3view src = box(n, dy, 0, dy->h, 0, dy->w), dst = box(n, &yp, r0, dy->h, c0, dy->w);
    kc_copy3d(kc, "halo_pad", layer, &src, &dst);
    return yp;
}

/* The data gradient over the padded tile (in pin, xp's shape): the halo's
 * parts to the neighbours, then the own rows and columns into d. */
static void fold_out(cl_net *n, kc_t *kc, const char *layer, const tview *dxp, const int a[2],
                     const tview *d)
{
    sp_pad P = pad_of(dxp, a);
    sp_halo_fold(&n->xchg, kc, layer, &P);
    crop(n, kc, layer, dxp, a[0], a[1], d);
}

/* Tiles [rank][plane][th][tw] (tiles) to or from whole maps
 * [plane][sh th][sw tw] (whole): rank k holds tile (k / sw, k % sw). */
static void tiles_whole(const cl_net *n, float *tiles, float *whole, size_t planes, int th, int tw,
                        int to_whole)
{
    size_t tile = planes * (size_t)th * (size_t)tw, W = (size_t)tw * (size_t)n->sw,
           H = (size_t)th * (size_t)n->sh;
    for (int k = 0; k < n->S; k++)
        for (size_t q = 0; q < planes; q++)
            for (int r = 0; r < th; r++) {
                float *t = tiles + (size_t)k * tile + (q * (size_t)th + (size_t)r) * (size_t)tw;
                float *w = whole + (q * H + (size_t)(k / n->sw) * (size_t)th + (size_t)r) * W +
                           (size_t)(k % n->sw) * (size_t)tw;
                if (to_whole) memcpy(w, t, (size_t)tw * sizeof *w);
                else memcpy(t, w, (size_t)tw * sizeof *w);
            }
}

/* The group's tiles of x as one dense whole map in pin. */
static tview gather_input(cl_net *n, kc_t *kc, const char *layer, const tview *x)
{
    int S = n->S;
    tview xp = dense(n, n->pin, x->c, x->h * n->sh, x->w * n->sw);
    ktab_row *r = ktab_row_for(kc->tab, "halo_gather", layer);
    r->calls++;
    if (kc->dry || n->dry) return xp;
    CHECK(n->ops->act_bytes == 4, "the split's gathers move fp32 maps");
    size_t tile = (size_t)tview_elems(x), planes = (size_t)x->n * (size_t)x->c;
    CHECK(tile <= 0x7fffffff, "a tile of %zu elements: over MPI's int count", tile);
    float *mine = XMALLOC(tile * sizeof *mine, "gather"),
          *all = XMALLOC(tile * (size_t)S * sizeof *all, "gather"),
          *full = XMALLOC(tile * (size_t)S * sizeof *full, "gather");
    double t0 = timer_now_s();
    n->ops->get_f32(n->ctx, x, mine);
    CHECK_MPI(MPI_Allgather(mine, (int)tile, MPI_FLOAT, all, (int)tile, MPI_FLOAT,
                            n->p->group->comm));
    tiles_whole(n, all, full, planes, x->h, x->w, 1);
    n->ops->put_f32(n->ctx, &xp, full);
    if (kc->timing) r->time_s += timer_now_s() - t0;
    free(mine);
    free(all);
    free(full);
    return xp;
}

/* A data gradient over the whole map (dxp): the group's sum of this rank's
 * tile into d. */
static void scatter_grad(cl_net *n, kc_t *kc, const char *layer, const tview *dxp,
                         const tview *d)
{
    ktab_row *r = ktab_row_for(kc->tab, "halo_scatter", layer);
    r->calls++;
    if (kc->dry || n->dry) return;
    int S = n->S;
    size_t tile = (size_t)tview_elems(d), planes = (size_t)d->n * (size_t)d->c;
    float *mine = XMALLOC(tile * sizeof *mine, "scatter"),
          *all = XMALLOC(tile * (size_t)S * sizeof *all, "scatter"),
          *full = XMALLOC(tile * (size_t)S * sizeof *full, "scatter");
    double t0 = timer_now_s();
    n->ops->get_f32(n->ctx, dxp, full);
    tiles_whole(n, all, full, planes, d->h, d->w, 0);
    CHECK_MPI(MPI_Reduce_scatter_block(all, mine, (int)tile, MPI_FLOAT, MPI_SUM,
                                       n->p->group->comm));
    n->ops->put_f32(n->ctx, d, mine);
    if (kc->timing) r->time_s += timer_now_s() - t0;
    free(mine);
    free(all);
    free(full);
}

/* Whether the op takes the whole map (a halo deeper than the tile). */
static int gathers(const int a[2], const tview *x) { return a[0] > x->h || a[1] > x->w; }

void cl_split_conv_fwd(cl_net *n, kc_t *kc, const cl_op *o, const int a[2], const tview *x,
                       const void *w, const tview *y)
{
    int s = o->g.stride > 0 ? o->g.stride : 1, gather = gathers(a, x);
    tview xp = gather ? gather_input(n, kc, o->name, x) : pad_input(n, kc, o->name, x, a);
    tview yp = dense(n, n->pout, y->c, kern_dconv_out(xp.h, &o->g), kern_dconv_out(xp.w, &o->g));
    kc_dconv_fwd(kc, o->name, &xp, w, &o->g, &yp);
    if (gather) crop(n, kc, o->name, &yp, n->rh * y->h, n->rw * y->w, y);
    else crop(n, kc, o->name, &yp, a[0] / s, a[1] / s, y);
}

void cl_split_conv_bwd(cl_net *n, kc_t *kc, const cl_op *o, const int a[2], const tview *x,
                       const tview *dy, const void *w, float *dw, const tview *d)
{
    int s = o->g.stride > 0 ? o->g.stride : 1, gather = gathers(a, x);
    tview xp = gather ? gather_input(n, kc, o->name, x) : pad_input(n, kc, o->name, x, a);
    int ho = kern_dconv_out(xp.h, &o->g), wo = kern_dconv_out(xp.w, &o->g);
    tview yp = gather ? pad_grad(n, kc, o->name, dy, ho, wo, n->rh * dy->h, n->rw * dy->w)
                      : pad_grad(n, kc, o->name, dy, ho, wo, a[0] / s, a[1] / s);
    kc_dconv_bwd_weights(kc, o->name, &xp, &yp, &o->g, dw);
    if (!d) return;
    kc_dconv_bwd_data(kc, o->name, &yp, w, &o->g, &xp); /* xp's buffer now holds dx */
    if (gather) scatter_grad(n, kc, o->name, &xp, d);
    else fold_out(n, kc, o->name, &xp, a, d);
}

void cl_split_tconv_fwd(cl_net *n, kc_t *kc, const cl_op *o, const int a[2], const tview *x,
                        const void *w, const tview *y)
{
    tview xp = pad_input(n, kc, o->name, x, a);
    tview yp = dense(n, n->pout, y->c, 2 * xp.h, 2 * xp.w);
    kc_dconv_bwd_data(kc, o->name, &xp, w, &o->g, &yp);
    crop(n, kc, o->name, &yp, 2 * a[0], 2 * a[1], y);
}

void cl_split_tconv_bwd(cl_net *n, kc_t *kc, const cl_op *o, const int a[2], const tview *x,
                        const tview *dy, const void *w, float *dw, const tview *d)
{
    tview xp = pad_input(n, kc, o->name, x, a);
    tview yp = pad_grad(n, kc, o->name, dy, 2 * xp.h, 2 * xp.w, 2 * a[0], 2 * a[1]);
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
