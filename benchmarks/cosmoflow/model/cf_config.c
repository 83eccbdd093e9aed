#include "benchmarks/cosmoflow/model/cf_config.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/opt.h"
#include "benchmarks/train/keytab.h"

int cf_parse_spatial(const char *text, int s[3])
{
    if (!strcmp(text, "auto")) {
        s[0] = s[1] = s[2] = 0;
        return 0;
    }
    char buf[32];
    if (strlen(text) >= sizeof buf) return -1;
    snprintf(buf, sizeof buf, "%s", text);
    int n = 0;
    for (char *tok = buf, *next; tok; tok = next, n++) {
        next = strchr(tok, 'x');
        if (next) *next++ = 0;
        long long v;
        if (n == 3 || opt_parse_int(tok, &v) || v < 1 || v > 65536) return -1;
        s[n] = (int)v;
    }
    if (n == 1) s[1] = s[2] = 1;
    else if (n != 3) return -1;
    return 0;
}

/* The spatial value: "auto", "N" or "SxTxU" with positive parts. */
static int spatial_valid(const char *text)
{
    int s[3];
    return cf_parse_spatial(text, s) == 0;
}

static int path_valid(const char *text) { return text[0] && strlen(text) < 512; }

static const char *const pools[] = {"max", "avg", NULL};

#define F(x) offsetof(cf_cfg, x)
#define INT(name, lo, hi, text) \
    {.key = #name, .type = KT_INT, .off = F(name), .min = lo, .max = hi, .help = text}
#define BIG 1e9
/* the network's and the decomposition's keys, in record order; the run
 * keys follow (runcfg.h) */
static const kt_key keys[] = {
    INT(size, 1, 65536, "sample extent D: the input is D x D x D voxels"),
    INT(channels, 1, 4096, "input channels (redshifts)"),
    INT(blocks, 0, CF_MAX_BLOCKS,
        "conv + leaky ReLU + 2x2x2 max-pool blocks; 0: LBANN's log2(size) - 2"),
    INT(filters, 1, 65536, "filters of the first block (block i: filters * 2^i)"),
    INT(filter_cap, 0, 65536, "at most this many filters in a block (0: no cap)"),
    INT(kernel, 1, 15, "convolution kernel (odd), 'same' padding"),
    {.key = "block_kernels", .type = KT_LIST, .off = F(block_kernels), .aux = F(nblock_kernels), .cap = CF_MAX_BLOCKS,
     .min = 1, .max = 15, .help = "per-block kernels, one odd entry per block (unset: kernel)"},
    INT(dense1, 1, BIG, "first dense layer's width"),
    INT(dense2, 1, BIG, "second dense layer's width"),
    INT(targets, 1, 4096, "regression targets (MSE)"),
    {.key = "slope", .type = KT_DOUBLE, .off = F(slope), .min = 1e-6, .max = 1,
     .help = "leaky ReLU slope for negative inputs"},
    {.key = "pool", .type = KT_CHOICE, .off = F(pool), .aux = sizeof(((cf_cfg *)0)->pool),
     .choices = pools, .help = "max | avg: each block's 2x2x2 pooling (avg: cpu backend, fp32)"},
    {.key = "dropout", .type = KT_DOUBLE, .off = F(dropout), .min = 0, .max = 0.99,
     .help = "dropout rate after fc1 and fc2 (0: none; MLPerf: 0.5)"},
    {.key = "out_scale", .type = KT_DOUBLE, .off = F(out_scale), .min = 0, .max = 1000,
     .help = "output s * tanh(fc3) (0: linear; MLPerf: 1.2)"},
    {.key = "log_input", .type = KT_BOOL, .off = F(log_input),
     .help = "inputs through sign(x) log(1 + |x|) (MLPerf's log(1 + x) of counts)"},
    {.key = "spatial", .type = KT_WORD, .off = F(spatial), .aux = sizeof(((cf_cfg *)0)->spatial),
     .valid = spatial_valid, .what = "auto, N or SxTxU (positive splits of D, H and W)",
     .help = "spatial ranks per sample: SxTxU splits of D, H, W; N = Nx1x1; auto: all ranks"},
    {.key = "overlap", .type = KT_BOOL, .off = F(overlap),
     .help = "overlap the halo exchange along D with the interior planes"},
    {.key = "data", .type = KT_WORD, .off = F(data), .aux = sizeof(((cf_cfg *)0)->data),
     .valid = path_valid, .what = "synthetic or a file path under 512 bytes",
     .help = "synthetic, or a raw float32 sample file (docs/cosmoflow.md)"},
    {.key = NULL},
};

int cf_blocks(const cf_cfg *c)
{
    if (c->blocks > 0) return c->blocks;
    int lg = 0;
    while (lg < 30 && (1 << lg) < c->size) lg++;
    if ((1 << lg) != c->size || lg < 3 || lg - 2 > CF_MAX_BLOCKS) return -1;
    return lg - 2;
}

int cf_block_kernel(const cf_cfg *c, int i)
{
    return i < c->nblock_kernels ? c->block_kernels[i] : c->kernel;
}

int cf_block_filters(const cf_cfg *c, int i)
{
    /* cf_validate keeps filters * 2^(blocks-1) inside an int */
    int64_t f = (int64_t)c->filters << i;
    return c->filter_cap > 0 && f > c->filter_cap ? c->filter_cap : (int)f;
}

const char *cf_preset_list(void) { return "cosmo128, cosmo256, cosmo512, small or tiny"; }

int cf_preset(cf_cfg *c, const char *name)
{
    cf_cfg d;
    memset(&d, 0, sizeof d);
    runcfg_default(&d.run);
    /* the MLPerf HPC reference network (conv_size 32, kernel 3, 5 layers,
     * fc 128 and 64, 4 targets; Keras' LeakyReLU slope 0.3) */
    d.channels = 4, d.blocks = 5, d.filters = 32, d.kernel = 3;
    d.dense1 = 128, d.dense2 = 64, d.targets = 4, d.slope = 0.3;
    d.overlap = 1;
    snprintf(d.spatial, sizeof d.spatial, "1x1x1");
    snprintf(d.data, sizeof d.data, "synthetic");
    snprintf(d.recipe, sizeof d.recipe, "exadl");
    snprintf(d.pool, sizeof d.pool, "max");
    if (!strcmp(name, "cosmo128") || !strcmp(name, "cosmo256") || !strcmp(name, "cosmo512")) {
        d.size = !strcmp(name, "cosmo128") ? 128 : !strcmp(name, "cosmo256") ? 256 : 512;
        /* LBANN's CosmoFlow (mlperf=True): log2(size) - 2 blocks, filters
         * 32 x 2^i capped at 512, so fc1 takes 512 x 4^3 = 32,768 features
         * at every size; at 128^3 this is MLPerf's network unchanged */
        d.blocks = 0;
        d.filter_cap = 512;
        d.blocks = cf_blocks(&d);
        d.run.steps = 5;
        d.run.warmup = 1;
        /* no batch norm and 32768+ inputs into fc1: Adam's first steps at
         * 1e-3 move the outputs by tens (MSE in the hundreds); 1e-4 keeps
         * them in range */
        d.run.lr = 1e-4;
    } else if (!strcmp(name, "small")) {
        /* the wiring at D = 64 and a quarter of the filters: tens of
         * milliseconds per step on a core of the development machine */
        d.size = 64;
        d.filters = 8;
        d.dense1 = 32, d.dense2 = 16;
        d.run.steps = 10;
        d.run.warmup = 2;
    } else if (!strcmp(name, "tiny")) {
        /* two blocks at D = 16: milliseconds per step with the reference
         * loops; 4 units of 4 voxels per axis, so 2- and 4-way splits */
        d.size = 16, d.blocks = 2, d.filters = 4;
        d.dense1 = 16, d.dense2 = 8;
        d.run.steps = 4;
        d.run.warmup = 1;
        d.run.lr = 1e-3;
    } else {
        return -1;
    }
    snprintf(d.preset, sizeof d.preset, "%s", name);
    *c = d;
    return 0;
}

int cf_recipe(cf_cfg *c, const char *name)
{
    runcfg_t *r = &c->run;
    if (!strcmp(name, "exadl")) {
        c->dropout = 0, c->out_scale = 0, c->log_input = 0;
        snprintf(r->optimizer, sizeof r->optimizer, "adam");
        r->lr_warmup_steps = 0;
        snprintf(r->lr_decay, sizeof r->lr_decay, "none");
    } else if (!strcmp(name, "mlperf")) {
        /* cosmo.yaml: dropout 0.5, SGD momentum 0.9, base_lr 0.001 scaled
         * linearly from batch 64, 4 warm-up epochs, x0.25 after epoch 32 and
         * x0.125 after 64; models/cosmoflow.py: tanh output x 1.2;
         * apply_log: log(1 + x).  An epoch of its 262,144 training samples is
         * 4,096 steps at global batch 64: warm-up 16,384 steps, decays from
         * the first step of epochs 33 and 65 (1-based steps 135,169 and
         * 266,241).  At global batch B, lr 0.001 B / 64 is the reference's
         * peak; lr_warmup_start stays 0.001. */
        c->dropout = 0.5, c->out_scale = 1.2, c->log_input = 1;
        snprintf(r->optimizer, sizeof r->optimizer, "sgd");
        r->momentum = 0.9;
        r->lr = 0.001;
        r->lr_warmup_start = 0.001;
        r->lr_warmup_steps = 16384;
        snprintf(r->lr_decay, sizeof r->lr_decay, "135169:0.25,266241:0.125");
    } else {
        return -1;
    }
    snprintf(c->recipe, sizeof c->recipe, "%s", name);
    return 0;
}

static const char *const extra_keys[] = {"preset", "recipe", NULL};

static int set_extra(void *cfg, const char *key, const char *value, char *err, size_t errlen)
{
    if (!strcmp(key, "recipe")) {
        if (cf_recipe(cfg, value) == 0) return 0;
        snprintf(err, errlen, "unknown recipe '%s' (choose exadl or mlperf)", value);
        return -1;
    }
    if (strcmp(key, "preset")) return 1;
    if (cf_preset(cfg, value) == 0) return 0;
    snprintf(err, errlen, "unknown preset '%s' (choose %s)", value, cf_preset_list());
    return -1;
}

static const kt_table parts[] = {
    {keys, 0},
    RUNCFG_TABLE(cf_cfg, run),
};
static const kt_spec spec = {
    .what = "a CosmoFlow configuration",
    .parts = parts,
    .nparts = sizeof parts / sizeof *parts,
    .extra = extra_keys,
    .set_extra = set_extra,
    .first = "preset",
};

const kt_spec *cf_keys(void) { return &spec; }

int cf_set(cf_cfg *c, const char *key, const char *value, char *err, size_t errlen)
{
    return kt_set(&spec, c, key, value, err, errlen);
}

int cf_load_yaml(cf_cfg *c, const char *path, char *err, size_t errlen)
{
    return kt_load_yaml(&spec, c, path, err, errlen);
}

int cf_validate(const cf_cfg *c, char *err, size_t errlen)
{
    const struct { const char *name; int v, max; } pos[] = {
        {"size", c->size, 65536},     {"channels", c->channels, 4096},
        {"filters", c->filters, 65536},
        {"kernel", c->kernel, 15},    {"dense1", c->dense1, INT_MAX},
        {"dense2", c->dense2, INT_MAX}, {"targets", c->targets, 4096},
    };
    for (size_t i = 0; i < sizeof pos / sizeof *pos; i++)
        if (pos[i].v < 1 || pos[i].v > pos[i].max)
            return snprintf(err, errlen, "%s must be between 1 and %d, not %d", pos[i].name,
                            pos[i].max, pos[i].v),
                   -1;
    int nb = cf_blocks(c);
    if (c->blocks < 0 || c->blocks > CF_MAX_BLOCKS)
        return snprintf(err, errlen, "blocks must be between 0 (auto) and %d, not %d",
                        CF_MAX_BLOCKS, c->blocks),
               -1;
    if (nb < 1)
        return snprintf(err, errlen,
                        "blocks 0 (LBANN's log2(size) - 2) needs a size that is a power of two "
                        "from 8 to %d, not %d",
                        4 << CF_MAX_BLOCKS, c->size),
               -1;
    if (c->filter_cap < 0 || c->filter_cap > 65536)
        return snprintf(err, errlen, "filter_cap must be between 0 and 65536, not %d",
                        c->filter_cap),
               -1;
    if ((int64_t)c->filters << (nb - 1) > INT_MAX)
        return snprintf(err, errlen, "filters %d x 2^%d does not fit an int", c->filters, nb - 1),
               -1;
    if (!(c->slope > 0)) return snprintf(err, errlen, "slope must be positive"), -1;
    if (!(c->dropout >= 0 && c->dropout < 1))
        return snprintf(err, errlen, "dropout must be in [0, 1), not %g", c->dropout), -1;
    if (!(c->out_scale >= 0)) return snprintf(err, errlen, "out_scale must be 0 or positive"), -1;
    /* the recipe's layers are host loops over the CPU sets' memory */
    if ((c->dropout > 0 || c->out_scale > 0 || c->log_input) && strcmp(c->run.backend, "cpu"))
        return snprintf(err, errlen,
                        "dropout, out_scale and log_input (the mlperf recipe) run on the cpu "
                        "backend, not %s",
                        c->run.backend),
               -1;
    if (!strcmp(c->pool, "avg") && (strcmp(c->run.backend, "cpu") || strcmp(c->run.precision, "fp32")))
        return snprintf(err, errlen,
                        "pool avg runs on the cpu backend in fp32 (a host loop), not %s %s",
                        c->run.backend, c->run.precision),
               -1;
    if ((c->dropout > 0 || c->out_scale > 0) && strcmp(c->run.precision, "fp32"))
        return snprintf(err, errlen,
                        "dropout and out_scale (the mlperf recipe) run in fp32, not %s",
                        c->run.precision),
               -1;
    if (c->kernel % 2 == 0)
        return snprintf(err, errlen, "kernel %d: must be odd for 'same' padding", c->kernel), -1;
    if (c->nblock_kernels > 0 && c->nblock_kernels != nb)
        return snprintf(err, errlen, "block_kernels has %d entries for %d blocks: give one per block",
                        c->nblock_kernels, nb),
               -1;
    for (int i = 0; i < c->nblock_kernels; i++)
        if (c->block_kernels[i] % 2 == 0 || c->block_kernels[i] < 1 || c->block_kernels[i] > 15)
            return snprintf(err, errlen,
                            "block_kernels entry %d is %d: must be odd (1 .. 15) for 'same' padding", i + 1,
                            c->block_kernels[i]),
                   -1;
    int unit = 1 << nb;
    if (c->size % unit)
        return snprintf(err, errlen,
                        "size %d is not divisible by 2^blocks = %d (%d blocks of 2x2x2 pooling)",
                        c->size, unit, nb),
               -1;
    int s[3];
    if (cf_parse_spatial(c->spatial, s))
        return snprintf(err, errlen, "spatial '%s' is not auto, N or SxTxU", c->spatial), -1;
    if (runcfg_validate(&c->run, err, errlen)) return -1;
    /* every count below 2^62: the widest activation of a batch, the
     * weights of the first dense layer, the FLOPs of a step */
    double d3 = (double)c->size * c->size * c->size;
    double widest = d3 * ((double)c->channels + 3.0 * c->filters) * c->run.batch;
    double flat = d3 / ((double)unit * unit * unit) * cf_block_filters(c, nb - 1);
    double fwd = 0, ci = c->channels, vox = d3;
    for (int i = 0; i < nb; i++) {
        double co = cf_block_filters(c, i);
        double k = cf_block_kernel(c, i);
        fwd += 2.0 * k * k * k * ci * co * vox;
        ci = co, vox /= 8;
    }
    /* the dense head's input width is an int (cf_plan_build checks it too,
     * but as an internal error): size 8888 over 3 blocks is 8.8e10 */
    if (flat > INT_MAX)
        return snprintf(err, errlen,
                        "%.0f features into the dense head ((size / 2^blocks)^3 x the last "
                        "block's filters): at most %d",
                        flat, INT_MAX),
               -1;
    if (widest > 1e17 || flat * c->dense1 > 1e17 || 3 * fwd * c->run.batch > 1e17)
        return snprintf(err, errlen,
                        "network too large: buffers, weights or FLOPs per step would exceed 1e17"),
               -1;
    return 0;
}

void cf_write(const cf_cfg *c, rec_t *r)
{
    rec_key(r, "config");
    rec_map_begin(r);
    rec_kv_str(r, "preset", c->preset[0] ? c->preset : NULL);
    rec_kv_str(r, "recipe", c->recipe[0] ? c->recipe : "exadl");
    kt_write(&spec, c, r);
    rec_map_end(r);
}

void cf_print_help(FILE *f)
{
    fprintf(f, "  --preset NAME          %s (default cosmo128)\n", cf_preset_list());
    fprintf(f, "  --recipe NAME          exadl (default: no dropout, linear output, Adam) or mlperf\n"
               "                         (dropout 0.5, 1.2 tanh, log inputs, SGD 0.9 and its schedule);\n"
               "                         keys after it override\n");
    kt_print_help(&spec, f);
}
