/* data: synthetic CBED-like training data, generated on the fly.
 *
 * A hidden 2D projected potential (atoms on a rotated, jittered lattice, each
 * a Gaussian of atomic number-like weight Z) is the regression target.  Each
 * input channel is one "diffraction pattern": every atom shows as a disk
 * whose radius, offset and intensity law Z^gamma depend on the channel (the
 * instrument's geometry, fixed across samples), plus detector noise.  The
 * map from disks back to atoms is local and translation-invariant, so a
 * fully-convolutional network can learn it and the loss really falls.
 *
 * Sample g of step t (g = rank * batch + i, the global index) depends only on
 * (seed, t, g): a job of R ranks with batch b sees the same samples as one
 * rank with batch R*b. */
#ifndef EXADL_FCDENSENET_DATA_H
#define EXADL_FCDENSENET_DATA_H

#include <stdint.h>

#include "benchmarks/networks/fcdensenet/config.h"

/* Fill input [batch][c_in][h][w] and target [batch][c_out][h][w] with the
 * samples first_sample .. first_sample + batch - 1 of step `step`. */
void data_generate(const cfg_t *c, uint64_t seed, int64_t step, int64_t first_sample, int batch,
                   float *input, float *target);

#endif
