/* sp_halo: the communication of a 2D network's spatial split (docs/spatial.md:
 * the FC-DenseNet's, fcdensenet/fd_split.h, and the climate network's,
 * deepcam/cl_split.h; here in the runtime so that both networks share it):
 * the spatial group's neighbours and the two exchanges of a halo-padded
 * activation.
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
 * defines: sp_group, sp_group_open, sp_group_close, sp_xchg, sp_xchg_init,
 *          sp_xchg_free, sp_pad, sp_halo_fill, sp_halo_fold */
#ifndef EXADL_TRAIN_SP_HALO_H
#define EXADL_TRAIN_SP_HALO_H

#include <mpi.h>
#include <stdint.h>

#include "benchmarks/train/counted.h"
#include "benchmarks/train/kernels/kern.h"

typedef struct sp_group {
    MPI_Comm comm;       /* the S = sh x sw ranks sharing this rank's samples */
    int size, rank;      /* S and this rank's tile (0: the top left; row-major) */
    int sh, sw;          /* tiles along H and W */
    int rh, rw;          /* this rank's tile row and column */
    int up, down;        /* neighbours (MPI_PROC_NULL at the edges) */
    int left, right;
} sp_group;

/* Groups of sh x sw contiguous ranks of world (collective over world), rank
 * r of a group holding tile (r / sw, r % sw).  0, or -1 with err when the
 * ranks do not form whole groups. */
int sp_group_open(sp_group *g, int sh, int sw, MPI_Comm world, char *err, size_t errlen);
void sp_group_close(sp_group *g);

/* The rows of channels [c0, c0 + nc) of a padded buffer. */
typedef struct {
    void *base;          /* the buffer (sample 0, channel 0, row 0) */
    int n, C, hp, wp;    /* its samples, channels, padded rows and columns */
    int c0, nc;          /* the channels exchanged */
    int halo_h, halo_w;  /* halo rows and columns (0: that axis is not split) */
} sp_pad;

typedef struct {
    const sp_group *g;
    const kern_ops *ops;
    void *ctx;
    int dry;             /* count kernels only: no transfers, no MPI */
    size_t cap;          /* bytes of each staging buffer */
    void *stage[2], *acc[2]; /* set memory: above, below */
    char *sbuf[2], *rbuf[2]; /* host */
    int64_t bytes, messages; /* sent since init */
} sp_xchg;

/* Staging for regions of up to max_elems elements; -1 with err when out of
 * memory. */
int sp_xchg_init(sp_xchg *x, const sp_group *g, const kern_ops *ops, void *ctx, int dry,
                 int64_t max_elems, char *err, size_t errlen);
void sp_xchg_free(sp_xchg *x);

void sp_halo_fill(sp_xchg *x, kc_t *kc, const char *layer, const sp_pad *P);
void sp_halo_fold(sp_xchg *x, kc_t *kc, const char *layer, const sp_pad *P);

#endif
