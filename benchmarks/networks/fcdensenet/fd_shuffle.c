#include "benchmarks/networks/fcdensenet/fd_shuffle.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"

int fd_shuf_init(fd_shuf *x, const sp_group *g, int sh, int sw, const kern_ops *ops, void *ctx,
                 int dry, int64_t max_elems, char *err, size_t errlen)
{
    *x = (fd_shuf){.g = g, .ops = ops, .ctx = ctx, .dry = dry, .sh = g ? g->sh : sh,
                   .sw = g ? g->sw : sw, .rank = g ? g->rank : 0};
    x->S = x->sh * x->sw;
    x->cap = (size_t)max_elems * ops->act_bytes;
    if (dry) return 0;
    x->stage[0] = ops->alloc(ctx, x->cap);
    x->stage[1] = ops->alloc(ctx, x->cap);
    x->sbuf = malloc(x->cap);
    x->rbuf = malloc(x->cap);
    if (!x->stage[0] || !x->stage[1] || !x->sbuf || !x->rbuf) {
        snprintf(err, errlen, "shuffle staging of 2 x %.3g GB could not be allocated",
                 (double)x->cap / 1e9);
        fd_shuf_free(x);
        return -1;
    }
    return 0;
}

void fd_shuf_free(fd_shuf *x)
{
    for (int s = 0; s < 2; s++) {
        if (x->stage[s]) x->ops->release(x->ctx, x->stage[s]);
        x->stage[s] = NULL;
    }
    free(x->sbuf);
    free(x->rbuf);
    x->sbuf = x->rbuf = NULL;
}

/* Block t of a tile view: its samples [t nb, (t+1) nb), every row. */
static t3view tile_block(const fd_shuf *x, const tview *t, int nb, int blk)
{
    int64_t plane = (int64_t)t->h * t->w;
    t3view v = {NULL, nb, t->c, 1, t->h, t->w, t->sstride, plane, plane, t->w, 1};
    if (t->p) v.p = (char *)t->p + (int64_t)blk * nb * t->sstride * (int64_t)x->ops->act_bytes;
    return v;
}

/* Block t of a whole-sample view: tile (t / sw, t % sw) of every sample. */
static t3view whole_block(const fd_shuf *x, const tview *w, int th, int tw, int blk)
{
    int64_t plane = (int64_t)w->h * w->w;
    t3view v = {NULL, w->n, w->c, 1, th, tw, w->sstride, plane, plane, w->w, 1};
    int64_t at = (int64_t)(blk / x->sw) * th * w->w + (int64_t)(blk % x->sw) * tw;
    if (w->p) v.p = (char *)w->p + at * (int64_t)x->ops->act_bytes;
    return v;
}

/* A block of a staging buffer, dense; base NULL when dry. */
static t3view staged(char *base, int nb, int c, int th, int w)
{
    int64_t plane = (int64_t)th * w;
    return (t3view){base, nb, c, 1, th, w, (int64_t)c * plane, plane, plane, w, 1};
}

void fd_shuffle(fd_shuf *x, kc_t *kc, const char *layer, const tview *tile, const tview *whole,
                int to_whole)
{
    int S = x->S, nb = whole->n, th = tile->h, tw = tile->w;
    CHECK(tile->n == nb * S && whole->h == th * x->sh && whole->w == tw * x->sw &&
              tile->c == whole->c,
          "shuffle of %s: tiles %dx%dx%dx%d and whole samples %dx%dx%dx%d do not match over %d "
          "ranks", layer, tile->n, tile->c, tile->h, tile->w, whole->n, whole->c, whole->h,
          whole->w, S);
    int64_t elems = (int64_t)nb * tile->c * th * tw;
    size_t esz = x->ops->act_bytes, bytes = (size_t)elems * esz;
    CHECK(bytes * (size_t)S <= x->cap, "shuffle of %zu bytes over its staging of %zu",
          bytes * (size_t)S, x->cap);
    CHECK(bytes <= INT_MAX, "a shuffle block of %zu bytes: over MPI's int count", bytes);
    for (int t = 0; t < S; t++) {
        t3view src = to_whole ? tile_block(x, tile, nb, t) : whole_block(x, whole, th, tw, t);
        char *at = x->stage[0] ? (char *)x->stage[0] + (size_t)t * bytes : NULL;
        t3view dst = staged(at, nb, tile->c, th, tile->w);
        kc_copy3d(kc, "shuffle_pack", layer, &src, &dst);
    }
    if (!x->dry) {
        double t0 = MPI_Wtime();
        x->ops->d2h(x->ctx, x->sbuf, x->stage[0], bytes * (size_t)S);
        CHECK_MPI(MPI_Alltoall(x->sbuf, (int)bytes, MPI_BYTE, x->rbuf, (int)bytes, MPI_BYTE,
                               x->g->comm));
        x->ops->h2d(x->ctx, x->stage[1], x->rbuf, bytes * (size_t)S);
        ktab_row *r = ktab_row_for(kc->tab, "shuffle", layer);
        r->calls++;
        r->time_s += MPI_Wtime() - t0;
    }
    x->bytes += (int64_t)bytes * (S - 1);
    x->messages += S - 1;
    for (int u = 0; u < S; u++) {
        char *at = x->stage[1] ? (char *)x->stage[1] + (size_t)u * bytes : NULL;
        t3view src = staged(at, nb, tile->c, th, tile->w);
        t3view dst = to_whole ? whole_block(x, whole, th, tw, u) : tile_block(x, tile, nb, u);
        kc_copy3d(kc, "shuffle_unpack", layer, &src, &dst);
    }
}
