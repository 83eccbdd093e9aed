/* kern_fast_conv3d: the k x k x k valid convolutions of the fast CPU kernel
 * set (kern.h "3D kernels") on oneDNN's direct convolutions, straight on
 * channels-last views, and the cache of their primitives in the context;
 * kern_fast_3d.c has the set's other 3D kernels.
 *
 * defines: kf_conv3d_fwd, kf_conv3d_bwd_data, kf_conv3d_bwd_weights,
 *          kf_conv3d_cache_free, kf3_copy */
#ifndef EXADL_TRAIN_KERN_FAST_CONV3D_H
#define EXADL_TRAIN_KERN_FAST_CONV3D_H

#include "benchmarks/train/kernels/fast/kf_ctx.h"
#include "benchmarks/train/kernels/kern.h"

/* kern_ops members (ctx is a kf_ctx). */
void kf_conv3d_fwd(void *ctx, const t3view *x, const void *w, int k, const t3view *y);
void kf_conv3d_bwd_data(void *ctx, const t3view *dy, const void *w, int k, const t3view *dx);
void kf_conv3d_bwd_weights(void *ctx, const t3view *x, const t3view *dy, int k, void *dw);
/* Destroy the cached primitives (before kf_ctx_release). */
void kf_conv3d_cache_free(kf_ctx *c);
/* dst = src over any strides, on the context's threads (kern_fast_3d.c). */
void kf3_copy(const kf_ctx *c, const t3view *src, const t3view *dst);

#endif
