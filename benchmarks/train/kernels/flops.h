/* flops: the FLOP formula of every kernel of kern.h, in one place, shared by the
 * CPU and CUDA paths.  Each formula counts the floating-point operations the
 * reference kernel performs (tests/unit/test_train_flops.c checks each against an
 * instrumented reference loop that counts its own operations).
 *
 * Counting rule: one FLOP for each add, subtract, multiply, divide, square
 * root, absolute value, maximum or compare-and-select on floating-point data.
 * A fused multiply-add counts 2.  Copies, zeroing and index arithmetic count 0.
 * Per-call scalar set-up (Adam's bias corrections, a loss's 1/count) counts 0.
 *
 * All counts are for the whole call (n samples), in 64-bit integers. */
#ifndef EXADL_TRAIN_FLOPS_H
#define EXADL_TRAIN_FLOPS_H

#include <stdint.h>

/* k x k convolution, stride 1, SAME padding (zero taps are multiplied too):
 * 2 * k*k * c_in * c_out * h * w per sample.  The same count holds for the
 * data gradient (dx += W^T dy) and the weight gradient (dw = sum dy x). */
int64_t flops_conv_fwd(int64_t n, int64_t c_in, int64_t c_out, int64_t k, int64_t h, int64_t w);
int64_t flops_conv_bwd_data(int64_t n, int64_t c_in, int64_t c_out, int64_t k, int64_t h, int64_t w);
int64_t flops_conv_bwd_weights(int64_t n, int64_t c_in, int64_t c_out, int64_t k, int64_t h,
                               int64_t w);

/* 1x1 transposed convolution, stride 2, on an h_in x w_in input:
 * 2 * c_in * c_out * h_in * w_in per sample (the odd output positions receive
 * only the bias, or zero, and cost nothing).  Same for both gradients. */
int64_t flops_tconv_fwd(int64_t n, int64_t c_in, int64_t c_out, int64_t h_in, int64_t w_in);
int64_t flops_tconv_bwd_data(int64_t n, int64_t c_in, int64_t c_out, int64_t h_in, int64_t w_in);
int64_t flops_tconv_bwd_weights(int64_t n, int64_t c_in, int64_t c_out, int64_t h_in,
                                int64_t w_in);

/* bias: y += b, 1 per element; db = sum over n, h, w of dy, 1 per element. */
int64_t flops_bias_fwd(int64_t elems);
int64_t flops_bias_bwd(int64_t elems);

/* relu: y = max(x, 0), 1 per element; backward dx += (x > 0 ? dy : 0):
 * a compare-and-select and an add, 2 per element. */
int64_t flops_relu_fwd(int64_t elems);
int64_t flops_relu_bwd(int64_t elems);

/* 2x2 average pooling, stride 2: forward 3 adds + 1 multiply by 0.25 per
 * output; backward dx = 0.25 * dy, 1 multiply per input element (4 per
 * output).  Counts are per call with out_elems = n * c * h_out * w_out. */
int64_t flops_pool_fwd(int64_t out_elems);
int64_t flops_pool_bwd(int64_t out_elems);

/* L1 loss, mean over elements: forward d = y - t, |d|, sum += : 3 per element,
 * plus 1 multiply by 1/count; backward d = y - t and a select of +-1/count or
 * 0: 2 per element. */
int64_t flops_l1_fwd(int64_t elems);
int64_t flops_l1_bwd(int64_t elems);

/* Adam, per parameter: g *= scale (1); m = b1 m + (1 - b1) g (3);
 * v = b2 v + (1 - b2) g g (4); w -= lr_t m / (sqrt(v) + eps_t) (5): 13. */
int64_t flops_adam(int64_t params);
/* SGD with momentum (optim.c, Keras' form): g s, mu v, lr g, v = .. - .., w += v: 5. */
int64_t flops_sgd(int64_t params);

/* Lion, per parameter: g *= scale (1); c = b1 m + (1 - b1) g (3); sign(c), a
 * compare-and-select (1); w -= lr (u + wd w) (4); m = b2 m + (1 - b2) g (3): 12.
 * lion_sign: scale, c, sign, m: 8 (the bit packing is integer work).
 * lion_apply: w -= lr (u + wd w): 4, plus 1 multiply by 1/nranks to turn a
 * p-bit count into the mean sign (p > 1): 5.  Votes and field sums are
 * integer operations: 0. */
int64_t flops_lion(int64_t params);
int64_t flops_lion_sign(int64_t params);
int64_t flops_lion_apply(int64_t params, int p);

/* Skip-connection gradient: dst += src, 1 per element.  Copies count 0. */
int64_t flops_add(int64_t elems);

/* ---- 3D kernels (cosmoflow) ------------------------------------------------
 * k x k x k valid convolution: 2 * k^3 * c_in * c_out per output voxel of the
 * convolution (voxels = n * d * h * w of y for fwd, of dx for the data
 * gradient, of dy for the weight gradient: the same count for all three
 * when they belong to one layer). */
int64_t flops_conv3d(int64_t voxels, int64_t c_in, int64_t c_out, int64_t k);
/* 2x2x2 max pooling: the maximum of 8 values is 7 compares per output
 * element, forward and backward (which recomputes it; the routing is a
 * copy).  out_elems = n * c * d * h * w of the pooled tensor. */
int64_t flops_pool3d_fwd(int64_t out_elems);
int64_t flops_pool3d_bwd(int64_t out_elems);
/* Leaky ReLU: a multiply by the slope and a compare-and-select, 2 per
 * element, forward and backward. */
int64_t flops_lrelu_fwd(int64_t elems);
int64_t flops_lrelu_bwd(int64_t elems);
/* Bias on a 3D view: 1 per element each way (as flops_bias_*). */
int64_t flops_bias3d_fwd(int64_t elems);
int64_t flops_bias3d_bwd(int64_t elems);
/* Dense layer: 2 * n * in * out for the output, the data and the weight
 * gradient alike. */
int64_t flops_dense(int64_t n, int64_t in, int64_t out);
/* Locally connected layer (npos dense layers of their own weights): npos x
 * dense's, for each of its three kernels. */
int64_t flops_lc(int64_t npos, int64_t n, int64_t in, int64_t out);
/* Mean squared error: forward d = y - t, d * d, sum += : 3 per element, plus
 * 1 multiply by 1/count; backward (y - t) * (2/count): 2 per element. */
int64_t flops_mse_fwd(int64_t elems);
int64_t flops_mse_bwd(int64_t elems);

/* ---- segmentation kernels (climate) ----------------------------------------
 * Dilated convolution: 2 * k*k * c_in * c_out per output pixel (h_out x
 * w_out of the forward's output), c_in the input channels of one group
 * (all of them without groups, 1 for a depthwise convolution), padding
 * taps multiplied like any other;
 * the same count for the data gradient (every output pixel and tap, as the
 * forward) and the weight gradient. */
int64_t flops_dconv(int64_t n, int64_t c_in, int64_t c_out, int64_t k, int64_t h_out,
                    int64_t w_out);
/* Batch norm forward (elems = n*c*h*w, c channels): sum for the mean (1),
 * (x - mean)^2 summed (3), y = (x - mean) * rstd * gamma + beta (4): 8 per
 * element; per channel the two multiplies by 1/count and rstd = 1 /
 * sqrt(var + eps) (3): 5.  Backward: xhat (2), dbeta += dy (1), dgamma +=
 * dy xhat (2), then xhat again (2) and dx = k (dy - mean_dy - xhat mean_dyxhat)
 * (4): 11 per element; per channel rstd (3), k = gamma rstd (1) and two
 * multiplies by 1/count: 6. */
int64_t flops_bn_fwd(int64_t elems, int64_t c);
int64_t flops_bn_bwd(int64_t elems, int64_t c);
/* Weighted cross-entropy over C classes, per pixel; exp and log count 1 each
 * (as a square root does).  Forward: the maximum (C - 1 compares), C times
 * exp(z - max) summed (3 C), lse = max + log(sum) (2), lse - z_y (1),
 * loss += w_y * that (2): 4 C + 4; plus 1 multiply by 1/P per call.
 * Backward: the maximum and the sum again (4 C - 1), k = w_y / P (1), per
 * class p = exp(z - max) / sum (3), times k (1), and minus k for the
 * label's class (1 per pixel): 8 C + 1. */
int64_t flops_wce_fwd(int64_t pixels, int64_t classes);
int64_t flops_wce_bwd(int64_t pixels, int64_t classes);
/* gpool: h w adds and 1 multiply by the scale per (sample, channel):
 * n c (h w + 1).  bcast: 1 multiply per output element. */
int64_t flops_gpool(int64_t nc, int64_t hw);
int64_t flops_bcast(int64_t elems);

#endif
