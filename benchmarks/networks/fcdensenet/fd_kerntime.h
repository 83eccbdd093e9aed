/* fd_kerntime: the kernels the plan model times, grouped in families, and
 * how one family is benchmarked (docs/spatial.md "Measured kernel times").
 * A family's kernels share a shape and one cache line (fd_convtime.h):
 *
 *   family  times (3 slots)                          shape n cin h w cout k
 *   conv    conv_fwd, conv_bwd_data, conv_bwd_weights  h w: the output's (= input's, SAME)
 *   tconv   tconv_fwd, tconv_bwd_data, tconv_bwd_weights h w: the input's (output 2h x 2w), k 1
 *   pool    pool_fwd, pool_bwd, -                       h w: the input's (output h/2 x w/2), k 2
 *   bias    bias_fwd, bias_bwd, -                       cin = cout = c, k 0
 *   relu    relu_fwd, relu_bwd, -                       "
 *   l1      l1_fwd, l1_bwd, -                           "
 *   add     add, -, -;  copy  copy, -, -;  zero  zero, -, -
 *   copy3d  copy3d, -, -  (the halo and shuffle copies, whatever row they name)
 *   adam    adam, -, -    n 1, cin 1, h 1, w the slice's parameters, cout 1, k 0
 *
 * Strided views (a dense block's slices, a padded buffer's box) are timed
 * on dense buffers of the same extent: the layout's effect on a copy is not
 * modelled.
 *
 * defines: FDK_* families, fdk_shape, fdk_kernel, fdk_shape_of, fdk_flops,
 *          fdk_family_name, fdk_family_of, fdk_measure */
#ifndef EXADL_FCDENSENET_FD_KERNTIME_H
#define EXADL_FCDENSENET_FD_KERNTIME_H

#include <stdint.h>

#include "benchmarks/train/kernels/kern.h"

enum { FDK_CONV, FDK_TCONV, FDK_POOL, FDK_BIAS, FDK_RELU, FDK_L1, FDK_ADD, FDK_COPY, FDK_ZERO,
       FDK_COPY3D, FDK_ADAM, FDK_NFAM };

typedef struct {
    int fam; /* FDK_* */
    int n, cin, h, w, cout, k;
} fdk_shape;

/* The family and slot (0..2) of a kernel counted.h's observer names; -1 for
 * one not timed. */
int fdk_kernel(const char *kernel, int *fam, int *slot);

/* The shape of a call of family fam (the observer's x, y and k). */
void fdk_shape_of(int fam, const tview *x, const tview *y, int k, fdk_shape *s);

/* The FLOPs counted.c counts for slot's kernel at shape s. */
int64_t fdk_flops(const fdk_shape *s, int slot);

const char *fdk_family_name(int fam);
int fdk_family_of(const char *name); /* -1: none */

/* The family's kernels at shape s with kernel set o: one warm-up call each,
 * then reps timed, the median of each in t_s (unused slots 0). */
void fdk_measure(const kern_ops *o, void *ctx, const fdk_shape *s, int reps, double t_s[3]);

#endif
