/* plan: the FC-DenseNet of a configuration as a table of parametrised layers
 * (shapes, weights, forward FLOPs, offsets in the flat parameter array), built
 * without allocating anything.  --describe prints it; net_pass.c runs it; its
 * gradient tensors are exported (plan_tensors, plan_preset_tensors) for the
 * gradient engine and the orchestration benchmark.
 *
 * defines: plan_t, plan_layer, plan_build, plan_print, plan_tensors, plan_preset_tensors */
#ifndef EXADL_FCDENSENET_PLAN_H
#define EXADL_FCDENSENET_PLAN_H

#include <stdint.h>
#include <stdio.h>

#include "benchmarks/networks/fcdensenet/config.h"
#include "benchmarks/train/gsync/gsync.h"

enum { PLAN_CONV = 1, PLAN_TCONV = 2 };

typedef struct {
    char name[40];     /* conv_init, down0.l0, td0, bottleneck.l0, tu0, up0.l0, conv_fin */
    int kind;          /* PLAN_CONV (k x k, stride 1, SAME) or PLAN_TCONV (1x1, stride 2) */
    int k;
    int c_in, c_out;
    int h_in, w_in, h_out, w_out;
    int bias;          /* has a bias vector of c_out */
    int64_t weights;   /* k*k*c_in*c_out */
    int64_t fwd_flops; /* forward conv FLOPs per sample (flops.h) */
    int64_t off_w;     /* offset of the weights in the flat parameter array */
    int64_t off_b;     /* offset of the bias, -1 without */
} plan_layer;

typedef struct {
    cfg_t cfg;
    int n;
    plan_layer *layers;     /* in forward order */
    int64_t weights, biases, params;
    int64_t fwd_conv_flops; /* per sample, conv and transposed conv */
    int overflow;           /* 1 + the first layer whose counts overflow 64 bits; 0: none */
    /* indices into layers */
    int conv_init, conv_fin, bott_first;
    int down_first[CFG_MAX_LEVELS], td[CFG_MAX_LEVELS];
    int tu[CFG_MAX_LEVELS], up_first[CFG_MAX_LEVELS];
    /* per-sample channels and sizes of the dense blocks */
    int down_c0[CFG_MAX_LEVELS], up_c0[CFG_MAX_LEVELS], bott_c0;
    int level_h[CFG_MAX_LEVELS + 1], level_w[CFG_MAX_LEVELS + 1];
    /* spatial parallelism (fd_split.h): this rank's group, set by the
     * program after plan_build for a split run; NULL: none (or a dry
     * instance: --describe) */
    const struct sp_group *group;
} plan_t;

/* Build the plan of a validated configuration (a fatal error when its counts
 * overflow: cfg_validate refuses such configurations). */
void plan_build(plan_t *p, const cfg_t *c);
/* The same for a configuration not yet known to fit: 0, or -1 with err naming
 * the layer whose weight or FLOP count overflows 64 bits (nothing to free). */
int plan_build_checked(plan_t *p, const cfg_t *c, char *err, size_t errlen);
void plan_free(plan_t *p);

/* Channels of a dense block after its l-th layer (c0 + l * growth). */
static inline int plan_block_channels(const plan_t *p, int c0, int l) { return c0 + l * p->cfg.growth; }

/* The layer table and totals (--describe).  executed_per_sample is the
 * executed FLOPs of one training step divided by the batch (from a dry step). */
void plan_print(const plan_t *p, FILE *f, int64_t executed_per_step, int batch);

/* The gradient tensors of a plan in forward order: each layer's weights
 * ("down0.l1.w"), then its bias where it has one ("conv_fin.b"), with the
 * layer, offset and elements in the flat gradient array.  Backward makes
 * them in exactly the reverse order (the gradient engine's order).  Returns
 * the count; *out is malloc'ed. */
int plan_tensors(const plan_t *p, gsync_tensor **out);

/* plan_tensors of a preset's network ("gb2019"), without building anything
 * else; *nlayers gets the layers.  -1 when the preset is unknown. */
int plan_preset_tensors(const char *preset, gsync_tensor **out, int *nlayers);

#endif
