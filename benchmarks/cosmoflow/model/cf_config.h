/* cf_config: every parameter of a CosmoFlow run, from presets, a YAML file
 * (--config, read with libyaml) and the command line, in that order: the
 * network's and the decomposition's keys (this file's table) and the
 * runtime's run parameters (benchmarks/train/runcfg.h, member `run`), through
 * one key mechanism (benchmarks/train/keytab.h), as stemdl's configuration.
 *
 * defines: cf_cfg, cf_preset, cf_keys, cf_set, cf_load_yaml, cf_validate, cf_write,
 *          cf_print_help, cf_parse_spatial, cf_blocks, cf_block_filters, cf_block_kernel,
 *          cf_recipe,
 *          CF_MAX_BLOCKS */
#ifndef COSMOFLOW_CF_CONFIG_H
#define COSMOFLOW_CF_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#include "benchmarks/common/record/record.h"
#include "benchmarks/train/keytab.h"
#include "benchmarks/train/runcfg.h"

#define CF_MAX_BLOCKS 8

typedef struct {
    char preset[16];
    /* the network (MLPerf HPC CosmoFlow: docs/cosmoflow.md) */
    int size;          /* D: the sample is D x D x D voxels */
    int channels;      /* input channels (4 redshifts) */
    int blocks;        /* conv + leaky ReLU + 2^3 max-pool blocks; 0: LBANN's rule
                        * log2(size) - 2 (cf_blocks), so the last level is 4^3 */
    int filters;       /* filters of the first block; block i has filters * 2^i */
    int filter_cap;    /* at most this many filters in a block (LBANN: 512); 0: no cap */
    int kernel;        /* conv kernel (odd), 'same' padding */
    int block_kernels[CF_MAX_BLOCKS], nblock_kernels; /* per block (cf_block_kernel); none: `kernel` */
    int dense1, dense2;/* the dense head: dense1, dense2, then targets */
    int targets;       /* regression targets (4 cosmological parameters) */
    double slope;      /* leaky ReLU slope for x < 0 */
    char pool[4];      /* max | avg: each block's 2x2x2 pooling (avg: cf_host.c) */
    /* the training recipe (docs/cosmoflow.md "Recipes"): `recipe` sets these
     * and the run's optimizer keys; exadl (the default) has none of them */
    char recipe[8];    /* exadl | mlperf: what the record says ran */
    double dropout;    /* rate after fc1's and fc2's leaky ReLU (kept x 1/(1-rate)); 0: none */
    double out_scale;  /* output s * tanh(fc3); 0: fc3's linear output */
    int log_input;     /* voxels through sign(x) log(1 + |x|) (MLPerf: log(1 + x) of counts) */
    /* the decomposition */
    char spatial[32];  /* SxTxU (splits of D, H, W), N (= Nx1x1), or auto */
    int overlap;       /* halo exchange along D overlapped with interior planes */
    char data[512];    /* raw sample file (docs/cosmoflow.md "Data"); "" = synthetic */
    runcfg_t run;      /* batch (per group), steps, seed, precision, kernels, backend, ... */
} cf_cfg;

/* The conv blocks a configuration has: `blocks`, or for 0 LBANN's rule
 * log2(size) - 2 (LLNL/lbann applications/physics/cosmology/cosmoflow/
 * cosmoflow_network_architectures.py), which keeps the last pooled level at
 * 4^3 whatever the sample size; -1 when the rule does not apply (size not a
 * power of two of at least 8, or more than CF_MAX_BLOCKS blocks). */
int cf_blocks(const cf_cfg *c);
/* Filters of block i: filters * 2^i, capped at filter_cap when it is set. */
int cf_block_filters(const cf_cfg *c, int i);
/* Kernel of block i: block_kernels[i] when the list is given, else kernel. */
int cf_block_kernel(const cf_cfg *c, int i);

/* Apply a training recipe over c: "exadl" (no dropout, linear output, raw
 * inputs, Adam) or "mlperf" (MLPerf HPC's reference, mlcommons/hpc
 * cosmoflow/configs/cosmo.yaml: dropout 0.5, 1.2 tanh output, log inputs,
 * SGD momentum 0.9 at 0.001 with its warm-up and decays in steps of global
 * batch 64).  0, or -1 when the name is neither. */
int cf_recipe(cf_cfg *c, const char *name);

/* Load a named preset (cosmo128, cosmo256, cosmo512, small, tiny); -1 if
 * unknown.  cosmo256 and cosmo512 are LBANN's CosmoFlow (mlperf variant) at
 * those sizes: 6 and 7 blocks, filters capped at 512 (docs/cosmoflow.md). */
int cf_preset(cf_cfg *c, const char *name);
/* "cosmo128, cosmo256, cosmo512, small or tiny" */
const char *cf_preset_list(void);

/* Apply a YAML mapping file over c (a `preset:` key inside is applied
 * first).  0, or -1 with "FILE:LINE:COL: problem" in err. */
int cf_load_yaml(cf_cfg *c, const char *path, char *err, size_t errlen);

/* The table's keys, the run keys and preset, for the command line
 * (benchmarks/train/tprog.h). */
const kt_spec *cf_keys(void);

/* Set one key from text ('-' and '_' alike).  0; -1 with a message; -2 when
 * the key is unknown (err suggests the nearest). */
int cf_set(cf_cfg *c, const char *key, const char *value, char *err, size_t errlen);

/* The `spatial` value: "auto" -> {0, 0, 0}; "N" -> {N, 1, 1}; "SxTxU" ->
 * {S, T, U}.  0, or -1 when the text is none of these (parts from 1 to
 * 65536).  Here, not in cf_geom, so that the configuration's checks need
 * nothing of the geometry built from it. */
int cf_parse_spatial(const char *text, int s[3]);

/* Whole-configuration checks that need no rank count: sizes positive, the
 * kernel odd, D divisible by 2^blocks, counts inside 64 bits, the run
 * parameters.  The split against the ranks is cf_geom's.  0, or -1 with one
 * line in err. */
int cf_validate(const cf_cfg *c, char *err, size_t errlen);

/* The record's `config:` block: preset, every key with the value that ran. */
void cf_write(const cf_cfg *c, rec_t *r);

/* One line per key for --help. */
void cf_print_help(FILE *f);

#endif
