/* cl_split: the climate network's spatial split over an H x W grid of
 * tiles (climate --spatial HxW, N alone Nx1; docs/spatial.md "The climate
 * network"), as numbers: which tensors are
 * tiled, the halo rows each convolution needs, whether a split fits the
 * network, and what a rank exchanges.  Pure arithmetic, no MPI; the
 * exchange is the runtime's sp_halo.c, the tiles' computation
 * cl_split_pass.c.
 *
 * A group of N = sh x sw ranks (contiguous world ranks, network.h's
 * replica_ranks) splits each sample into sh x sw tiles of equal size at every
 * level: spatial rank r holds tile (r / sw, r % sw) (sp_halo.h), rows
 * [rh H/sh, (rh+1) H/sh) and columns [rw W/sw, (rw+1) W/sw) of every map.
 * The image-pool branch's 1x1 maps (pooled over the whole image) are not
 * tiled: every rank of the group holds them whole ("whole" tensors).
 *
 * A convolution's halo, along each split axis (the kernels are square):
 * with taps at offsets -pad + t dil (t = 0..k-1), the rows (columns) it reads
 * of the neighbours reach the largest |offset| below the level's height H
 * (width W) (an offset of H or more never reaches a row of the sample:
 * an atrous rate as large as the map is a 1x1 convolution there), rounded up
 * to a multiple of the stride (so that the padded tile's output rows align
 * with the tile's own); a 1x1 convolution, strided or not, needs none.  The
 * 3x3 stride-2 transposed convolutions read one row (column) beyond (halo
 * 1).  A tile thinner (narrower) than its halo would need the neighbour's neighbour: such a
 * convolution (the exit flow's and ASPP's atrous ones at the smallest maps)
 * gathers its whole input instead (an allgather over the group; its data
 * gradient a reduce-scatter), computes the tile's output rows from it and
 * counts the gather's bytes as its halo's.
 *
 * defines: cl_split_grid, cl_split_of, cl_split_whole, cl_split_halo, cl_split_check,
 *          cl_split_halo_bytes, cl_split_halo_ops, cl_split_gathers */
#ifndef CLIMATE_CL_SPLIT_H
#define CLIMATE_CL_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/networks/deepcam/cl_plan.h"

/* The grid: s[0] tiles along H, s[1] along W (1 x 1: no split). */
void cl_split_grid(const cl_plan *p, int s[2]);

/* N = s[0] s[1], the ranks per sample (1: no split). */
int cl_split_of(const cl_plan *p);

/* whole[t] = 1 for the tensors every rank holds whole (the image-pool
 * branch's 1x1 maps: from the pooling's output to the broadcast's input). */
void cl_split_whole(const cl_plan *p, char *whole);

/* Halo rows (axis 0) or columns (axis 1) of op i (a convolution or
 * transposed convolution) on grid s; 0: that axis is not split, or the op
 * needs none along it (1x1 kernels, rates >= the map's extent). */
int cl_split_halo(const cl_plan *p, int i, const int s[2], int axis);

/* Whether op i's halo is deeper than its input's tile along H or W: it
 * gathers. */
int cl_split_gathers(const cl_plan *p, int i, const int s[2]);

/* 0 when the plan splits on grid s; else -1 and one line in err naming
 * --spatial (as `text`), the first layer that cannot be split, its height
 * or width and why. */
int cl_split_check(const cl_plan *p, const int s[2], const char *text, char *err,
                   size_t errlen);

/* Bytes the busiest rank of a group (a middle tile: two neighbours along an
 * axis split 3 ways or more, one along an axis split 2 ways) sends in the
 * halo exchanges of one training step of `batch` samples per group, for
 * elem_bytes per element: per convolution with a halo, forward the fill
 * of its input's halo (along W the own rows, along H the whole padded width,
 * corners included), backward the same fill again (the padded input is
 * rebuilt, not kept) and the fold of its data gradient (none for the
 * network's input); a gathering convolution sends its tile to the N - 1
 * others twice (the allgathers) and the others' parts of its data gradient
 * (the reduce-scatter); 0 when N is 1.  *messages (may be NULL): their count. */
int64_t cl_split_halo_bytes(const cl_plan *p, const int s[2], int batch, int elem_bytes,
                            int64_t *messages);

/* The number of convolutions with a halo on grid s. */
int cl_split_halo_ops(const cl_plan *p, const int s[2]);

#endif
