/* kern_fast_seg: the segmentation kernels of the fast CPU set (dilated
 * convolution, batch norm) on oneDNN primitives, and the release of their
 * primitive cache (kern_fast_release).
 *
 * defines: kf_seg_cache_free */
#ifndef EXADL_TRAIN_KERN_FAST_SEG_H
#define EXADL_TRAIN_KERN_FAST_SEG_H

#include "benchmarks/train/kernels/fast/kf_ctx.h"

void kf_seg_cache_free(kf_ctx *c);

#endif
