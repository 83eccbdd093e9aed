/* cl_plan: DeepCAM's DeepLabv3+ (docs/climate.md "The network") as a list of
 * operations over tensors, built from a configuration before anything is
 * allocated: the layer list, the flat parameter array's layout and the exact
 * counts --describe prints (parameters, forward convolution FLOPs per
 * sample).  cl_net_pass.c runs the list forward and backward.
 *
 * Tensors are NCHW maps of the batch; a tensor may be a window of channels
 * of another (parent >= 0): the concatenations of ASPP and of the decoder
 * are written in place by the operations that make their parts.
 *
 * defines: cl_plan, cl_tensor, cl_op, cl_opkind, cl_plan_build, cl_plan_free,
 *   cl_plan_print */
#ifndef CLIMATE_CL_PLAN_H
#define CLIMATE_CL_PLAN_H

#include <stdint.h>
#include <stdio.h>

#include "benchmarks/networks/deepcam/cl_config.h"
#include "benchmarks/train/kernels/kern.h"

typedef enum {
    CL_CONV,   /* y = dconv(x, w) (+ bias): a convolution, dilated, strided or depthwise */
    CL_TCONV,  /* y = the 3x3 stride-2 transposed convolution of x (dconv_bwd_data) */
    CL_BN,     /* batch norm, train mode, this rank's statistics */
    CL_AFFINE, /* y = gamma x + beta per channel (the image-pool branch, 1x1 maps) */
    CL_RELU,   /* y = max(x, 0) */
    CL_ADD,    /* y = x + x2 (the residual sums) */
    CL_GPOOL,  /* y = the mean of x over the map (image-level pooling) */
    CL_BCAST,  /* y = x at every pixel of y's map */
} cl_opkind;

typedef struct {
    int c, h, w;
    int parent, ch0;  /* a window of channels [ch0, ch0 + c) of tensor parent; or -1 */
    int consumers;    /* operations reading it (a window: its parent's) */
    int accumulate;   /* its gradient is summed from several places: zeroed first */
} cl_tensor;

typedef struct {
    char name[40];    /* the layer column: "block4.sep1.dw", "aspp2.bn" */
    cl_opkind kind;
    int in, in2, out; /* tensor ids (in2: CL_ADD only) */
    kern_dconv g;     /* CL_CONV, CL_TCONV (the convolution it transposes) */
    int bias;         /* CL_CONV: a bias follows the weights */
    int layer;        /* parameter layer id (backward order of ready()), or -1 */
    int64_t off, count; /* the layer's floats in the flat parameter array */
    int64_t fwd_flops;  /* CL_CONV, CL_TCONV: forward FLOPs per sample */
} cl_op;

struct cl_bnsync;
struct sp_group;

typedef struct {
    cl_cfg cfg;
    struct cl_bnsync *bn;   /* --bn sync: the statistics group (cl_bnsync.h); NULL: local */
    struct sp_group *group; /* --spatial HxW, H W > 1: the ranks sharing this rank's samples
                               (sp_halo.h, cl_split.h); NULL: no split, or a dry count */
    cl_tensor *t;
    int nt, capt;
    cl_op *op;
    int nop, capop;
    int input, logits, low; /* tensor ids: the fields, the class scores, the low-level skip */
    int layers;             /* parameter layers */
    int *layer_op;          /* [layers]: the op of each layer id */
    int64_t params, conv_weights, fwd_conv_flops;
    int convs;              /* convolutions (transposed ones included) */
    int64_t eval_samples;   /* the synthetic validation split (cl_network.c generate_eval):
                               samples of a seed of their own; 0 (cl_plan_build): none */
} cl_plan;

/* Build the plan of a validated configuration (the counts are checked with
 * count.h: an overflow stops the program with a clear error). */
void cl_plan_build(cl_plan *p, const cl_cfg *c);
void cl_plan_free(cl_plan *p);
/* --bn sync (cl_bnsync.h), per step and rank: the reductions (one forward,
 * one backward per batch norm) and their payload, (2 c + 1) doubles each. */
int64_t cl_plan_bnsync_reductions(const cl_plan *p);
int64_t cl_plan_bnsync_bytes(const cl_plan *p);

/* --describe: the layer table and the totals, "name  value" lines that
 * exadl check reads (forward_conv_flops_per_sample, parameters, ...);
 * executed_per_step from a dry step (0: not printed). */
void cl_plan_print(const cl_plan *p, FILE *f, int64_t executed_per_step, int batch);

#endif
