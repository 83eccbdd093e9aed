/* un_kern: the 3D U-Net's layers on a kernel set of the training runtime
 * (kern.h through counted.h: the reference loops or the fast oneDNN set),
 * each call a row of the step's kernel table (kernel, layer, calls, FLOPs,
 * time).
 *
 * - 3^3 convolutions: conv3d_fwd / bwd_data / bwd_weights, which are
 *   'valid': the input (forward, weights) or the output gradient (data) is
 *   copied into a padded scratch with zero faces ("halo_pack" rows) whose
 *   D faces are, split, the neighbours' planes (MPI, "halo" rows).  The data
 *   gradient of a split rank is exact for its own planes from the
 *   neighbours' dz planes, so nothing is sent back.  The padded scratch is
 *   one buffer for every layer (re-packed for the backward): no per-layer
 *   padded copies.
 * - the 1^3 classifier: conv3d with k = 1 on the views as they are.
 * - 2^3 stride-2 transposed convolutions: tap q of 8 maps each input voxel
 *   to output (2z + q_z, 2y + q_y, 2x + q_x) by its own c_in x c_out matrix,
 *   so each tap is one dense GEMM over the input voxels (dense_fwd /
 *   bwd_data / bwd_weights: 8 x 2 c_in c_out per input voxel, the host
 *   loops' count) and a strided copy into, or out of, the concatenation
 *   buffer ("gather" rows); the data gradient of taps 1-7 is added ("add").
 * - 2^3 max-pooling: pool3d_fwd / bwd on the skip slice of the
 *   concatenation buffer (a strided view); the pooling's data gradient is
 *   added to what the decoder wrote there ("add").
 * - batch norm with ReLU and the cross-entropy stay host loops (un_host.h:
 *   their statistics are summed over the split ranks, which the sets' bn
 *   kernels do not do), with rows of their own ("bn_relu_fwd", ...).
 * The sets keep weights [co][ci][k][k][k] and dense [out][in]; the
 * parameters stay in un_plan's layout (un_host.h's), converted at each step
 * (uk_weights_in, uk_grads_out), so the two paths train the same numbers.
 *
 * defines: uk_scratch_floats, uk_weights_in, uk_grads_out, uk_conv_fwd,
 *          uk_conv_bwd, uk_tconv_fwd, uk_tconv_bwd, uk_pool_fwd, uk_pool_bwd,
 *          uk_host_row, uk_table_reset */
#ifndef COSMOFLOW_UN_KERN_H
#define COSMOFLOW_UN_KERN_H

#include <stdint.h>

#include "benchmarks/cosmoflow/model/un_impl.h"

/* Floats of the one scratch the kernel path needs for batch b split S ways. */
int64_t uk_scratch_floats(const un_plan *p, int S);
/* n->wk = the parameters' convolution weights in the sets' layouts. */
void uk_weights_in(un_net *n);
/* n->grads' convolution weights = n->gk converted back. */
void uk_grads_out(un_net *n);
/* Layer l (UN_CBR or UN_LAST): z = conv(x); backward dw and (l > 0) dx
 * (overwritten) from dz. */
void uk_conv_fwd(un_net *n, int l);
void uk_conv_bwd(un_net *n, int l);
/* Layer l (UN_TCONV): a = tconv(x) into the concatenation buffer; backward
 * dw and dx (overwritten) from da. */
void uk_tconv_fwd(un_net *n, int l);
void uk_tconv_bwd(un_net *n, int l);
/* pool[lev] = maxpool(a); da += maxpool's data gradient of dpool[lev]. */
void uk_pool_fwd(un_net *n, int lev, const un_t *a);
void uk_pool_bwd(un_net *n, int lev, const un_t *a, const un_t *da);
/* A host loop's row: flops and the time since t0_s (timer_now_s). */
void uk_host_row(un_net *n, const char *kernel, const char *layer, int64_t flops, double t0_s);

/* Zero the kernel table's counts, keeping its rows (warm-up steps out of
 * the record's table). */
void uk_table_reset(un_net *n);

#endif
