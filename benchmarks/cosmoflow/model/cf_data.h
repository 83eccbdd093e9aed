/* cf_data: the samples of a CosmoFlow run, synthetic or from a raw file.
 *
 * Synthetic (no downloads): sample g of step t has 4 targets uniform in
 * [-1, 1) and an input whose voxel (z, y, x), channel c, is
 *     target[c mod targets] * saw(z + y + x) + noise,
 * saw a period-8 ramp in [-1, 1) and noise uniform in [-0.5, 0.5) from a
 * counter-based hash of (seed, t, g, voxel, c): any rank computes any voxel
 * of any sample on its own, so every decomposition sees the same data.
 *
 * File (--data PATH, docs/cosmoflow.md "Data"): little-endian float32
 * samples one after another, each the D x D x D x channels input
 * (channels last: [z][y][x][c], as CosmoFlow's own files) then its targets.
 * Step t of G groups of batch b reads samples (t G b + g) mod N; each rank
 * reads only its sub-volume (pread of its rows).
 *
 * defines: cf_data_generate, cf_data_file, cf_data_open, cf_data_close,
 *          cf_data_read, cf_data_write */
#ifndef COSMOFLOW_CF_DATA_H
#define COSMOFLOW_CF_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/cosmoflow/model/cf_geom.h"

/* Samples first .. first + batch - 1 of step `step`, this rank's
 * sub-volume: input [batch][d][h][w][channels], target [batch][targets]. */
void cf_data_generate(const cf_plan *p, const cf_part *pt, uint64_t seed, int64_t step,
                      int64_t first, int batch, float *input, float *target);

typedef struct {
    char path[512];
    int fd;
    int64_t samples;          /* N */
    int64_t sample_bytes;     /* D^3 channels + targets, 4 bytes each */
} cf_data_file;

/* Open and check a sample file for the plan: its size must be a whole,
 * non-zero number of samples.  0, or -1 with "PATH: problem" in err. */
int cf_data_open(cf_data_file *f, const cf_plan *p, const char *path, char *err, size_t errlen);
void cf_data_close(cf_data_file *f);
/* The samples of a step (global batch = groups * batch), as generate. */
void cf_data_read(const cf_data_file *f, const cf_plan *p, const cf_part *pt, int64_t step,
                  int64_t first, int batch, float *input, float *target);

/* Write `samples` synthetic samples (step 0, samples 0 .. N-1 of seed) to
 * path in the file format.  0, or -1 with err. */
int cf_data_write(const cf_plan *p, uint64_t seed, int64_t samples, const char *path, char *err,
                  size_t errlen);

#endif
