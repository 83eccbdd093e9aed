/* spatial: the performance model of hybrid data + spatial parallelism for
 * CosmoFlow (docs/cosmoflow.md "The model"), in the style of Dryden et al.
 * (IPDPS 2019) and Oyama et al. (TPDS 2021): the step of G groups of S =
 * Sd x Sh x Sw spatial ranks is the busiest rank's compute and halo
 * exchange, plus the dense head, the feature gather, the optimizer and the
 * gradient allreduce:
 *
 *   T = max over ranks r of [ b sum_l c_l f_r + sum_l halo_r,l ]
 *       + b head + gather(S) + opt + other + allreduce(params bytes, S G)
 *
 *   c_l      one sample's time in conv block l on one rank (every kernel of
 *            the block: conv3d, bias, leaky ReLU, pool, copies), measured
 *   f_r      rank r's share of the voxels (its units / all units, per axis)
 *   halo     per exchange (forward before each conv, backward before each
 *            data gradient but the first), per phase W, H, D, per face
 *            neighbour: alpha + bytes beta, bytes = b c h (face, with the
 *            padded extents of the axes exchanged before)
 *   gather   ceil(lg S) alpha + (S-1)/S b feat beta
 *   allreduce the data-parallel model's (model.h), over all ranks
 * The 3D U-Net (msw_t.dplanes, split along D only) is the same sum with its
 * own halo (one padded plane per exchange and sample, every 3^3 layer of
 * the encoder and the decoder), its head split with the planes, no
 * gather, and its batch-norm sums (sync_s):
 *
 *   T = max_r [ b f_r (sum_l c_l + head) + sum_l m_l (b alpha + bytes_l b beta) ]
 *       + sync_n allreduce(sync_bytes / sync_n, S) + opt + other + allreduce
 * Pure arithmetic like model.c: no I/O.  spatial_input.c fills the inputs
 * from a run's records.
 *
 * defines: msw_t, msp_t, msp_rule, msp_resize, msp_halo_bytes, msp_predict,
 *          msp_splits, msp_best */
#ifndef EXADL_HARNESS_SPATIAL_H
#define EXADL_HARNESS_SPATIAL_H

#include <stddef.h>

#include "harness/model/model.h"

#define MSP_MAX_LAYERS 16

/* The workload: one sample on one rank, and the geometry. */
typedef struct {
    int nl;                       /* conv blocks */
    int ext[MSP_MAX_LAYERS];      /* global extent of block l's input */
    int cin[MSP_MAX_LAYERS], cout[MSP_MAX_LAYERS];
    double conv_s[MSP_MAX_LAYERS];/* one sample's time in block l, one rank (seconds) */
    int units;                    /* the last level's extent: the split's grain */
    int halo;                     /* kernel / 2 */
    int feat_c;                   /* channels into the dense head */
    double head_s;                /* one sample's dense head and loss */
    double opt_s;                 /* the optimizer, per step */
    double other_s;               /* the rest of a measured step (barrier, loop), per step */
    double params;                /* floats of the gradient allreduce */
    double elem_bytes;            /* bytes per activation element (4) */
    /* The 3D U-Net split along D (docs/spatial.md "The 3D U-Net's model"): dplanes 1;
     * layer l (its 3^3 convolutions, encoder and decoder) sends, per sample
     * and neighbour along D, xin[l] padded planes of c_in channels and
     * xout[l] of c_out, each (ext + 2)^2 elements, one message each; every
     * layer and the rest (head_s: transposed convolutions, pooling, the
     * classifier, the loss) split with the planes; no gather; sync_n
     * allreduces of sync_bytes in all (batch norm's and the loss's sums)
     * over the spatial ranks per step. */
    int dplanes;
    int xin[MSP_MAX_LAYERS], xout[MSP_MAX_LAYERS];
    double sync_n, sync_bytes;
} msw_t;

/* One configuration's prediction. */
typedef struct {
    int split[3], groups, batch;  /* batch: samples per group per step */
    int ranks;
    double step_s;
    double compute_s, halo_s;     /* the busiest rank's, per step */
    double head_s, gather_s, allreduce_s;
    double halo_bytes;            /* rank 0's sent bytes per step */
    double halo_msgs;             /* rank 0's messages per step (U-Net: per sample x batch) */
    double sync_s;                /* the U-Net's batch-norm and loss sums, per step */
    double samples_per_s;
} msp_t;

/* How the network grows with the sample size (the base record's config):
 * lbann 0: the same blocks, fc1's input grows with the voxels (`blocks N`);
 * lbann 1: LBANN's rule (`blocks 0`, the cosmo128/256/512 presets), blocks
 * = log2(size) - 2 with min(filters 2^i, cap) filters, so blocks are added
 * (or dropped) at the deep end and fc1's input stays. */
typedef struct {
    int lbann, filters, cap, kernel;
    double dense1;
} msp_rule;

/* The workload w of a base at size D moved to size: each kept block's
 * time x (size/D)^3; an added block's time from the deepest kept block's
 * time per FLOP (forward FLOPs ~ k^3 c_in c_out extent^3); the parameters
 * (the allreduce's bytes) and the optimizer's time with the weights added
 * or removed; the dense head with fc1's weights.  0, or -1 with one line in
 * err (a size the rule cannot reach). */
int msp_resize(msw_t *w, int D, int size, const msp_rule *r, char *err, size_t errlen);

/* Bytes rank `srank` of a split sends per sample (the benchmark's
 * cf_part_halo_bytes, rebuilt here from the record's geometry); *messages
 * gets its messages per step.  -1 when the split does not fit. */
double msp_halo_bytes(const msw_t *w, const int split[3], int srank, double *messages);

/* The prediction for split x groups at batch per group.  0, or -1 when the
 * split does not fit the units (more ranks than units along an axis, or
 * sub-volumes thinner than the halo). */
int msp_predict(const msw_t *w, const int split[3], int groups, int batch, const mnet_t *net,
                msp_t *out);

/* Every split Sd x Sh x Sw = S that fits, into s (3 ints each, at most max
 * splits); the count. */
size_t msp_splits(const msw_t *w, int S, int (*s)[3], size_t max);

/* The fastest configuration of `ranks` ranks for a global batch of
 * global_batch samples per step: over the group counts G dividing both, and
 * the splits of ranks / G that fit.  0, or -1 when none fits. */
int msp_best(const msw_t *w, int ranks, int global_batch, const mnet_t *net, msp_t *best);

#endif
