/* fd_shuffle: the all-to-all that changes a spatial group's decomposition
 * between levels of a per-level plan (fd_split.h, docs/spatial.md): from
 * tiles of the group's whole batch (every rank: b samples, its tile of
 * H/sh x W/sw; rank r's tile is (r / sw, r % sw)) to whole samples (every
 * rank: samples [r b/S, (r+1) b/S), every row and column), and back.
 *
 * Rank r sends rank t the part of its tile that belongs to t's samples (or,
 * back, the tile of its samples that belongs to t): S blocks of
 * b/S x C x H/sh x W/sw elements, packed by the kernel set's copy3d into
 * staging, then d2h, one MPI_Alltoall of bytes on the group's communicator,
 * h2d, and unpacked.  Any kernel set works; its element type travels.
 *
 * defines: fd_shuf, fd_shuf_init, fd_shuf_free, fd_shuffle */
#ifndef EXADL_FCDENSENET_FD_SHUFFLE_H
#define EXADL_FCDENSENET_FD_SHUFFLE_H

#include <stdint.h>

#include "benchmarks/train/sp_halo.h"

typedef struct {
    const sp_group *g;   /* NULL when dry (--describe) */
    const kern_ops *ops;
    void *ctx;
    int dry, S, sh, sw, rank;
    size_t cap;          /* bytes of each staging buffer */
    void *stage[2];      /* set memory: packed send, received */
    char *sbuf, *rbuf;   /* host */
    int64_t bytes, messages; /* sent to other ranks since init */
} fd_shuf;

/* Staging for shuffles of up to max_elems elements per rank; sh x sw the
 * group's tiles (the group's own when g is given); -1 with err when out of
 * memory. */
int fd_shuf_init(fd_shuf *x, const sp_group *g, int sh, int sw, const kern_ops *ops, void *ctx,
                 int dry, int64_t max_elems, char *err, size_t errlen);
void fd_shuf_free(fd_shuf *x);

/* to_whole: tile (n = b samples, H/sh x W/sw) -> whole (n = b/S, H x W);
 * else whole -> tile.  Both views hold the same channels; the destination is
 * overwritten. */
void fd_shuffle(fd_shuf *x, kc_t *kc, const char *layer, const tview *tile, const tview *whole,
                int to_whole);

#endif
