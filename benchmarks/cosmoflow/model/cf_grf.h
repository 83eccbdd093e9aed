/* cf_grf: a learnable CosmoFlow data set (docs/data.md "The GRF set"):
 * periodic random fields on the D^3 box, sums of 24 Fourier modes with
 * random integer wave vectors (|k_i| <= D/4), Gaussian amplitudes and
 * uniform phases, whose power falls as |k|^-n: Gaussian random fields with
 * a power-law spectrum, as the cosmological fields CosmoFlow regresses.
 * Sample `index` of a split has targets t uniform in [-1, 1) that set
 *   t0: the amplitude, sigma = 2^t0 (the field's RMS);
 *   t1: the spectral slope, n = 2 + t1 (rough for 1, smooth for 3);
 *   t2: the growth across the channels (redshifts): channel c is scaled
 *       by 1 + t2 (c / (C - 1) - 1/2);
 *   t3: a mean offset t3 / 2;
 * targets beyond 4 are 0, fewer use the first ones.  A small network learns
 * t3 and t0 in tens of steps, t1 and t2 later.  Any rank computes any box
 * of any sample alone (counter-based draws of (seed, split, index)).
 *
 * defines: cf_grf_box */
#ifndef COSMOFLOW_CF_GRF_H
#define COSMOFLOW_CF_GRF_H

#include <stdint.h>

/* The box o + [0, e) of sample `index` of split (0 train, 1 val) of a
 * D^3 x C set with T targets, channels last, into input; its T targets into
 * target. */
void cf_grf_box(int D, int C, int T, uint64_t seed, int split, int64_t index, const int o[3],
                const int e[3], float *input, float *target);

#endif
