/* cl_data: the synthetic samples of the climate segmentation workload
 * (docs/climate.md "Data"): fields with embedded blobs (class 1, standing
 * for tropical cyclones) and bands (class 2, atmospheric rivers) on a
 * noisy background (class 0), with their masks.
 *
 * Sample g of step t depends only on (seed, t, g): any rank reproduces any
 * sample on its own, so R ranks of batch b see the samples that one rank of
 * batch R b sees (the runtime's contract, benchmarks/train/network.h).
 *
 * defines: cl_data_shape, cl_data_generate */
#ifndef CLIMATE_CL_DATA_H
#define CLIMATE_CL_DATA_H

#include <stdint.h>

typedef struct {
    int channels, h, w; /* one sample's input: channels x h x w */
    int max_blobs;      /* 1 .. max_blobs blobs per sample (>= 1) */
    int max_bands;      /* 0 .. max_bands bands per sample (>= 0) */
} cl_data_shape;

/* Samples first .. first + batch - 1 of step `step`: input
 * [batch][channels][h][w] (NCHW, as the network's views), target
 * [batch][h][w] the class of each pixel (0, 1 or 2) as a float. */
void cl_data_generate(const cl_data_shape *s, uint64_t seed, int64_t step, int64_t first, int batch,
                      float *input, float *target);

#endif
