/* mp_halo: the halo exchange between the tiles of a model group, on host
 * buffers [n][th + 2p][tw + 2p][c] (channels last).  Forward: columns with
 * the left and right neighbours, then rows (with the corners they now hold)
 * with the ones above and below.  Backward is its adjoint: the gradient
 * that landed in a halo goes back to the rank that owns those positions and
 * is added there, rows first, then columns.  Each message is counted.
 *
 * defines: mp_halo_buf, mp_halo_forward, mp_halo_backward */
#ifndef MODELPAR_MP_HALO_H
#define MODELPAR_MP_HALO_H

#include <stdint.h>

#include "benchmarks/modelpar/mp_model.h"

typedef struct {
    float *p;
    int n, th, tw, pad, c;
} mp_halo_buf;

/* Fill b's halo from the neighbours; stage: two buffers of
 * mp_geom_stage_floats.  Adds the bytes and messages this rank sent. */
void mp_halo_forward(const mp_model *m, const mp_halo_buf *b, float *send, float *recv,
                     int64_t *bytes, int64_t *msgs);
/* Send b's halo to the owners, add what comes back into b's interior edges. */
void mp_halo_backward(const mp_model *m, const mp_halo_buf *b, float *send, float *recv,
                      int64_t *bytes, int64_t *msgs);

#endif
