/* un_plan: the 3D U-Net's configuration, presets and layer list (LBANN's
 * UNet3D, docs/cosmoflow.md "3D U-Net"), with exact counts: parameters
 * (convolution weights and batch norm's scale and shift) and forward FLOPs
 * per sample by flops.h's convention (2 k^3 c_in c_out per output voxel; a
 * stride-2 transposed convolution 2 * 8 * c_in * c_out per input voxel).
 *
 * Widths: LBANN's (32, 64 | 64, 128 | 128, 256 | 256, 512 | up 256, 128, 64)
 * scaled by filters / 32, so `filters 32` is LBANN's network.
 *
 * defines: un_cfg, un_layer, un_plan, un_preset, un_preset_list, un_validate,
 *          un_plan_build, un_describe, UN_LEVELS, UN_MAX_LAYERS */
#ifndef COSMOFLOW_UN_PLAN_H
#define COSMOFLOW_UN_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define UN_LEVELS 3
#define UN_MAX_LAYERS 20

typedef struct {
    char preset[16];
    int size;        /* D: the sample is D^3 voxels; divisible by 2^UN_LEVELS */
    int channels;    /* input channels */
    int classes;     /* per-voxel classes (softmax cross-entropy) */
    int filters;     /* the first convolution's filters (LBANN: 32); every width scales */
    int batch, steps;
    uint64_t seed;
    double lr;       /* SGD with momentum 0.9 */
    char spatial[32];
    int split;       /* ranks splitting D (from spatial) */
} un_cfg;

enum { UN_CBR, UN_TCONV, UN_LAST };  /* conv + BN + ReLU; transposed conv; 1^3 conv */

typedef struct {
    char name[12];
    int kind, k, ci, co;
    int ext;             /* output extent (UN_TCONV: 2 x its input's) */
    int64_t nw, nbn;     /* weights; batch norm parameters (2 co for UN_CBR) */
    int64_t off;         /* first float of its weights in the flat array (BN follows) */
    int64_t fwd_flops;   /* per sample */
} un_layer;

typedef struct {
    un_cfg cfg;
    int nlayers;
    un_layer layers[UN_MAX_LAYERS];
    int64_t conv_weights, bn_params, params, fwd_conv_flops;
} un_plan;

/* unet-tiny (16^3, filters 4) or unet128 (LBANN's: 128^3, filters 32); -1
 * if unknown. */
int un_preset(un_cfg *c, const char *name);
const char *un_preset_list(void);
/* 0, or -1 with one line naming the option in err. */
int un_validate(const un_cfg *c, char *err, size_t errlen);
/* The layer list and counts of a valid configuration. */
void un_plan_build(un_plan *p, const un_cfg *c);
/* --describe: the layer table and the totals as "name value" lines. */
void un_describe(const un_plan *p, FILE *f);

#endif
