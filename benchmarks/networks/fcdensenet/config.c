#include "benchmarks/networks/fcdensenet/config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/count.h"
#include "benchmarks/networks/fcdensenet/plan.h"
#include "benchmarks/train/keytab.h"

#define F(x) offsetof(cfg_t, x)
#define INT(name, lo, hi, text) \
    {.key = #name, .type = KT_INT, .off = F(name), .min = lo, .max = hi, .help = text}
/* a list and its length field n<name>, one entry per level */
#define LIST(name, hi, text)                                                             \
    {.key = #name, .type = KT_LIST, .off = F(name), .aux = F(n##name), .cap = CFG_MAX_LEVELS, \
     .min = 1, .max = hi, .help = text}
/* The ranges keep every int of the plan (channels, sizes) far from overflow;
 * the totals (weights, FLOPs) are checked with count.h in cfg_validate. */
#define CH CFG_MAX_CHANNELS
#define PX CFG_MAX_PIXELS
#define LY CFG_MAX_LAYERS
/* the FC-DenseNet's keys, in record order; the run keys follow (runcfg.h) */
static const kt_key keys[] = {
    INT(c_in, 1, CH, "input channels (CBED patterns stacked)"),
    INT(height, 1, PX, "image height in pixels"),
    INT(width, 1, PX, "image width in pixels"),
    INT(f0, 1, CH, "CONV_INIT output features"),
    INT(k0, 1, 99, "CONV_INIT kernel size (odd)"),
    INT(growth, 1, CH, "maps added by each dense layer"),
    INT(k, 1, 99, "dense-layer kernel size (odd)"),
    LIST(down, LY, "layers per down dense block, one per level"),
    LIST(td, CH, "transition-down features, one per level"),
    INT(bottleneck, 1, LY, "layers of the bottleneck block"),
    LIST(up, LY, "layers per up dense block, one per level"),
    LIST(tu, CH, "transition-up features, one per level"),
    INT(c_out, 1, CH, "output maps"),
    {.key = NULL},
};

static const char *const preset_names[] = {"gb2019", "bench256", "small", "tiny", NULL};
const char *const *cfg_preset_names(void) { return preset_names; }

static void set_list(int *dst, int *n, const int *src, int len)
{
    memcpy(dst, src, (size_t)len * sizeof *dst);
    *n = len;
}

int cfg_preset(cfg_t *c, const char *name)
{
    cfg_t d;
    memset(&d, 0, sizeof d);
    d.c_out = 1;
    runcfg_default(&d.run);
    if (!strcmp(name, "gb2019") || !strcmp(name, "bench256")) {
        /* the 2019 Gordon Bell network (Laanait et al., arXiv 1909.11150) */
        int big = !strcmp(name, "gb2019");
        d.c_in = big ? 1024 : 256;
        d.height = d.width = big ? 512 : 256;
        d.f0 = 256, d.k0 = 5, d.growth = 256, d.k = 5, d.bottleneck = 3;
        set_list(d.down, &d.ndown, (int[]){1, 2, 4}, 3);
        set_list(d.up, &d.nup, (int[]){4, 2, 1}, 3);
        set_list(d.td, &d.ntd, (int[]){512, 1024, 2048}, 3);
        set_list(d.tu, &d.ntu, (int[]){768, 1024, 512}, 3);
        d.run.steps = 5;
        d.run.warmup = 1;
        /* no batch norm: Adam moves every weight by about lr per step whatever
         * its gradient, so wide layers (fan-in up to 90,000) need a small rate */
        d.run.lr = 1e-5;
    } else if (!strcmp(name, "small")) {
        /* gb2019's wiring at a quarter of its widths and 64x64 images: about a
         * second per step on one core of the development machine */
        d.c_in = 128;
        d.height = d.width = 64;
        d.f0 = 64, d.k0 = 5, d.growth = 64, d.k = 5, d.bottleneck = 3;
        set_list(d.down, &d.ndown, (int[]){1, 2, 4}, 3);
        set_list(d.up, &d.nup, (int[]){4, 2, 1}, 3);
        set_list(d.td, &d.ntd, (int[]){128, 256, 512}, 3);
        set_list(d.tu, &d.ntu, (int[]){192, 256, 128}, 3);
        d.run.lr = 5e-5;
    } else if (!strcmp(name, "tiny")) {
        /* two levels, odd widths and 3x3 kernels: milliseconds per step, for tests */
        d.c_in = 6;
        d.height = d.width = 16;
        d.f0 = 8, d.k0 = 3, d.growth = 5, d.k = 3, d.bottleneck = 2;
        set_list(d.down, &d.ndown, (int[]){1, 2}, 2);
        set_list(d.up, &d.nup, (int[]){2, 1}, 2);
        set_list(d.td, &d.ntd, (int[]){9, 12}, 2);
        set_list(d.tu, &d.ntu, (int[]){7, 6}, 2);
        d.run.steps = 30;
        d.run.warmup = 1;
        d.run.lr = 3e-3;
    } else {
        return -1;
    }
    d.levels = d.ndown;
    snprintf(d.preset, sizeof d.preset, "%s", name);
    *c = d;
    return 0;
}

/* The keys of the configuration besides the two tables. */
static const char *const extra_keys[] = {"preset", "image", NULL};

static int set_extra(void *cfg, const char *key, const char *value, char *err, size_t errlen);

/* Derived fields: the number of levels is the length of down. */
static void after_set(void *cfg, const kt_key *k)
{
    cfg_t *c = cfg;
    if (k->off == F(down)) c->levels = c->ndown;
}

static const kt_table parts[] = {
    {keys, 0},
    RUNCFG_TABLE(cfg_t, run),
};
static const kt_spec spec = {
    .what = "a STEMDL configuration",
    .parts = parts,
    .nparts = sizeof parts / sizeof *parts,
    .extra = extra_keys,
    .set_extra = set_extra,
    .first = "preset",
    .after_set = after_set,
};

static int set_extra(void *cfg, const char *key, const char *value, char *err, size_t errlen)
{
    cfg_t *c = cfg;
    if (!strcmp(key, "preset")) {
        if (cfg_preset(c, value) == 0) return 0;
        snprintf(err, errlen, "unknown preset '%s' (choose gb2019, bench256, small or tiny)", value);
        return -1;
    }
    if (!strcmp(key, "image")) {
        if (kt_set(&spec, c, "height", value, err, errlen)) return -1;
        return kt_set(&spec, c, "width", value, err, errlen);
    }
    return 1;
}

const kt_spec *cfg_keys(void) { return &spec; }

int cfg_set(cfg_t *c, const char *key, const char *value, char *err, size_t errlen)
{
    return kt_set(&spec, c, key, value, err, errlen);
}

int cfg_load_yaml(cfg_t *c, const char *path, char *err, size_t errlen)
{
    return kt_load_yaml(&spec, c, path, err, errlen);
}

/* Every FLOP count a run makes fits 64 bits: the plan's weights and forward
 * FLOPs (plan_build_checked), and a bound on a rank's executed FLOPs summed
 * over the timed steps (the kernel table's totals): per sample 3 x forward
 * (forward, data and weight gradients) plus 16 per element of each layer's
 * input and output (bias, ReLU, pooling, loss, copies), per step 32 per
 * parameter (optimizer, reductions). */
static int step_counts_fit(const cfg_t *c, char *err, size_t errlen)
{
    plan_t p;
    if (plan_build_checked(&p, c, err, errlen)) return -1;
    int64_t per_sample = 0, t, bound;
    int bad = 0;
    for (int i = 0; i < p.n && !bad; i++) {
        const plan_layer *l = &p.layers[i];
        int64_t elems;
        bad = count_prod((const int64_t[]){16, (int64_t)l->c_in + l->c_out, l->h_out, l->w_out}, 4,
                         &elems) ||
              count_mul(3, l->fwd_flops, &t) || count_add(t, elems, &t) ||
              count_add(per_sample, t, &per_sample);
    }
    bad = bad || count_mul(per_sample, c->run.batch, &bound) || count_mul(32, p.params, &t) ||
          count_add(bound, t, &bound) || count_mul(bound, c->run.steps, &t);
    plan_free(&p);
    if (bad)
        return snprintf(err, errlen, "network too large: the FLOPs of %d steps at batch %d do not "
                        "fit a 64-bit count (a smaller network, batch or steps)",
                        c->run.steps, c->run.batch),
               -1;
    return 0;
}

int cfg_validate(const cfg_t *c, char *err, size_t errlen)
{
    /* cfg_set checks ranges; a cfg_t filled in by code must pass the same */
    const struct { const char *name; int v, max; } pos[] = {
        {"c_in", c->c_in, CH},   {"height", c->height, PX},         {"width", c->width, PX},
        {"f0", c->f0, CH},       {"k0", c->k0, 99},                 {"growth", c->growth, CH},
        {"k", c->k, 99},         {"bottleneck", c->bottleneck, LY}, {"c_out", c->c_out, CH},
    };
    for (size_t i = 0; i < sizeof pos / sizeof *pos; i++)
        if (pos[i].v < 1 || pos[i].v > pos[i].max)
            return snprintf(err, errlen, "%s must be from 1 to %d, not %d", pos[i].name,
                            pos[i].max, pos[i].v),
                   -1;
    if (runcfg_validate(&c->run, err, errlen)) return -1;
    if (c->ndown < 1) return snprintf(err, errlen, "down: at least one level is needed"), -1;
    if (c->nup != c->ndown || c->ntd != c->ndown || c->ntu != c->ndown)
        return snprintf(err, errlen,
                        "list lengths disagree: down has %d entries, up %d, td %d, tu %d "
                        "(one entry per level each)",
                        c->ndown, c->nup, c->ntd, c->ntu),
               -1;
    if (c->ndown > CFG_MAX_LEVELS || c->levels != c->ndown)
        return snprintf(err, errlen, "levels %d: must equal the length of down (%d), at most %d",
                        c->levels, c->ndown, CFG_MAX_LEVELS),
               -1;
    for (int i = 0; i < c->ndown; i++)
        if (c->down[i] < 1 || c->up[i] < 1 || c->td[i] < 1 || c->tu[i] < 1 || c->down[i] > LY ||
            c->up[i] > LY || c->td[i] > CH || c->tu[i] > CH)
            return snprintf(err, errlen, "level %d: down and up must be from 1 to %d, td and tu "
                            "from 1 to %d", i, LY, CH),
                   -1;
    if (c->k % 2 == 0 || c->k0 % 2 == 0)
        return snprintf(err, errlen, "kernel sizes must be odd for SAME padding (k=%d, k0=%d)", c->k,
                        c->k0),
               -1;
    int levels = c->ndown;
    if (c->height % (1 << levels) || c->width % (1 << levels))
        return snprintf(err, errlen,
                        "image %dx%d is not divisible by 2^levels = %d (%d levels of 2x2 pooling)",
                        c->height, c->width, 1 << levels, levels),
               -1;
    /* the layer count first: describing a network (the dry step's kernel
     * table) grows with its square, and it bounds every channel count below */
    int layers = 2 + 2 * levels + c->bottleneck;
    for (int i = 0; i < levels; i++) layers += c->down[i] + c->up[i];
    if (layers > CFG_MAX_LAYERS)
        return snprintf(err, errlen, "the network has %d layers; at most %d are allowed (down, up "
                        "and bottleneck layers, plus 2 per level and 2)", layers, CFG_MAX_LAYERS),
               -1;
    /* keep every buffer's element count well inside 64 bits */
    double widest = (double)c->c_in + c->f0 + c->td[0] + c->tu[0];
    for (int i = 0; i < levels; i++)
        widest += (double)c->growth * (c->down[i] + c->up[i]) + c->td[i] + c->tu[i];
    widest += (double)c->growth * c->bottleneck;
    if (widest * c->height * c->width * c->run.batch > 1e17)
        return snprintf(err, errlen, "network too large: buffers would exceed 1e17 elements"), -1;
    return step_counts_fit(c, err, errlen);
}

void cfg_write(const cfg_t *c, rec_t *r)
{
    rec_key(r, "config");
    rec_map_begin(r);
    rec_kv_str(r, "preset", c->preset[0] ? c->preset : NULL);
    kt_write(&spec, c, r);
    rec_map_end(r);
}

void cfg_print_help(FILE *f)
{
    fprintf(f, "  --preset NAME          gb2019 | bench256 | small | tiny (default small)\n");
    fprintf(f, "  --image N              height and width together\n");
    kt_print_help(&spec, f);
}
