/* mp_config: every parameter of a modelpar run (the locally connected
 * autoencoder, docs/modelparallel.md), from presets, a YAML file (--config) and
 * the command line, in that order, through the runtime's key mechanism
 * (benchmarks/train/keytab.h): the network's and the partition's keys (this
 * file's table) and the run parameters (runcfg_t, member `run`).
 *
 * defines: mp_cfg, mp_preset, mp_preset_list, mp_keys, mp_parse_grid,
 *          mp_validate, mp_write, mp_print_help */
#ifndef MODELPAR_MP_CONFIG_H
#define MODELPAR_MP_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#include "benchmarks/common/record/record.h"
#include "benchmarks/train/keytab.h"
#include "benchmarks/train/runcfg.h"

typedef struct {
    char preset[16];
    /* the network: three locally connected layers, 'same' padding, stride 1:
     * channels -> hidden1 -> hidden2 -> channels, leaky ReLU after the first two */
    int size;          /* the image is size x size positions */
    int channels;      /* input (and reconstructed) channels */
    int hidden1, hidden2;
    int kernel;        /* receptive field kernel x kernel (odd) */
    double slope;      /* leaky ReLU slope for negative inputs */
    double sparsity;   /* lambda of the L1 sparsity term on the code (lc2's output):
                          lambda x the sum over positions of mean |code|; 0: none */
    int dense;         /* D: hidden width of the tensor-parallel dense pair after the
                          second layer (per position, weights shared); 0: none */
    /* the partition */
    int model_ranks;   /* M: ranks of a model group, each holding a tile of every layer */
    char grid[32];     /* GYxGX tiles (GY * GX = M), or auto */
    runcfg_t run;      /* batch (per model group), steps, seed, optimizer, ... */
} mp_cfg;

/* Load a named preset (tiny, small, medium, yfcc15b); -1 if unknown. */
int mp_preset(mp_cfg *c, const char *name);
const char *mp_preset_list(void);

const kt_spec *mp_keys(void);

/* "auto" -> {0, 0}; "GYxGX" -> {GY, GX}; "N" -> {1, N}.  0, or -1. */
int mp_parse_grid(const char *text, int g[2]);

/* Checks that need no rank count (sizes, odd kernel, counts inside 64
 * bits); the partition against the image is mp_geom's.  0 or -1 with err. */
int mp_validate(const mp_cfg *c, char *err, size_t errlen);

void mp_write(const mp_cfg *c, rec_t *r);
void mp_print_help(FILE *f);

#endif
