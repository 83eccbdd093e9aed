/* cl_split: the climate network's spatial split along H (climate --spatial
 * N, docs/spatial.md "The climate network"), as numbers: which tensors are
 * tiled, the halo rows each convolution needs, whether a split fits the
 * network, and what a rank exchanges.  Pure arithmetic, no MPI; the
 * exchange is the runtime's sp_halo.c, the tiles' computation
 * cl_split_pass.c.
 *
 * A group of N ranks (contiguous world ranks, network.h's replica_ranks)
 * splits each sample into N horizontal tiles of equal height at every level:
 * spatial rank s holds rows [s H/N, (s+1) H/N) of every map of height H.
 * The image-pool branch's 1x1 maps (pooled over the whole image) are not
 * tiled: every rank of the group holds them whole ("whole" tensors).
 *
 * A convolution's halo: with taps at row offsets -pad + t dil (t = 0..k-1),
 * the rows it reads of the neighbours reach the largest |offset| below the
 * level's height H (an offset of H or more never reaches a row of the sample:
 * an atrous rate as large as the map is a 1x1 convolution there), rounded up
 * to a multiple of the stride (so that the padded tile's output rows align
 * with the tile's own); a 1x1 convolution, strided or not, needs none.  The
 * 3x3 stride-2 transposed convolutions read one row below (halo 1).  A tile
 * thinner than its halo would need the neighbour's neighbour: such a
 * convolution (the exit flow's and ASPP's atrous ones at the smallest maps)
 * gathers its whole input instead (an allgather over the group; its data
 * gradient a reduce-scatter), computes the tile's output rows from it and
 * counts the gather's bytes as its halo's.
 *
 * defines: cl_split_of, cl_split_whole, cl_split_halo, cl_split_check,
 *          cl_split_halo_bytes, cl_split_halo_ops, cl_split_gathers */
#ifndef CLIMATE_CL_SPLIT_H
#define CLIMATE_CL_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/networks/deepcam/cl_plan.h"

/* N, the ranks per sample (1: no split). */
int cl_split_of(const cl_plan *p);

/* whole[t] = 1 for the tensors every rank holds whole (the image-pool
 * branch's 1x1 maps: from the pooling's output to the broadcast's input). */
void cl_split_whole(const cl_plan *p, char *whole);

/* Halo rows of op i (a convolution or transposed convolution) split N ways;
 * 0: the op runs on the tile as it is (N 1, 1x1 kernels, rates >= H). */
int cl_split_halo(const cl_plan *p, int i, int N);

/* Whether op i's halo is deeper than its input's tile: it gathers. */
int cl_split_gathers(const cl_plan *p, int i, int N);

/* 0 when the plan splits N ways; else -1 and one line in err naming
 * --spatial, the first layer that cannot be split, its height and why. */
int cl_split_check(const cl_plan *p, int N, char *err, size_t errlen);

/* Bytes the busiest rank of a group (two neighbours, one in a group of 2) sends in the
 * halo exchanges of one training step of `batch` samples per group, for
 * elem_bytes per element: per convolution with a halo, forward the fill
 * of its input's halo rows, backward the same fill again (the padded input
 * is rebuilt, not kept) and the fold of its data gradient (none for the
 * network's input); a gathering convolution sends its tile to the N - 1
 * others twice (the allgathers) and the others' parts of its data gradient
 * (the reduce-scatter); 0 when N is 1.  *messages (may be NULL): their count. */
int64_t cl_split_halo_bytes(const cl_plan *p, int N, int batch, int elem_bytes,
                            int64_t *messages);

/* The number of convolutions with a halo at N. */
int cl_split_halo_ops(const cl_plan *p, int N);

#endif
