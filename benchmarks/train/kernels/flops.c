#include "benchmarks/train/kernels/flops.h"

#include "benchmarks/common/count.h"

/* Every product goes through COUNT_PROD: a validated configuration never
 * overflows (cfg_validate checks with the same helper), so an overflow here
 * is a bug and stops the program instead of counting negative FLOPs. */

int64_t flops_conv_fwd(int64_t n, int64_t c_in, int64_t c_out, int64_t k, int64_t h, int64_t w)
{
    return COUNT_PROD("conv FLOPs", 2, n, k, k, c_in, c_out, h, w);
}
int64_t flops_conv_bwd_data(int64_t n, int64_t c_in, int64_t c_out, int64_t k, int64_t h, int64_t w)
{
    return flops_conv_fwd(n, c_in, c_out, k, h, w);
}
int64_t flops_conv_bwd_weights(int64_t n, int64_t c_in, int64_t c_out, int64_t k, int64_t h,
                               int64_t w)
{
    return flops_conv_fwd(n, c_in, c_out, k, h, w);
}

int64_t flops_tconv_fwd(int64_t n, int64_t c_in, int64_t c_out, int64_t h_in, int64_t w_in)
{
    return COUNT_PROD("transposed-conv FLOPs", 2, n, c_in, c_out, h_in, w_in);
}
int64_t flops_tconv_bwd_data(int64_t n, int64_t c_in, int64_t c_out, int64_t h_in, int64_t w_in)
{
    return flops_tconv_fwd(n, c_in, c_out, h_in, w_in);
}
int64_t flops_tconv_bwd_weights(int64_t n, int64_t c_in, int64_t c_out, int64_t h_in, int64_t w_in)
{
    return flops_tconv_fwd(n, c_in, c_out, h_in, w_in);
}

int64_t flops_bias_fwd(int64_t elems) { return elems; }
int64_t flops_bias_bwd(int64_t elems) { return elems; }
int64_t flops_relu_fwd(int64_t elems) { return elems; }
int64_t flops_relu_bwd(int64_t elems) { return COUNT_PROD("relu FLOPs", 2, elems); }
int64_t flops_pool_fwd(int64_t out_elems) { return COUNT_PROD("pool FLOPs", 4, out_elems); }
int64_t flops_pool_bwd(int64_t out_elems) { return COUNT_PROD("pool FLOPs", 4, out_elems); }
int64_t flops_l1_fwd(int64_t elems) { return COUNT_PROD("L1 FLOPs", 3, elems) + 1; }
int64_t flops_l1_bwd(int64_t elems) { return COUNT_PROD("L1 FLOPs", 2, elems); }
int64_t flops_adam(int64_t params) { return COUNT_PROD("Adam FLOPs", 13, params); }
int64_t flops_sgd(int64_t params) { return COUNT_PROD("SGD FLOPs", 5, params); }
int64_t flops_lion(int64_t params) { return COUNT_PROD("Lion FLOPs", 12, params); }
int64_t flops_lion_sign(int64_t params) { return COUNT_PROD("Lion FLOPs", 8, params); }
int64_t flops_lion_apply(int64_t params, int p) { return COUNT_PROD("Lion FLOPs", p > 1 ? 5 : 4, params); }
int64_t flops_add(int64_t elems) { return elems; }

int64_t flops_conv3d(int64_t voxels, int64_t c_in, int64_t c_out, int64_t k)
{
    return 2 * k * k * k * c_in * c_out * voxels;
}
int64_t flops_pool3d_fwd(int64_t out_elems) { return 7 * out_elems; }
int64_t flops_pool3d_bwd(int64_t out_elems) { return 7 * out_elems; }
int64_t flops_lrelu_fwd(int64_t elems) { return 2 * elems; }
int64_t flops_lrelu_bwd(int64_t elems) { return 2 * elems; }
int64_t flops_bias3d_fwd(int64_t elems) { return elems; }
int64_t flops_bias3d_bwd(int64_t elems) { return elems; }
int64_t flops_dense(int64_t n, int64_t in, int64_t out) { return 2 * n * in * out; }
int64_t flops_lc(int64_t npos, int64_t n, int64_t in, int64_t out)
{
    return npos * flops_dense(n, in, out);
}
int64_t flops_mse_fwd(int64_t elems) { return 3 * elems + 1; }
int64_t flops_mse_bwd(int64_t elems) { return 2 * elems; }

int64_t flops_dconv(int64_t n, int64_t c_in, int64_t c_out, int64_t k, int64_t h_out,
                    int64_t w_out)
{
    return COUNT_PROD("dilated-conv FLOPs", 2, n, k, k, c_in, c_out, h_out, w_out);
}
int64_t flops_bn_fwd(int64_t elems, int64_t c)
{
    return COUNT_PROD("batch-norm FLOPs", 8, elems) + COUNT_PROD("batch-norm FLOPs", 5, c);
}
int64_t flops_bn_bwd(int64_t elems, int64_t c)
{
    return COUNT_PROD("batch-norm FLOPs", 11, elems) + COUNT_PROD("batch-norm FLOPs", 6, c);
}
int64_t flops_wce_fwd(int64_t pixels, int64_t classes)
{
    return COUNT_PROD("cross-entropy FLOPs", pixels, 4 * classes + 4) + 1;
}
int64_t flops_wce_bwd(int64_t pixels, int64_t classes)
{
    return COUNT_PROD("cross-entropy FLOPs", pixels, 8 * classes + 1);
}
int64_t flops_gpool(int64_t nc, int64_t hw) { return COUNT_PROD("pooling FLOPs", nc, hw + 1); }
int64_t flops_bcast(int64_t elems) { return elems; }
