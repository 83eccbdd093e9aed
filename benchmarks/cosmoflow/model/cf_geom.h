/* cf_geom: the CosmoFlow network of a configuration as numbers (layers,
 * shapes, the flat parameter layout, exact FLOP and parameter counts) and
 * its spatial decomposition (which rank holds which sub-volume, how many
 * halo bytes each exchange moves).  Pure arithmetic: no MPI, no buffers;
 * cf_halo.c does the communication, cf_net.c the computation.
 *
 * Decomposition (docs/cosmoflow.md "Decomposition"): the ranks form groups
 * of S = Sd x Sh x Sw spatial ranks (contiguous world ranks), each group a
 * data-parallel replica.  Along each axis the D / 2^blocks "units" (the
 * voxels of the last pooled level; 2^blocks input voxels each) are dealt out
 * as evenly as possible, the first ranks taking one more when they do not
 * divide: every rank's extent at every level is then a whole number of 2x2x2
 * pooling windows (pooling on aligned partitions), and uneven splits work.
 * A split with more ranks than units along an axis, or whose thinnest
 * sub-volume is thinner than the halo (kernel / 2), is refused.
 *
 * defines: cf_layer, cf_plan, cf_part, cf_plan_build, cf_part_make,
 *          cf_part_for, cf_split_choose, cf_part_extent,
 *          cf_part_offset, cf_halo_face_elems, cf_part_halo_bytes */
#ifndef COSMOFLOW_CF_GEOM_H
#define COSMOFLOW_CF_GEOM_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/cosmoflow/model/cf_config.h"

enum { CF_CONV = 0, CF_DENSE = 1 };
#define CF_MAX_LAYERS (CF_MAX_BLOCKS + 3)

typedef struct {
    char name[16];       /* conv0 .. conv<B-1>, fc1, fc2, fc3 */
    int kind;            /* CF_CONV | CF_DENSE */
    int ci, co;          /* channels in and out (dense: features) */
    int k, halo;         /* conv: kernel (odd) and its halo k / 2; dense: 1, 0 */
    int ext;             /* conv: the global extent of its input and output */
    int64_t off_w, nw;   /* weights in the flat parameter array: [co][ci][k][k][k] or [co][ci] */
    int64_t off_b;       /* co biases right after the weights */
    int64_t fwd_flops;   /* per sample: 2 k^3 ci co ext^3, or 2 ci co */
} cf_layer;

typedef struct {
    cf_cfg cfg;
    int nlayers;         /* blocks + 3 */
    cf_layer layers[CF_MAX_LAYERS];
    int halo;            /* the largest conv layer's halo (the record's `halo`) */
    int units;           /* D / 2^blocks: the last level's extent, and the split's grain */
    int feat_c;          /* channels of the last block: filters * 2^(blocks-1) */
    int64_t flat;        /* features into fc1: feat_c * units^3 */
    int64_t params, conv_weights, dense_weights, biases;
    int64_t fwd_conv_flops, fwd_dense_flops; /* per sample */
} cf_plan;

/* One rank's part of the decomposition. */
typedef struct {
    int split[3];        /* spatial ranks along D, H, W */
    int ranks_per_sample;/* split[0] * split[1] * split[2] */
    int groups;          /* data-parallel replicas: world / ranks_per_sample */
    int group, srank;    /* this rank's group, and its rank inside the group */
    int coord[3];        /* its place in the group's grid (row-major: W fastest) */
    int units[3];        /* its units along each axis */
    int unit_off[3];     /* its first unit along each axis */
} cf_part;

/* The layers and counts of a validated configuration. */
void cf_plan_build(cf_plan *p, const cf_cfg *c);

/* The split `auto` takes for `ranks` ranks in one group: of the splits
 * Sd x Sh x Sw = ranks that the units allow, the one whose busiest rank
 * sends the fewest halo bytes per sample (ties: more splitting along D,
 * which keeps the overlap of the exchange).  0, or -1 when none fits. */
int cf_split_choose(const cf_plan *p, int ranks, int s[3]);

/* The decomposition of `rank` among `world` ranks for the plan's spatial
 * setting (auto: all ranks on one sample when it splits that many ways,
 * else the largest divisor of the ranks that it does, the others as
 * data-parallel groups).  0, or -1 with one line naming --spatial in err. */
int cf_part_make(const cf_plan *p, int world, int rank, cf_part *pt, char *err, size_t errlen);
/* The part of spatial rank `srank` of a split (group 0); no checks. */
void cf_part_for(const cf_plan *p, const int split[3], int srank, cf_part *pt);

/* Extent and global offset along axis a (0 D, 1 H, 2 W) at conv level l
 * (0 .. blocks: level `blocks` is the pooled output of the last block). */
int cf_part_extent(const cf_plan *p, const cf_part *pt, int a, int level);
int cf_part_offset(const cf_plan *p, const cf_part *pt, int a, int level);

/* Elements per channel and sample of the face sent along axis a at level l
 * (phases W, then H, then D: a face spans the interior of the axes
 * exchanged after it and the padded extent of those before it, so that
 * edges and corners travel through face neighbours). */
int64_t cf_halo_face_elems(const cf_plan *p, const cf_part *pt, int a, int level);

/* Bytes this rank sends in the halo exchanges of one step (forward before
 * each conv, backward before each data gradient), per sample of its batch,
 * for elem_bytes per element; *messages gets the messages. */
int64_t cf_part_halo_bytes(const cf_plan *p, const cf_part *pt, int elem_bytes, int64_t *messages);

#endif
