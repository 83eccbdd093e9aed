#include "benchmarks/modelpar/mp_config.h"

#include <string.h>

#include "benchmarks/common/count.h"
#include "benchmarks/common/opt.h"

int mp_parse_grid(const char *text, int g[2])
{
    if (!strcmp(text, "auto")) {
        g[0] = g[1] = 0;
        return 0;
    }
    const char *x = strchr(text, 'x');
    char a[16] = "1", b[16];
    size_t la = x ? (size_t)(x - text) : 0;
    const char *rest = x ? x + 1 : text;
    if (la >= sizeof a || strlen(rest) >= sizeof b) return -1;
    if (x) memcpy(a, text, la), a[la] = 0;
    snprintf(b, sizeof b, "%s", rest);
    long long va, vb;
    if (opt_parse_int(a, &va) || opt_parse_int(b, &vb) || va < 1 || vb < 1 || va > 65536 ||
        vb > 65536)
        return -1;
    g[0] = (int)va, g[1] = (int)vb;
    return 0;
}

static int grid_valid(const char *text)
{
    int g[2];
    return mp_parse_grid(text, g) == 0;
}

#define F(x) offsetof(mp_cfg, x)
#define INT(name, lo, hi, text) \
    {.key = #name, .type = KT_INT, .off = F(name), .min = lo, .max = hi, .help = text}
static const kt_key keys[] = {
    INT(size, 1, 65536, "the image is size x size positions"),
    INT(channels, 1, 4096, "input channels (reconstructed by the last layer)"),
    INT(hidden1, 1, 65536, "channels of the first hidden layer"),
    INT(hidden2, 1, 65536, "channels of the second hidden layer"),
    INT(kernel, 1, 63, "receptive field kernel x kernel (odd), 'same' padding"),
    {.key = "slope", .type = KT_DOUBLE, .off = F(slope), .min = 1e-6, .max = 1,
     .help = "leaky ReLU slope for negative inputs"},
    {.key = "sparsity", .type = KT_DOUBLE, .off = F(sparsity), .min = 0, .max = 1e6,
     .help = "lambda of the L1 sparsity term on lc2's output (0: none)"},
    INT(dense, 0, 1 << 20, "D: hidden width of a tensor-parallel dense pair after lc2 (0: none)"),
    INT(model_ranks, 0, 1 << 20, "M: ranks of a model group (each a tile of every layer); 0: every rank of the job (one model group)"),
    {.key = "grid", .type = KT_WORD, .off = F(grid), .aux = sizeof(((mp_cfg *)0)->grid),
     .valid = grid_valid, .what = "auto or GYxGX (positive tiles along rows and columns)",
     .help = "tiles of a model group: GYxGX with GY * GX = model-ranks, or auto"},
    {.key = NULL},
};

const char *mp_preset_list(void) { return "tiny, small, medium or yfcc15b"; }

/* The presets: the network, the model ranks and the run's length. */
static const struct {
    const char *name;
    int size, channels, hidden1, hidden2, kernel, model_ranks, steps, warmup, batch;
} presets[] = {
    /* 8 x 8 positions, 14,400 weights: 1, 2 and 4 tiles of 4+ positions */
    {"tiny", 8, 1, 4, 4, 3, 1, 20, 0, 2},
    /* 2.07e6 weights (33 MB with gradients and Adam): memory per rank
     * dominated by the shard, so that it falls with the model ranks */
    {"small", 32, 1, 8, 8, 5, 1, 4, 1, 2},
    {"medium", 64, 3, 16, 16, 7, 1, 5, 1, 4},
    /* 14.99e9 weights in three layers (Ni et al. 2015 give the count and
     * the depth; the sizes are ExaDL's, docs/modelparallel.md); 8 x 8 tiles of
     * 16 x 16 positions: 234e6 weights a rank */
    {"yfcc15b", 128, 3, 116, 92, 9, 64, 5, 1, 1},
};

int mp_preset(mp_cfg *c, const char *name)
{
    for (size_t i = 0; i < sizeof presets / sizeof *presets; i++) {
        if (strcmp(presets[i].name, name)) continue;
        mp_cfg d;
        memset(&d, 0, sizeof d);
        runcfg_default(&d.run);
        d.slope = 0.1;
        d.run.lr = 1e-3;
        snprintf(d.grid, sizeof d.grid, "auto");
        d.size = presets[i].size, d.channels = presets[i].channels;
        d.hidden1 = presets[i].hidden1, d.hidden2 = presets[i].hidden2;
        d.kernel = presets[i].kernel, d.model_ranks = presets[i].model_ranks;
        d.run.steps = presets[i].steps, d.run.warmup = presets[i].warmup;
        d.run.batch = presets[i].batch;
        snprintf(d.preset, sizeof d.preset, "%s", name);
        *c = d;
        return 0;
    }
    return -1;
}

static const char *const extra_keys[] = {"preset", NULL};

static int set_extra(void *cfg, const char *key, const char *value, char *err, size_t errlen)
{
    if (strcmp(key, "preset")) return 1;
    if (mp_preset(cfg, value) == 0) return 0;
    snprintf(err, errlen, "unknown preset '%s' (choose %s)", value, mp_preset_list());
    return -1;
}

/* the network's and the partition's keys, then the run keys (runcfg.h) */
static const kt_table parts[] = {{keys, 0}, RUNCFG_TABLE(mp_cfg, run)};
static const kt_spec spec = {.what = "a modelpar configuration", .parts = parts,
                             .nparts = sizeof parts / sizeof *parts, .extra = extra_keys,
                             .set_extra = set_extra, .first = "preset"};

const kt_spec *mp_keys(void) { return &spec; }

int mp_validate(const mp_cfg *c, char *err, size_t errlen)
{
    if (c->kernel % 2 == 0)
        return snprintf(err, errlen, "kernel %d: must be odd for 'same' padding", c->kernel), -1;
    if (!(c->slope > 0)) return snprintf(err, errlen, "slope must be positive"), -1;
    int g[2];
    if (mp_parse_grid(c->grid, g))
        return snprintf(err, errlen, "grid '%s' is not auto or GYxGX", c->grid), -1;
    if (runcfg_validate(&c->run, err, errlen)) return -1;
    if (strcmp(c->run.precision, "fp32"))
        return snprintf(err, errlen, "precision %s: modelpar trains in fp32 only", c->run.precision),
               -1;
    if (c->run.trainers > 1)
        return snprintf(err, errlen, "trainers %d: modelpar runs one trainer (model groups x "
                                     "data-parallel replicas instead)", c->run.trainers),
               -1;
    /* every count inside 64 bits: the widest layer's weights per position,
     * all weights, a batch's FLOPs */
    int64_t pos, k2, w, fl;
    int64_t widest = c->hidden1 > c->hidden2 ? c->hidden1 : c->hidden2;
    if (widest < c->channels) widest = c->channels;
    if (count_mul(c->size, c->size, &pos) || count_mul(c->kernel, c->kernel, &k2) ||
        count_prod((const int64_t[]){pos, k2, widest, widest, 3}, 5, &w) ||
        count_prod((const int64_t[]){w, 6, c->run.batch}, 3, &fl) || fl > (int64_t)1 << 60 ||
        count_prod((const int64_t[]){pos, c->hidden2, c->dense, 12, c->run.batch}, 5, &fl) ||
        fl > (int64_t)1 << 60)
        return snprintf(err, errlen, "network too large: weights or FLOPs per step overflow"), -1;
    return 0;
}

void mp_write(const mp_cfg *c, rec_t *r)
{
    rec_key(r, "config");
    rec_map_begin(r);
    rec_kv_str(r, "preset", c->preset[0] ? c->preset : NULL);
    kt_write(&spec, c, r);
    rec_map_end(r);
}

void mp_print_help(FILE *f)
{
    fprintf(f, "  --preset NAME          %s (default tiny)\n", mp_preset_list());
    kt_print_help(&spec, f);
}
