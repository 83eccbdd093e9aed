/* kern_fast_conv: the k x k convolutions (k > 1, stride 1, SAME padding) of
 * the fast CPU kernel set, on oneDNN's direct convolutions, and the cache of
 * their primitives in the context.  1x1 kernels are kern_fast_gemm.h's.
 *
 * defines: kf_conv_fwd, kf_conv_bwd_data, kf_conv_bwd_weights, kf_conv_cache_free */
#ifndef EXADL_TRAIN_KERN_FAST_CONV_H
#define EXADL_TRAIN_KERN_FAST_CONV_H

#include "benchmarks/train/kernels/fast/kf_ctx.h"
#include "benchmarks/train/kernels/kern.h"

/* kern_ops members for k > 1 (ctx is a kf_ctx). */
void kf_conv_fwd(void *ctx, const tview *x, const void *w, int k, const tview *y);
void kf_conv_bwd_data(void *ctx, const tview *dy, const void *w, int k, const tview *dx);
void kf_conv_bwd_weights(void *ctx, const tview *x, const tview *dy, int k, void *dw);
/* Destroy the cached primitives (before kf_ctx_release). */
void kf_conv_cache_free(kf_ctx *c);

#endif
