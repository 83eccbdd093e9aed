/* kern_fast_gemm: the 1x1 convolutions and the 1x1 stride-2 transposed
 * convolution of the fast CPU kernel set, as GEMMs (kf_gemm.h) straight on
 * the views.
 *
 * defines: kf_conv1_fwd, kf_conv1_bwd_data, kf_conv1_bwd_weights,
 *          kf_tconv_fwd, kf_tconv_bwd_data, kf_tconv_bwd_weights */
#ifndef EXADL_TRAIN_KERN_FAST_GEMM_H
#define EXADL_TRAIN_KERN_FAST_GEMM_H

#include "benchmarks/train/kernels/fast/kf_ctx.h"
#include "benchmarks/train/kernels/kern.h"

/* 1x1 convolutions (the k == 1 case of kern_ops.conv_*). */
void kf_conv1_fwd(kf_ctx *c, const tview *x, const float *w, const tview *y);
void kf_conv1_bwd_data(kf_ctx *c, const tview *dy, const float *w, const tview *dx);
void kf_conv1_bwd_weights(kf_ctx *c, const tview *x, const tview *dy, float *dw);
/* kern_ops members (ctx is a kf_ctx). */
void kf_tconv_fwd(void *ctx, const tview *x, const void *w, const tview *y);
void kf_tconv_bwd_data(void *ctx, const tview *dy, const void *w, const tview *dx);
void kf_tconv_bwd_weights(void *ctx, const tview *x, const tview *dy, void *dw);

#endif
