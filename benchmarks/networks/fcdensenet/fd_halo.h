/* fd_halo: the communication of the FC-DenseNet's H split (fd_split.h,
 * docs/spatial.md): the spatial group's neighbours and the two exchanges of
 * a halo-padded activation.
 *
 * A padded buffer is [n][C][hp][wp] with hp = tile rows + 2 halo_h and
 * wp = tile columns + 2 halo_w (halo_h 0 when H is not split, halo_w 0 when
 * W is not): rows [halo_h, hp - halo_h) are the rank's own, rows [0, halo_h)
 * a copy of the rank above's last rows, rows [hp - halo_h, hp) of the rank
 * below's first rows, and the same for columns with the ranks left and right
 * (zeros at the sample's edges: SAME padding).
 *   fill  (forward): first along W, the own rows' first and last halo_w own
 *         columns to the ranks left and right, theirs into my halo columns;
 *         then along H, my first and last halo_h own rows over the whole
 *         padded width (which carries the corners, the diagonal neighbours'
 *         rows, without a message to them);
 *   fold  (backward): a data gradient computed on the padded rows has parts
 *         in the halo rows and columns that belong to the neighbours' own:
 *         the reverse, H first over the whole padded width, then W over the
 *         own rows; what the neighbours send is added into my first and last
 *         own rows and columns.
 * Rows travel through the kernel set's copy3d into staging (d2h, MPI, h2d),
 * so that any set works; messages are bytes of the set's element type.
 * MPI calls come from the main thread only, on the group's own communicator.
 *
 * defines: fd_group, fd_group_open, fd_group_close, fd_xchg, fd_xchg_init,
 *          fd_xchg_free, fd_pad, fd_halo_fill, fd_halo_fold */
#ifndef EXADL_FCDENSENET_FD_HALO_H
#define EXADL_FCDENSENET_FD_HALO_H

#include <mpi.h>
#include <stdint.h>

#include "benchmarks/train/counted.h"
#include "benchmarks/train/kernels/kern.h"

typedef struct fd_group {
    MPI_Comm comm;       /* the S = sh x sw ranks sharing this rank's samples */
    int size, rank;      /* S and this rank's tile (0: the top left; row-major) */
    int sh, sw;          /* tiles along H and W */
    int rh, rw;          /* this rank's tile row and column */
    int up, down;        /* neighbours (MPI_PROC_NULL at the edges) */
    int left, right;
} fd_group;

/* Groups of sh x sw contiguous ranks of world (collective over world), rank
 * r of a group holding tile (r / sw, r % sw).  0, or -1 with err when the
 * ranks do not form whole groups. */
int fd_group_open(fd_group *g, int sh, int sw, MPI_Comm world, char *err, size_t errlen);
void fd_group_close(fd_group *g);

/* The rows of channels [c0, c0 + nc) of a padded buffer. */
typedef struct {
    void *base;          /* the buffer (sample 0, channel 0, row 0) */
    int n, C, hp, wp;    /* its samples, channels, padded rows and columns */
    int c0, nc;          /* the channels exchanged */
    int halo_h, halo_w;  /* halo rows and columns (0: that axis is not split) */
} fd_pad;

typedef struct {
    const fd_group *g;
    const kern_ops *ops;
    void *ctx;
    int dry;             /* count kernels only: no transfers, no MPI */
    size_t cap;          /* bytes of each staging buffer */
    void *stage[2], *acc[2]; /* set memory: above, below */
    char *sbuf[2], *rbuf[2]; /* host */
    int64_t bytes, messages; /* sent since init */
} fd_xchg;

/* Staging for regions of up to max_elems elements; -1 with err when out of
 * memory. */
int fd_xchg_init(fd_xchg *x, const fd_group *g, const kern_ops *ops, void *ctx, int dry,
                 int64_t max_elems, char *err, size_t errlen);
void fd_xchg_free(fd_xchg *x);

void fd_halo_fill(fd_xchg *x, kc_t *kc, const char *layer, const fd_pad *P);
void fd_halo_fold(fd_xchg *x, kc_t *kc, const char *layer, const fd_pad *P);

#endif
