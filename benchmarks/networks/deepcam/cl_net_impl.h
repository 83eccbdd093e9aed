/* cl_net_impl: the climate network's instance as cl_net.c and cl_net_pass.c
 * share it (private to the network: nothing outside these two files includes
 * it).  cl_net.c allocates it (the activation arrays, the shared gradient
 * buffers and when each gradient is live) and holds its parameters;
 * cl_net_pass.c runs forward and backward over it.  The split is where the
 * memory ends and the arithmetic begins, so that each file stays under the
 * project's ~400 lines and reads as one thing.
 *
 * defines: struct cl_net */
#ifndef CLIMATE_CL_NET_IMPL_H
#define CLIMATE_CL_NET_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/networks/deepcam/cl_net.h"

struct cl_net {
    const cl_plan *p;
    const kern_ops *ops;
    void *ctx;
    int batch, dry;
    size_t bytes;
    int failed;
    size_t failed_bytes;
    void **x, **dx;      /* [nt]: root tensors' arrays (NULL for windows); the dx share buffers */
    int *live_lo, *live_hi; /* [nt]: ops between which a root's gradient is live (backward) */
    void **gbuf;         /* the gradient buffers, ngbuf of them */
    int ngbuf;
    void *scratch;       /* a gradient that is added, not written */
    float *mean, *var;   /* batch norm statistics, all layers */
    int64_t *stat_off;   /* [nop]: a batch norm op's offset in mean and var */
    int32_t *label;      /* [batch][h][w] in the set's memory */
    int32_t *label_host;
    float *class_w;      /* [CL_CLASSES] in the set's memory */
    float *params, *grads;
    void *wc;
};

#endif
