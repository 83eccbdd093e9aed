/* cf_host: the CosmoFlow layers the kernel sets (kern.h) do not have, as
 * host loops over fp32 memory: the MLPerf recipe's dropout and scaled tanh
 * (docs/cosmoflow.md "Recipes") and 2^3 average pooling (the `pool` key).
 * cf_validate keeps them on the cpu backend in fp32, where the sets'
 * buffers are host memory.  Each adds a row to the kernel table with its
 * formula's FLOPs (counted also in dry mode) and its time.
 *
 * defines: cf_dropout_fwd, cf_dropout_bwd, cf_tanh_fwd, cf_tanh_bwd,
 *          cf_avgpool_fwd, cf_avgpool_bwd */
#ifndef COSMOFLOW_CF_HOST_H
#define COSMOFLOW_CF_HOST_H

#include "benchmarks/cosmoflow/model/cf_net.h"

/* Inverted dropout of dense layer L's output y [batch][co] in place: units
 * kept with probability 1 - rate, scaled by 1 / (1 - rate) (Keras'
 * Dropout); the mask, from (seed, forward pass, group, layer), goes to
 * mask, so the spatial ranks of a group drop the same units.  1 FLOP per
 * element; backward dy *= mask, 1 per element. */
void cf_dropout_fwd(cf_net *n, kc_t *kc, const cf_layer *L, void *y, float *mask);
void cf_dropout_bwd(cf_net *n, kc_t *kc, const cf_layer *L, void *dy, const float *mask);

/* out = s tanh(out) (2 FLOPs: tanh as 1, the scale); backward
 * dout *= s - out^2 / s (4). */
void cf_tanh_fwd(cf_net *n, kc_t *kc, void *out);
void cf_tanh_bwd(cf_net *n, kc_t *kc, const void *out, void *dout);

/* 2x2x2 average pooling, stride 2, of views (x exactly twice y in d, h,
 * w): y = the mean of its window (8 FLOPs per output: 7 adds, 1 scale);
 * backward dx = dy / 8 in each of the window's voxels (1 per output). */
void cf_avgpool_fwd(cf_net *n, kc_t *kc, const char *layer, const t3view *x, const t3view *y);
void cf_avgpool_bwd(cf_net *n, kc_t *kc, const char *layer, const t3view *dy, const t3view *dx);

#endif
