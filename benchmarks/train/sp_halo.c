#include "benchmarks/train/sp_halo.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"

int sp_group_open(sp_group *g, int sh, int sw, MPI_Comm world, char *err, size_t errlen)
{
    int rank, size, split = sh * sw;
    CHECK_MPI(MPI_Comm_rank(world, &rank));
    CHECK_MPI(MPI_Comm_size(world, &size));
    if (split < 1 || size % split)
        return snprintf(err, errlen,
                        "--spatial %dx%d: %d ranks do not form groups of %d ranks sharing each "
                        "sample",
                        sh, sw, size, split),
               -1;
    CHECK_MPI(MPI_Comm_split(world, rank / split, rank, &g->comm));
    CHECK_MPI(MPI_Comm_rank(g->comm, &g->rank));
    CHECK_MPI(MPI_Comm_size(g->comm, &g->size));
    g->sh = sh, g->sw = sw;
    g->rh = g->rank / sw, g->rw = g->rank % sw;
    g->up = g->rh > 0 ? g->rank - sw : MPI_PROC_NULL;
    g->down = g->rh + 1 < sh ? g->rank + sw : MPI_PROC_NULL;
    g->left = g->rw > 0 ? g->rank - 1 : MPI_PROC_NULL;
    g->right = g->rw + 1 < sw ? g->rank + 1 : MPI_PROC_NULL;
    return 0;
}

void sp_group_close(sp_group *g)
{
    if (g->comm != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&g->comm));
    g->comm = MPI_COMM_NULL;
}

int sp_xchg_init(sp_xchg *x, const sp_group *g, const kern_ops *ops, void *ctx, int dry,
                 int64_t max_elems, char *err, size_t errlen)
{
    *x = (sp_xchg){.g = g, .ops = ops, .ctx = ctx, .dry = dry};
    x->cap = (size_t)max_elems * ops->act_bytes;
    if (dry) return 0;
    for (int s = 0; s < 2; s++) {
        x->stage[s] = ops->alloc(ctx, x->cap);
        x->acc[s] = ops->alloc(ctx, x->cap);
        x->sbuf[s] = malloc(x->cap);
        x->rbuf[s] = malloc(x->cap);
        if (!x->stage[s] || !x->acc[s] || !x->sbuf[s] || !x->rbuf[s]) {
            snprintf(err, errlen, "halo staging of 4 x %.3g GB could not be allocated",
                     (double)x->cap / 1e9);
            sp_xchg_free(x);
            return -1;
        }
    }
    return 0;
}

void sp_xchg_free(sp_xchg *x)
{
    for (int s = 0; s < 2; s++) {
        if (x->stage[s]) x->ops->release(x->ctx, x->stage[s]);
        if (x->acc[s]) x->ops->release(x->ctx, x->acc[s]);
        free(x->sbuf[s]);
        free(x->rbuf[s]);
        x->stage[s] = x->acc[s] = NULL;
        x->sbuf[s] = x->rbuf[s] = NULL;
    }
}

/* The neighbours along an axis (0: H, above and below; 1: W, left and
 * right); a dry exchange without a group (the FLOP count of --describe)
 * has both, whose copies it counts. */
static void nbrs(const sp_xchg *x, int axis, int nbr[2])
{
    nbr[0] = x->g ? (axis ? x->g->left : x->g->up) : 0;
    nbr[1] = x->g ? (axis ? x->g->right : x->g->down) : 0;
}

/* A box of the padded region: rows [r0, r0 + nr), columns [c0, c0 + ncol). */
static t3view box(const sp_xchg *x, const sp_pad *P, int r0, int nr, int col0, int ncol)
{
    int64_t plane = (int64_t)P->hp * P->wp;
    t3view v = {.n = P->n, .c = P->nc, .d = 1, .h = nr, .w = ncol, .sn = (int64_t)P->C * plane,
                .sc = plane, .sd = plane, .sh = P->wp, .sw = 1};
    v.p = P->base ? (char *)P->base + ((int64_t)P->c0 * plane + (int64_t)r0 * P->wp + col0) *
                                          (int64_t)x->ops->act_bytes
                  : NULL;
    return v;
}

/* The same shape, dense, in a staging buffer. */
static t3view dense(const sp_pad *P, void *p, int nr, int ncol)
{
    int64_t plane = (int64_t)nr * ncol;
    return (t3view){.p = p, .n = P->n, .c = P->nc, .d = 1, .h = nr, .w = ncol,
                    .sn = (int64_t)P->nc * plane, .sc = plane, .sd = plane, .sh = ncol, .sw = 1};
}

/* One axis's regions: side s (0 above / left, 1 below / right) of the
 * padded box the axis exchanges; at[s] is the first row (H) or column (W). */
typedef struct {
    int axis, at[2];
    int r0, nr, c0, nc; /* the box's other extents: along H the whole padded
                           width, along W the own rows */
    int depth;          /* halo rows or columns */
} side_t;

static t3view side_box(const sp_xchg *x, const sp_pad *P, const side_t *a, int s)
{
    return a->axis ? box(x, P, a->r0, a->nr, a->at[s], a->depth)
                   : box(x, P, a->at[s], a->depth, a->c0, a->nc);
}

static int side_rows(const side_t *a) { return a->axis ? a->nr : a->depth; }
static int side_cols(const side_t *a) { return a->axis ? a->depth : a->nc; }

/* Send region at[] of side s to that side's neighbour and receive from it
 * into staging s. */
static void swap(sp_xchg *x, kc_t *kc, const char *layer, const sp_pad *P, const side_t *a)
{
    int nbr[2];
    nbrs(x, a->axis, nbr);
    int rows = side_rows(a), cols = side_cols(a);
    size_t bytes = (size_t)P->n * P->nc * rows * cols * x->ops->act_bytes;
    CHECK(bytes <= x->cap, "halo of %zu bytes over its staging of %zu", bytes, x->cap);
    CHECK(bytes <= INT_MAX, "a halo message of %zu bytes: over MPI's int count", bytes);
    for (int s = 0; s < 2; s++) {
        if (nbr[s] == MPI_PROC_NULL) continue;
        t3view src = side_box(x, P, a, s), dst = dense(P, x->stage[s], rows, cols);
        kc_copy3d(kc, "halo_pack", layer, &src, &dst);
    }
    if (x->dry) return;
    double t0 = MPI_Wtime();
    MPI_Request req[4];
    int nr = 0;
    for (int s = 0; s < 2; s++) {
        if (nbr[s] == MPI_PROC_NULL) continue;
        x->ops->d2h(x->ctx, x->sbuf[s], x->stage[s], bytes);
        /* tag: the axis and direction of travel (0 up/left, 1 down/right),
         * so that what comes from one side is told from the other's */
        int tag_in = 2 * a->axis + 1 - s, tag_out = 2 * a->axis + s;
        CHECK_MPI(MPI_Irecv(x->rbuf[s], (int)bytes, MPI_BYTE, nbr[s], tag_in, x->g->comm,
                            &req[nr++]));
        CHECK_MPI(MPI_Isend(x->sbuf[s], (int)bytes, MPI_BYTE, nbr[s], tag_out, x->g->comm,
                            &req[nr++]));
        x->bytes += (int64_t)bytes;
        x->messages++;
    }
    CHECK_MPI(MPI_Waitall(nr, req, MPI_STATUSES_IGNORE));
    for (int s = 0; s < 2; s++)
        if (nbr[s] != MPI_PROC_NULL) x->ops->h2d(x->ctx, x->stage[s], x->rbuf[s], bytes);
    ktab_row *r = ktab_row_for(kc->tab, "halo", layer);
    r->calls++;
    r->time_s += MPI_Wtime() - t0;
}

/* The axis's geometry: along H the whole padded width, along W the own rows. */
static side_t axis_of(const sp_pad *P, int axis)
{
    side_t a = {.axis = axis};
    a.depth = axis ? P->halo_w : P->halo_h;
    a.r0 = P->halo_h, a.nr = P->hp - 2 * P->halo_h;
    a.c0 = 0, a.nc = P->wp;
    return a;
}

static int extent(const sp_pad *P, int axis) { return axis ? P->wp : P->hp; }

static void fill_axis(sp_xchg *x, kc_t *kc, const char *layer, const sp_pad *P, int axis)
{
    side_t a = axis_of(P, axis);
    if (a.depth == 0) return; /* 1x1 kernels, or the axis is not split */
    int e = extent(P, axis);
    a.at[0] = a.depth, a.at[1] = e - 2 * a.depth; /* my first and last own */
    swap(x, kc, layer, P, &a);
    int recv[2] = {0, e - a.depth};
    int nbr[2];
    nbrs(x, axis, nbr);
    for (int s = 0; s < 2; s++) {
        if (nbr[s] == MPI_PROC_NULL) continue;
        a.at[s] = recv[s];
        t3view src = dense(P, x->stage[s], side_rows(&a), side_cols(&a)), dst = side_box(x, P, &a, s);
        kc_copy3d(kc, "halo_unpack", layer, &src, &dst);
    }
}

static void fold_axis(sp_xchg *x, kc_t *kc, const char *layer, const sp_pad *P, int axis)
{
    side_t a = axis_of(P, axis);
    if (a.depth == 0) return;
    int e = extent(P, axis);
    a.at[0] = 0, a.at[1] = e - a.depth; /* my halo: the neighbours' own */
    swap(x, kc, layer, P, &a);
    int add[2] = {a.depth, e - 2 * a.depth};
    int nbr[2];
    nbrs(x, axis, nbr);
    int rows = side_rows(&a), cols = side_cols(&a);
    for (int s = 0; s < 2; s++) {
        if (nbr[s] == MPI_PROC_NULL) continue;
        /* own += received: through a dense copy, which add takes */
        a.at[s] = add[s];
        t3view mine = side_box(x, P, &a, s), acc = dense(P, x->acc[s], rows, cols);
        kc_copy3d(kc, "halo_pack", layer, &mine, &acc);
        tview av = {x->acc[s], P->n, P->nc, rows, cols, (int64_t)P->nc * rows * cols};
        tview rv = {x->stage[s], P->n, P->nc, rows, cols, av.sstride};
        kc_add(kc, layer, &rv, &av);
        kc_copy3d(kc, "halo_unpack", layer, &acc, &mine);
    }
}

void sp_halo_fill(sp_xchg *x, kc_t *kc, const char *layer, const sp_pad *P)
{
    fill_axis(x, kc, layer, P, 1); /* W over the own rows */
    fill_axis(x, kc, layer, P, 0); /* H over the padded width: the corners */
}

void sp_halo_fold(sp_xchg *x, kc_t *kc, const char *layer, const sp_pad *P)
{
    fold_axis(x, kc, layer, P, 0);
    fold_axis(x, kc, layer, P, 1);
}
