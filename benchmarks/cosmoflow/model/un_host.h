/* un_host: the 3D U-Net's reference loops (fp32, host), forward and
 * backward, each returning the FLOPs it executed by flops.h's convention
 * (a multiply-add is 2).  Tensors are channels-last and may be a channel
 * slice of a wider buffer (ld floats between voxels), which is how the
 * decoder's concatenation [upsampled, skip] is built in place.
 *
 * defines: un_t, un_conv, un_tconv, un_bnrelu_fwd, un_bnrelu_bwd,
 *          un_pool_fwd, un_pool_bwd, un_xent */
#ifndef COSMOFLOW_UN_HOST_H
#define COSMOFLOW_UN_HOST_H

#include <mpi.h>
#include <stdint.h>

/* n samples of d x e x e voxels (d: this rank's planes of D), c channels
 * at p, ld floats from voxel to voxel */
typedef struct {
    float *p;
    int n, d, e, c, ld;
} un_t;

enum { UN_FWD, UN_BWD_DATA, UN_BWD_WEIGHTS };

/* k^3 'same' convolution, stride 1, no bias, weights [kz][ky][kx][ci][co]
 * (x with (x->d - y->d) / 2 halo planes on each side along D, when split):
 * UN_FWD y = conv(x, w); UN_BWD_DATA x += conv^T(y, w) (x holds dx, y dy);
 * UN_BWD_WEIGHTS w += x (*) y (w holds dw, y dy). */
int64_t un_conv(int mode, const un_t *x, float *w, int k, const un_t *y);
/* 2^3 stride-2 transposed convolution, weights [kz][ky][kx][ci][co]: x of
 * extent e to y of 2e, each input voxel spreading over its 2^3 outputs;
 * modes as un_conv (UN_BWD_DATA: x += ...; UN_BWD_WEIGHTS: w += ...). */
int64_t un_tconv(int mode, const un_t *x, float *w, const un_t *y);
/* Batch norm over (n, voxels) per channel with the batch's statistics
 * (eps 1e-5; summed over the ranks of comm, MPI_COMM_NULL: alone), scale g
 * and shift b, then ReLU: a = relu(g (z - m) s + b); mean and inverse
 * deviation kept in m, s (c floats each); sum: 4 c doubles of room. */
int64_t un_bnrelu_fwd(const un_t *z, const float *g, const float *b, float *m, float *s,
                      const un_t *a, MPI_Comm comm, double *sum);
/* From da (a holds the output for the ReLU's mask): dz, and this rank's
 * part of dg, db added. */
int64_t un_bnrelu_bwd(const un_t *z, const float *g, const float *m, const float *s,
                      const un_t *a, const un_t *da, const un_t *dz, float *dg, float *db,
                      MPI_Comm comm, double *sum);
/* 2^3 max-pool, stride 2; backward adds dy to the first maximum's dx. */
int64_t un_pool_fwd(const un_t *x, const un_t *y);
int64_t un_pool_bwd(const un_t *x, const un_t *dy, const un_t *dx);
/* Mean over voxels and samples (all ranks of comm) of softmax
 * cross-entropy of logits z against class labels; dz = d(loss)/dz. */
double un_xent(const un_t *z, const uint8_t *label, const un_t *dz, MPI_Comm comm,
               int64_t *flops);

#endif
