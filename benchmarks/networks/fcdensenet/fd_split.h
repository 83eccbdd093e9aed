/* fd_split: the spatial split of the FC-DenseNet along H (docs/spatial.md),
 * as numbers: which rows of every layer a rank holds, whether a split fits
 * the network, and what a rank exchanges.  Pure arithmetic, no MPI; the
 * exchange itself is fd_halo.c, the tiles' computation net.c.
 *
 * A group of S ranks (contiguous world ranks, the runtime's convention,
 * network.h) splits each sample into S horizontal tiles of equal height:
 * spatial rank s holds rows [s H/S, (s+1) H/S) at every level.  Equal tiles
 * at every level (every layer's height a multiple of S) keep 2x2 pooling
 * and the stride-2 transposed convolutions local (a tile's rows map to whole
 * windows), and make the mean of the tiles' losses the sample's loss.  A k x k
 * convolution needs k/2 rows of each neighbour (its halo); tiles thinner
 * than that would need rows of the neighbour's neighbour and are refused.
 * W splits are refused for now.
 *
 * defines: fd_split_of, fd_split_check, fd_split_halo_bytes */
#ifndef EXADL_FCDENSENET_FD_SPLIT_H
#define EXADL_FCDENSENET_FD_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/networks/fcdensenet/plan.h"

/* S, the ranks per sample along H of the plan's `spatial` (1: none; a value
 * that does not parse counts as 1: cfg_validate refuses it). */
int fd_split_of(const cfg_t *c);

/* 0 when the plan splits S ways; else -1 and one line in err naming
 * --spatial, the first layer that cannot be split and why. */
int fd_split_check(const plan_t *p, char *err, size_t errlen);

/* Bytes one spatial rank in the middle of the group (two neighbours) sends
 * in the halo exchanges of one training step per sample, for elem_bytes per
 * element: forward, the input rows of every k x k convolution; backward, the
 * halo rows of its data gradients (conv_init needs none).  0 when S is 1. */
int64_t fd_split_halo_bytes(const plan_t *p, int elem_bytes);

#endif
