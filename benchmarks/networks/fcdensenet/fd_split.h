/* fd_split: the spatial split of the FC-DenseNet along H (docs/spatial.md),
 * as numbers: which rows of every layer a rank holds, whether a split fits
 * the network, and what a rank exchanges.  Pure arithmetic, no MPI; the
 * exchange itself is sp_halo.c, the tiles' computation net_pass.c.
 *
 * A group of S ranks (contiguous world ranks, the runtime's convention,
 * network.h) splits each sample into S horizontal tiles of equal height:
 * spatial rank s holds rows [s H/S, (s+1) H/S) at every level.  Equal tiles
 * at every level (every layer's height a multiple of S) keep 2x2 pooling
 * and the stride-2 transposed convolutions local (a tile's rows map to whole
 * windows), and make the mean of the tiles' losses the sample's loss.  A k x k
 * convolution needs k/2 rows of each neighbour (its halo); tiles thinner
 * than that would need rows of the neighbour's neighbour and are refused.
 * W splits work the same way (an H x W grid of tiles, rank r of a group
 * holding tile (r / sw, r % sw)); an axis that is not split needs no halo.
 *
 * A per-level plan (`spatial_plan`, one letter per level from 0, the full
 * size, to L, the bottleneck; the last letter repeats) splits levels
 * [0, K) along H and gives levels [K, L] to the group's ranks as whole
 * samples (batch / S each): after the transition down into level K an
 * all-to-all shuffle turns the H tiles of the pooled maps into whole
 * samples, and before the transition up out of level K the reverse shuffle
 * turns the maps that transition reads back into tiles; backward the same
 * two shuffles carry the data gradients the other way.  Sample levels need
 * no halos and compute no padded rows.
 *
 * defines: fd_split_of, fd_split_hw, fd_split_check, fd_split_halo_bytes,
 *          fd_plan_level, fd_layer_level, fd_split_shuffle_bytes,
 *          fd_rank_counts, fd_split_rank_counts */
#ifndef EXADL_FCDENSENET_FD_SPLIT_H
#define EXADL_FCDENSENET_FD_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/networks/fcdensenet/plan.h"

/* S = sh x sw, the ranks per sample of the plan's `spatial` (1: none; a
 * value that does not parse counts as 1: cfg_validate refuses it). */
int fd_split_of(const cfg_t *c);

/* 0 when the plan splits S ways; else -1 and one line in err naming
 * --spatial, the first layer that cannot be split and why. */
int fd_split_check(const plan_t *p, char *err, size_t errlen);

/* Bytes one spatial rank in the middle of the group (every neighbour) sends
 * in the halo exchanges of one training step per sample, for elem_bytes per
 * element: forward, the input rows (and columns) of every k x k
 * convolution; backward, the halos of its data gradients (conv_init needs
 * none); levels the plan gives whole samples exchange none.  Along H a
 * message is halo rows over the padded width (the corners), along W halo
 * columns over the own rows.  0 when S is 1. */
int64_t fd_split_halo_bytes(const plan_t *p, int elem_bytes);

/* K: the first level the plan gives whole samples (L + 1: every level split
 * along H, or no split). */
int fd_plan_level(const cfg_t *c);

/* The level a layer runs at: the k x k and 1x1 convolutions at their input's,
 * a transition down at its input's (the pooling leaves it), a transition up at
 * its output's (the shuffle before it). */
int fd_layer_level(const plan_t *p, int layer);

/* Bytes one rank sends to the other ranks of its group in the plan's
 * shuffles of one training step of `batch` samples per group (forward and
 * backward, 4 all-to-alls); 0 without a shuffle. */
int64_t fd_split_shuffle_bytes(const plan_t *p, int batch, int elem_bytes);

/* sh and sw of the plan's `spatial` (1 x 1 when it does not parse). */
void fd_split_hw(const cfg_t *c, int s[2]);

/* What one rank sends in one training step of `batch` samples per group:
 * halo bytes and messages (forward and backward; a rank in the middle of the
 * grid, or with busiest set the busiest rank: one neighbour along an axis of
 * 2 tiles), shuffle bytes and messages (S - 1 per all-to-all). */
typedef struct {
    int64_t halo_bytes, halo_msgs, shuffle_bytes, shuffle_msgs;
} fd_rank_counts;
void fd_split_rank_counts(const plan_t *p, int batch, int elem_bytes, int busiest,
                          fd_rank_counts *r);

#endif
