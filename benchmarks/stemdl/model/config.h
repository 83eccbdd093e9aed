/* config: every parameter of a STEMDL run, from presets, a YAML file
 * (--config, read with libyaml) and the command line, in that order.
 *
 * One key table drives all three sources, the record's `config` block and the
 * --help text, so a parameter cannot be settable in one place and not another. */
#ifndef STEMDL_CONFIG_H
#define STEMDL_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "benchmarks/common/record/record.h"

#define CFG_MAX_LEVELS 8

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
    /* run */
    int batch;                 /* samples per rank per step */
    int steps, warmup;         /* timed steps; warm-up steps run before them */
    uint64_t seed;
    char precision[8];         /* fp32 (CPU); tf32, bf16, fp16 on the CUDA backend */
    char kernels[16];          /* reference | fast */
    char backend[8];           /* cpu | cuda */
    double lr, beta1, beta2, eps;
    int threads;               /* threads per rank for the fast path; 0 = cores / ranks */
    int kernel_timing;         /* per-kernel times (off: only the step is timed) */
    /* gradient reduction (gsync.h, docs/gsync.md) */
    char orchestration[16];    /* coordinator | bitvector */
    int cache_capacity;        /* response cache, tensors; 0: no cache */
    char grouping[16];         /* none | layer | N */
    int fusion_bytes;          /* largest fused reduction */
    double cycle_ms;           /* engine cycle time */
    double comm_timeout;       /* seconds before a stalled step fails */
} cfg_t;

/* Load a named preset (gb2019, bench256, small, tiny); -1 if unknown. */
int cfg_preset(cfg_t *c, const char *name);
/* The preset names, NULL-terminated. */
const char *const *cfg_preset_names(void);

/* Apply a YAML mapping file over c (a `preset:` key inside is applied first).
 * 0, or -1 with "FILE:LINE:COL: problem" in err. */
int cfg_load_yaml(cfg_t *c, const char *path, char *err, size_t errlen);

/* Set one key from text (a command-line option without its dashes; '-' and '_'
 * are the same).  Returns 0; -1 with a message; -2 when the key is unknown
 * (err then suggests the nearest key). */
int cfg_set(cfg_t *c, const char *key, const char *value, char *err, size_t errlen);

/* Whole-configuration checks (sizes positive, lists agree, image divisible by
 * 2^levels, kernels odd, ...).  0, or -1 with one line in err. */
int cfg_validate(const cfg_t *c, char *err, size_t errlen);

/* The `config:` block of the record: every key with the value that ran. */
void cfg_write(const cfg_t *c, rec_t *r);

/* One line per key for --help. */
void cfg_print_help(FILE *f);

#endif
