/* blk_spatial: cosmoflow's spatial block (docs/record.md "cosmoflow"; the
 * 3D U-Net's, "unet3d", with its own keys): the decomposition, the per-layer geometry, rank 0's halo traffic.
 * defines: splayer_t, spinfo_t, rec_spatial */
#ifndef EXADL_HARNESS_BLK_SPATIAL_H
#define EXADL_HARNESS_BLK_SPATIAL_H

#include "harness/blocks/block.h"

typedef struct {
    const char *name;
    double extent, c_in, c_out, fwd_flops;
    long long halo_in, halo_out; /* the U-Net's exchanges per sample of c_in and c_out
                                  * channels (-1: absent, CosmoFlow's scheme) */
} splayer_t;

typedef struct {
    long long split[3], ranks_per_sample, groups, size, units, halo, kernel;
    int overlap;
    long long rank0_units[3];
    double halo_bytes_per_sample, halo_messages_per_step, gather_bytes_per_sample;
    const char *network;    /* "unet3d" (docs/record.md "unet3d"), or NULL: CosmoFlow */
    double sync_allreduces_per_step, sync_bytes_per_step; /* the U-Net's batch-norm sums (NaN absent) */
    splayer_t *l;           /* conv layers, forward order */
    size_t nl;
} spinfo_t;

/* the record's spatial block; NULL: none */
static inline const spinfo_t *rec_spatial(const record_t *r) { return r->blk[BLOCK_spatial]; }

/* its derived half (der_spatial.h): the spatial model beside each scale */
block_derive_fn spatial_derive;

#endif
