/* kern_fast_seg: the segmentation kernels of the fast CPU set: dilated
 * convolution and batch norm on oneDNN primitives with the release of their
 * primitive cache (kern_fast_seg.c; kern_fast_release calls it), and the
 * element-wise ones (kern_fast_segew.c:
 * weighted cross-entropy, image-level pooling and broadcast).
 *
 * defines: kf_seg_cache_free, kf_seg_fill_ew */
#ifndef EXADL_TRAIN_KERN_FAST_SEG_H
#define EXADL_TRAIN_KERN_FAST_SEG_H

#include "benchmarks/train/kernels/fast/kf_ctx.h"

void kf_seg_cache_free(kf_ctx *c);
/* the element-wise members, filled by kern_fast_fill_seg */
struct kern_ops;
void kf_seg_fill_ew(struct kern_ops *o);

#endif
