#include "benchmarks/networks/fcdensenet/config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/opt.h"
#include "benchmarks/train/keytab.h"

#define F(x) offsetof(cfg_t, x)
#define INT(name, lo, hi, text) \
    {.key = #name, .type = KT_INT, .off = F(name), .min = lo, .max = hi, .help = text}
/* a list and its length field n<name>, one entry per level */
#define LIST(name, hi, text)                                                             \
    {.key = #name, .type = KT_LIST, .off = F(name), .aux = F(n##name), .cap = CFG_MAX_LEVELS, \
     .min = 1, .max = hi, .help = text}
/* The ranges keep every int of the plan (channels, sizes) far from overflow;
 * the totals (weights, FLOPs) are checked with count.h in cfg_validate
 * (validate.c). */
#define CH CFG_MAX_CHANNELS
#define PX CFG_MAX_PIXELS
#define LY CFG_MAX_LAYERS
int cfg_parse_spatial(const char *text, int s[2])
{
    char buf[16];
    if (strlen(text) >= sizeof buf) return -1;
    snprintf(buf, sizeof buf, "%s", text);
    int n = 0;
    for (char *tok = buf, *next; tok; tok = next, n++) {
        next = strchr(tok, 'x');
        if (next) *next++ = 0;
        long long v;
        if (n == 2 || opt_parse_int(tok, &v) || v < 1 || v > 65536) return -1;
        s[n] = (int)v;
    }
    if (n == 1) s[1] = 1;
    return 0;
}

static int spatial_valid(const char *text)
{
    int s[2];
    return cfg_parse_spatial(text, s) == 0;
}

/* A file name: not empty, no control characters (it is printed back). */
static int cfg_path_text(const char *text)
{
    if (!*text) return 0;
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        if (*c < 0x20 || *c == 0x7f) return 0;
    return 1;
}

int cfg_plan_letters(const char *text)
{
    size_t n = strlen(text);
    if (n < 1 || n > 16) return 0;
    return strspn(text, "hs") == n;
}

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
    {.key = "spatial", .type = KT_WORD, .off = F(spatial), .aux = sizeof(((cfg_t *)0)->spatial),
     .valid = spatial_valid, .what = "N or HxW (positive splits of H and W)",
     .help = "spatial ranks per sample: an HxW grid of tiles; N = Nx1"},
    {.key = "spatial_plan", .type = KT_WORD, .off = F(spatial_plan),
     .aux = sizeof(((cfg_t *)0)->spatial_plan), .valid = cfg_plan_letters,
     .what = "a spatial plan (a letter per level: h tiles, s whole samples)",
     .help = "per-level decomposition of a --spatial run, levels 0 (full size) to the "
             "bottleneck: h (the grid's tiles) or s (whole samples, after an all-to-all shuffle); "
             "the last letter repeats; h = every level split (docs/spatial.md)"},
    /* the plan model's keys: only --describe reads them (describe_only) */
    {.key = "model_flops", .type = KT_DOUBLE, .off = F(model_flops), .min = 0, .max = 1e21,
     .describe_only = 1,
     .help = "plan model (--describe): sustained FLOP/s of one rank; 0: no predictions"},
    {.key = "model_latency_s", .type = KT_DOUBLE, .off = F(model_latency_s), .min = 0, .max = 1,
     .describe_only = 1, .help = "plan model: seconds per message between two ranks"},
    {.key = "model_bytes_per_s", .type = KT_DOUBLE, .off = F(model_Bps), .min = 0, .max = 1e15,
     .describe_only = 1,
     .help = "plan model: bytes per second of a link between two ranks; 0: no predictions"},
    {.key = "model_conv_times", .type = KT_BOOL, .off = F(model_conv_times), .describe_only = 1,
     .help = "plan model: charge each convolution of a candidate its time measured on this "
             "machine at its shape (benchmarked once, cached in EXADL_CONV_CACHE, else "
             "~/.cache/exadl/conv-HOST.tsv) instead of its FLOPs at --model-flops"},
    {.key = "model_links", .type = KT_WORD, .off = F(model_links),
     .aux = sizeof(((cfg_t *)0)->model_links), .valid = cfg_path_text,
     .what = "a file name", .describe_only = 1,
     .help = "plan model: latency and bandwidth from a machine file (reference/machines/*.yaml) "
             "or a collectives pingpong record, instead of --model-latency-s and "
             "--model-bytes-per-s"},
    {.key = "model_memory_bytes", .type = KT_DOUBLE, .off = F(model_memory_bytes), .min = 0,
     .max = 1e18, .describe_only = 1,
     .help = "plan model: network bytes one rank may hold (plans above it do not fit); 0: no "
             "limit"},
    {.key = "model_predicted_step_s", .type = KT_DOUBLE, .off = F(model_predicted_step_s),
     .min = 0, .max = 1e6, .describe_only = 1,
     .help = "the plan model's predicted step of this run, in seconds (exadl model --spatial "
             "--stemdl prints it in the command that runs its choice): written to the record "
             "beside the measured step, for the report; 0: none"},
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
    snprintf(d.spatial, sizeof d.spatial, "1x1");
    snprintf(d.spatial_plan, sizeof d.spatial_plan, "h");
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

/* cfg_t.describe_set holds a bit per key */
_Static_assert(sizeof keys / sizeof *keys <= 64, "more keys than describe_set has bits");

/* Derived fields: the number of levels is the length of down; which
 * describe-only keys were set (keys[] is their only table). */
static void after_set(void *cfg, const kt_key *k)
{
    cfg_t *c = cfg;
    if (k->off == F(down)) c->levels = c->ndown;
    if (k->describe_only) c->describe_set |= (uint64_t)1 << (k - keys);
}

static int was_set(const void *cfg, const kt_key *k)
{
    const cfg_t *c = cfg;
    return k->describe_only && (c->describe_set >> (k - keys) & 1);
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
    .was_set = was_set,
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
