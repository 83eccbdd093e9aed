/* cl_config: every parameter of a climate run (docs/climate.md): the
 * DeepLabv3+ network's sizes and the loss's class weights (this file's key
 * table) and the runtime's run parameters (benchmarks/train/runcfg.h,
 * member `run`), from a preset, a YAML file (--config) and the command line,
 * in that order (benchmarks/train/keytab.h drives all three, the record's
 * `config` block and --help).
 *
 * defines: cl_cfg, cl_cfg_preset, cl_cfg_keys, cl_cfg_validate, cl_cfg_write,
 *   cl_cfg_print_help, cl_cfg_ch, CL_CLASSES */
#ifndef CLIMATE_CL_CONFIG_H
#define CLIMATE_CL_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#include "benchmarks/common/record/record.h"
#include "benchmarks/train/keytab.h"
#include "benchmarks/train/runcfg.h"

/* background, tropical cyclone, atmospheric river (the data's classes) */
#define CL_CLASSES 3
/* Limits that keep every count of an accepted configuration far inside
 * int64 (cl_cfg_validate) and --describe instant. */
#define CL_MAX_PIXELS 16384  /* height, width */
#define CL_MAX_CHANNELS 4096 /* input channels */
#define CL_MAX_MIDDLE 64     /* middle-flow blocks */
#define CL_MAX_DIV 64        /* width divisor */

typedef struct {
    char preset[16];
    int channels, height, width; /* input fields and their size (multiples of 16) */
    int width_div;               /* every layer's width is DeepCAM's / width_div, rounded up */
    int middle_blocks;           /* Xception middle-flow blocks (DeepCAM: 16) */
    double w_background, w_cyclone, w_river; /* the loss's class weights */
    double bn_eps;               /* batch norm epsilon */
    char bn[8];                  /* local: each rank's statistics; sync: the group's (cl_bnsync.h) */
    int bn_group;                /* sync: ranks per statistics group (0: every rank) */
    char spatial[16];            /* the tiles of each sample: "N" (N x 1) or "HxW" (cl_split.h);
                                    "1": none */
    runcfg_t run;                /* batch, steps, seed, precision, kernels, backend, ... */
} cl_cfg;

/* --spatial's text as its grid: s[0] tiles along H, s[1] along W ("N"
 * is N x 1); -1 when it is not N or HxW with each in [1, 4096]. */
int cl_cfg_spatial(const char *text, int s[2]);

/* Load a named preset (tiny, small, deepcam, gb2018); -1 if unknown. */
int cl_cfg_preset(cl_cfg *c, const char *name);
/* The keys of both tables and the extra ones (preset, image). */
const kt_spec *cl_cfg_keys(void);
/* The whole-configuration check: 0, or -1 with one line in err. */
int cl_cfg_validate(const cl_cfg *c, char *err, size_t errlen);
/* The record's `config:` block. */
void cl_cfg_write(const cl_cfg *c, rec_t *r);
/* --help's lines for the keys. */
void cl_cfg_print_help(FILE *f);
/* A layer width of DeepCAM's network (c channels) at this configuration's
 * width divisor, rounded up (at least 1). */
int cl_cfg_ch(const cl_cfg *c, int deepcam_channels);

#endif
