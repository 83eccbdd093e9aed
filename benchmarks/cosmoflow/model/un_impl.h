/* un_impl: the 3D U-Net's buffers (struct un_net), made by un_train.c and
 * walked by the step of un_step.c and the kernel-set calls of un_kern.c;
 * nothing else includes it.
 *
 * defines: un_lbuf, struct un_net, un_unif */
#ifndef COSMOFLOW_UN_IMPL_H
#define COSMOFLOW_UN_IMPL_H

#include <stdint.h>

#include <mpi.h>

#include "benchmarks/cosmoflow/model/un_host.h"
#include "benchmarks/cosmoflow/model/un_plan.h"
#include "benchmarks/train/counted.h"

/* Per layer: its input (a view), conv output z, output a (UN_CBR; down*b's
 * a is the skip slice of its level's concatenation buffer) and their
 * gradients; BN statistics. */
typedef struct {
    un_t x, z, a, dx, dz, da;
    un_t xp, dxp;  /* host loops split along D, k = 3: x and dx with a halo plane each side */
    float *m, *s;
} un_lbuf;

typedef struct un_net un_net; /* as un_train.h (C11 allows the repeat) */

struct un_net {
    const un_plan *p;
    float *params, *grads, *mom;
    un_lbuf L[UN_MAX_LAYERS];
    un_t in, pool[UN_LEVELS], dpool[UN_LEVELS];
    uint8_t *label;
    MPI_Comm comm;  /* the ranks splitting D; MPI_COMM_NULL: alone */
    int rank, S;
    float *scratch;  /* a received halo plane (reverse exchange) */
    double *sums;    /* batch norm's sums */
    void *allocs[10 * UN_MAX_LAYERS + 16];
    int nallocs, failed;
    int64_t bytes;
    /* a kernel set (un_kern.h; NULL: the host loops of un_host.h) */
    const kern_ops *ops;
    kc_t kc;
    ktab_t tab;
    float *wk, *gk;      /* weights and their gradients in the sets' layouts (un_kern.c) */
    float *pad;          /* scratch: a padded input or gradient, the transposed
                            convolutions' taps, the pooling's data gradient */
    int64_t pad_floats;
    int64_t halo_bytes;  /* sent by this rank in the last step's exchanges */
};

/* A uniform draw in [-1, 1) from the stream s (splitmix64's mixer): the
 * initial weights (un_train.c) and the synthetic batches (un_step.c). */
static inline float un_unif(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (float)((z >> 40) * (2.0 / 16777216.0) - 1.0);
}

#endif
