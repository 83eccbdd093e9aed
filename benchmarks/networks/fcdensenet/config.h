/* config: every parameter of a STEMDL run, from presets, a YAML file
 * (--config, read with libyaml) and the command line, in that order: the
 * FC-DenseNet's parameters (this file's key table) and the runtime's run
 * parameters (benchmarks/train/runcfg.h, member `run`).
 *
 * One key mechanism (benchmarks/train/keytab.h) over both tables drives all
 * three sources, the record's `config` block and the --help text, so a
 * parameter cannot be settable in one place and not another.
 *
 * defines: cfg_t, cfg_preset, cfg_keys, cfg_set, cfg_load_yaml, cfg_write; the
 * whole-configuration check, cfg_validate, is validate.h's */
#ifndef EXADL_FCDENSENET_CONFIG_H
#define EXADL_FCDENSENET_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "benchmarks/common/record/record.h"
#include "benchmarks/train/keytab.h"
#include "benchmarks/train/runcfg.h"

#define CFG_MAX_LEVELS 8
/* Limits that keep every accepted configuration's counts inside their
 * integers and its --describe under a second (cfg_validate, validate.h). */
#define CFG_MAX_LAYERS 1000        /* conv layers of the whole network */
#define CFG_MAX_CHANNELS (1 << 20) /* c_in, f0, growth, td, tu, c_out */
#define CFG_MAX_PIXELS (1 << 20)   /* height, width */

typedef struct {
    char preset[16];
    /* network */
    int c_in, height, width;   /* input patterns (channels) and image size */
    int f0, k0;                /* CONV_INIT features and kernel */
    int growth, k;             /* dense-layer growth and kernel */
    int levels;                /* length of down/up/td/tu (set from the lists) */
    int down[CFG_MAX_LEVELS], up[CFG_MAX_LEVELS];
    int td[CFG_MAX_LEVELS], tu[CFG_MAX_LEVELS];
    int ndown, nup, ntd, ntu;  /* list lengths as given, checked to agree */
    int bottleneck, c_out;
    char spatial[16];          /* "HxW" or "N" (= Nx1): ranks splitting each sample (fd_split.h) */
    char spatial_plan[24];     /* per level: h (split along H) or s (whole samples); fd_split.h */
    /* the plan model's machine (fd_model.h): sustained FLOP/s of one rank,
     * seconds per message and bytes per second of a link; 0: not given */
    double model_flops, model_latency_s, model_Bps;
    double model_memory_bytes; /* the memory one rank may hold; 0: no limit */
    int model_conv_times;      /* 1: measured convolution times (fd_convtime.h) */
    char model_links[512];     /* machine file or pingpong record (fd_links.h); "": none */
    /* the plan model's predicted step for this run (exadl model --spatial
     * --stemdl puts it in the command it prints), recorded beside the
     * measured step (the record's network block); 0: none */
    double model_predicted_step_s;
    /* which of those describe-only keys were set, a bit per key of config.c's
     * table (its index): the record lists only these (keytab.h) */
    uint64_t describe_set;
    runcfg_t run;              /* batch, steps, seed, precision, kernels, backend, ... */
} cfg_t;

/* Load a named preset (gb2019, bench256, small, tiny): the network and the
 * run parameters; -1 if unknown. */
int cfg_preset(cfg_t *c, const char *name);
/* The preset names, NULL-terminated. */
const char *const *cfg_preset_names(void);

/* Apply a YAML mapping file over c (a `preset:` key inside is applied first).
 * 0, or -1 with "FILE:LINE:COL: problem" in err. */
int cfg_load_yaml(cfg_t *c, const char *path, char *err, size_t errlen);

/* The keys of both tables and the extra ones (preset, image), for the
 * command line (benchmarks/train/tprog.h). */
const kt_spec *cfg_keys(void);

/* Set one key from text (a command-line option without its dashes; '-' and '_'
 * are the same).  Returns 0; -1 with a message; -2 when the key is unknown
 * (err then suggests the nearest key). */
int cfg_set(cfg_t *c, const char *key, const char *value, char *err, size_t errlen);

/* The `config:` block of the record: preset, then every key with the value
 * that ran (network keys, then run keys). */
void cfg_write(const cfg_t *c, rec_t *r);

/* The spatial value "N" or "HxW" (positive parts) into s[0] = H, s[1] = W;
 * 0, or -1 when it is neither. */
int cfg_parse_spatial(const char *text, int s[2]);
/* 1 when text is a spatial plan's letters (h and s only, 1 to 16 of them). */
int cfg_plan_letters(const char *text);

/* One line per key for --help. */
void cfg_print_help(FILE *f);

#endif
