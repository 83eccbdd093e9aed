/* conv_blas: im2col + OpenBLAS convolutions, the measured alternative to the
 * fast path's oneDNN convolutions (benchmark only: bench_conv --kernels blas). */
#ifndef PEAK_CONV_BLAS_H
#define PEAK_CONV_BLAS_H

#include "benchmarks/train/kernels/kern.h"

const kern_ops *conv_blas_ops(void);
void *conv_blas_create(int threads);
void conv_blas_release(void *ctx);
const char *conv_blas_library(void);

#endif
