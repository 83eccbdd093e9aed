#include "benchmarks/networks/fcdensenet/fd_halo.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"

int fd_group_open(fd_group *g, int split, MPI_Comm world, char *err, size_t errlen)
{
    int rank, size;
    CHECK_MPI(MPI_Comm_rank(world, &rank));
    CHECK_MPI(MPI_Comm_size(world, &size));
    if (split < 1 || size % split)
        return snprintf(err, errlen,
                        "--spatial %dx1: %d ranks do not form groups of %d ranks sharing each "
                        "sample",
                        split, size, split),
               -1;
    CHECK_MPI(MPI_Comm_split(world, rank / split, rank, &g->comm));
    CHECK_MPI(MPI_Comm_rank(g->comm, &g->rank));
    CHECK_MPI(MPI_Comm_size(g->comm, &g->size));
    g->up = g->rank > 0 ? g->rank - 1 : MPI_PROC_NULL;
    g->down = g->rank + 1 < g->size ? g->rank + 1 : MPI_PROC_NULL;
    return 0;
}

void fd_group_close(fd_group *g)
{
    if (g->comm != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&g->comm));
    g->comm = MPI_COMM_NULL;
}

int fd_xchg_init(fd_xchg *x, const fd_group *g, const kern_ops *ops, void *ctx, int dry,
                 int64_t max_elems, char *err, size_t errlen)
{
    *x = (fd_xchg){.g = g, .ops = ops, .ctx = ctx, .dry = dry};
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
            fd_xchg_free(x);
            return -1;
        }
    }
    return 0;
}

void fd_xchg_free(fd_xchg *x)
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

/* The neighbours above and below; a dry exchange without a group (the
 * describe step) counts as a rank in the middle of the group. */
static void nbrs(const fd_xchg *x, int nbr[2])
{
    nbr[0] = x->g ? x->g->up : 0;
    nbr[1] = x->g ? x->g->down : 0;
}

/* Rows [r0, r0 + nr) of the padded region, as a strided view. */
static t3view rows(const fd_xchg *x, const fd_pad *P, int r0, int nr)
{
    int64_t plane = (int64_t)P->hp * P->w;
    t3view v = {.n = P->n, .c = P->nc, .d = 1, .h = nr, .w = P->w, .sn = (int64_t)P->C * plane,
                .sc = plane, .sd = plane, .sh = P->w, .sw = 1};
    v.p = P->base ? (char *)P->base + ((int64_t)P->c0 * plane + (int64_t)r0 * P->w) *
                                          (int64_t)x->ops->act_bytes
                  : NULL;
    return v;
}

/* The same shape, dense, in a staging buffer. */
static t3view dense(const fd_pad *P, void *p, int nr)
{
    int64_t plane = (int64_t)nr * P->w;
    return (t3view){.p = p, .n = P->n, .c = P->nc, .d = 1, .h = nr, .w = P->w,
                    .sn = (int64_t)P->nc * plane, .sc = plane, .sd = plane, .sh = P->w, .sw = 1};
}

/* Send send_rows[s] to side s (0 above, 1 below) and receive from side s
 * into rbuf[s]; the sides without a neighbour do nothing. */
static void swap(fd_xchg *x, kc_t *kc, const char *layer, const fd_pad *P, const int send_r0[2])
{
    int nbr[2];
    nbrs(x, nbr);
    size_t bytes = (size_t)P->n * P->nc * P->halo * P->w * x->ops->act_bytes;
    CHECK(bytes <= x->cap, "halo of %zu bytes over its staging of %zu", bytes, x->cap);
    CHECK(bytes <= INT_MAX, "a halo message of %zu bytes: over MPI's int count", bytes);
    for (int s = 0; s < 2; s++) {
        if (nbr[s] == MPI_PROC_NULL) continue;
        t3view src = rows(x, P, send_r0[s], P->halo), dst = dense(P, x->stage[s], P->halo);
        kc_copy3d(kc, "halo_pack", layer, &src, &dst);
    }
    if (x->dry) return;
    double t0 = MPI_Wtime();
    MPI_Request req[4];
    int nr = 0;
    for (int s = 0; s < 2; s++) {
        if (nbr[s] == MPI_PROC_NULL) continue;
        x->ops->d2h(x->ctx, x->sbuf[s], x->stage[s], bytes);
        /* tag: the direction of travel (0 up, 1 down), so that what comes
         * from above (travelling down) is told from what comes from below */
        CHECK_MPI(MPI_Irecv(x->rbuf[s], (int)bytes, MPI_BYTE, nbr[s], 1 - s, x->g->comm, &req[nr++]));
        CHECK_MPI(MPI_Isend(x->sbuf[s], (int)bytes, MPI_BYTE, nbr[s], s, x->g->comm, &req[nr++]));
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

void fd_halo_fill(fd_xchg *x, kc_t *kc, const char *layer, const fd_pad *P)
{
    if (P->halo == 0) return; /* 1x1 kernels */
    int own = P->hp - 2 * P->halo;
    int send_r0[2] = {P->halo, own}; /* my first and my last `halo` own rows */
    swap(x, kc, layer, P, send_r0);
    int recv_r0[2] = {0, P->hp - P->halo};
    int nbr[2];
    nbrs(x, nbr);
    for (int s = 0; s < 2; s++) {
        if (nbr[s] == MPI_PROC_NULL) continue;
        t3view src = dense(P, x->stage[s], P->halo), dst = rows(x, P, recv_r0[s], P->halo);
        kc_copy3d(kc, "halo_unpack", layer, &src, &dst);
    }
}

void fd_halo_fold(fd_xchg *x, kc_t *kc, const char *layer, const fd_pad *P)
{
    if (P->halo == 0) return;
    int send_r0[2] = {0, P->hp - P->halo}; /* my halo rows: the neighbours' own */
    swap(x, kc, layer, P, send_r0);
    int add_r0[2] = {P->halo, P->hp - 2 * P->halo};
    int nbr[2];
    nbrs(x, nbr);
    for (int s = 0; s < 2; s++) {
        if (nbr[s] == MPI_PROC_NULL) continue;
        /* own rows += received: through a dense copy, which add takes */
        t3view mine = rows(x, P, add_r0[s], P->halo), acc = dense(P, x->acc[s], P->halo);
        kc_copy3d(kc, "halo_pack", layer, &mine, &acc);
        tview a = {x->acc[s], P->n, P->nc, P->halo, P->w, (int64_t)P->nc * P->halo * P->w};
        tview r = {x->stage[s], P->n, P->nc, P->halo, P->w, a.sstride};
        kc_add(kc, layer, &r, &a);
        kc_copy3d(kc, "halo_unpack", layer, &acc, &mine);
    }
}
