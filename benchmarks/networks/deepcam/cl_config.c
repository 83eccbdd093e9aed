#include "benchmarks/networks/deepcam/cl_config.h"

#include <stddef.h>
#include <string.h>

#define F(x) offsetof(cl_cfg, x)
#define INT(name, lo, hi, text) \
    {.key = #name, .type = KT_INT, .off = F(name), .min = lo, .max = hi, .help = text}
#define SZ(x) sizeof(((cl_cfg *)0)->x)
static const char *const bn_modes[] = {"local", "sync", NULL};

int cl_cfg_spatial(const char *text, int s[2])
{
    /* digits, optionally 'x' and digits: parsed by hand, linear, no overflow
     * (each part at most 4 digits) */
    int part = 0, digits = 0;
    s[0] = 0, s[1] = 1;
    for (const char *c = text;; c++) {
        if (*c >= '0' && *c <= '9') {
            if (++digits > 4) return -1;
            s[part] = (digits == 1 ? 0 : s[part]) * 10 + (*c - '0');
        } else if ((*c == 'x' && part == 0) || *c == 0) {
            if (!digits || s[part] < 1 || s[part] > 4096) return -1;
            if (*c == 0) return 0;
            part = 1, digits = 0;
        } else {
            return -1;
        }
    }
}

static int spatial_valid(const char *text)
{
    int s[2];
    return cl_cfg_spatial(text, s) == 0;
}
#define DBL(name, lo, hi, text) \
    {.key = #name, .type = KT_DOUBLE, .off = F(name), .min = lo, .max = hi, .help = text}
/* the network's keys, in record order; the run keys follow (runcfg.h) */
static const kt_key keys[] = {
    INT(channels, 1, CL_MAX_CHANNELS, "input channels (climate variables)"),
    INT(height, 16, CL_MAX_PIXELS, "image height in pixels (a multiple of 16)"),
    INT(width, 16, CL_MAX_PIXELS, "image width in pixels (a multiple of 16)"),
    INT(width_div, 1, CL_MAX_DIV, "layer widths are DeepCAM's divided by this, rounded up"),
    INT(middle_blocks, 0, CL_MAX_MIDDLE, "Xception middle-flow blocks (DeepCAM: 16)"),
    DBL(w_background, 1e-6, 1e6, "loss weight of class 0 (background)"),
    DBL(w_cyclone, 1e-6, 1e6, "loss weight of class 1 (tropical cyclones)"),
    DBL(w_river, 1e-6, 1e6, "loss weight of class 2 (atmospheric rivers)"),
    DBL(bn_eps, 1e-12, 1, "batch norm epsilon"),
    {.key = "bn", .type = KT_CHOICE, .off = F(bn), .aux = SZ(bn), .choices = bn_modes,
     .help = "batch norm statistics: local (each rank's batch, DeepCAM's default) | sync "
             "(allreduced over a group of ranks)"},
    INT(bn_group, 0, 1 << 20, "--bn sync: ranks per statistics group (0: every rank)"),
    {.key = "spatial", .type = KT_WORD, .off = F(spatial), .aux = SZ(spatial),
     .valid = spatial_valid, .what = "N or HxW (tiles along H and W, each 1 to 4096)",
     .help = "each sample split into an HxW grid of tiles over groups of H W ranks (N: Nx1); "
             "batch norm and the image pool then sum over the group; docs/spatial.md"},
    {.key = NULL},
};

int cl_cfg_preset(cl_cfg *c, const char *name)
{
    cl_cfg d;
    memset(&d, 0, sizeof d);
    runcfg_default(&d.run);
    /* the synthetic data's classes are about 91% / 3% / 6% of the pixels
     * (docs/climate.md "Data"): weights near the inverse square roots of
     * those frequencies, relative to the background */
    d.w_background = 1.0, d.w_cyclone = 5.5, d.w_river = 3.9;
    d.bn_eps = 1e-5;
    /* DeepCAM's reference trains with --batchnorm_group_size 1 (each GPU's
     * own statistics) unless told otherwise: local is the default here too */
    snprintf(d.bn, sizeof d.bn, "local");
    snprintf(d.spatial, sizeof d.spatial, "1");
    d.width_div = 1, d.middle_blocks = 16, d.channels = 16;
    if (!strcmp(name, "deepcam") || !strcmp(name, "gb2018")) {
        /* MLPerf HPC DeepCAM's reference sizes; the SC18 run's fields have
         * the same size (docs/climate.md "Presets") */
        d.height = 768, d.width = 1152;
        d.run.batch = !strcmp(name, "gb2018") ? 2 : 1;
        d.run.steps = 3;
        d.run.warmup = 1;
        d.run.lr = 1e-4;
    } else if (!strcmp(name, "small")) {
        /* the whole wiring at an eighth of the widths, 2 middle blocks,
         * 64 x 96 fields: a CPU training test (tests/it/climate.sh: the mean
         * loss of the last 5 of 40 steps is under half that of the first 5) */
        d.height = 64, d.width = 96;
        d.width_div = 8, d.middle_blocks = 2;
        d.run.batch = 4;
        d.run.steps = 40;
        d.run.warmup = 0;
        d.run.lr = 4e-3;
    } else if (!strcmp(name, "tiny")) {
        /* a sixteenth of the widths, 1 middle block, 32 x 48 fields */
        d.channels = 4;
        d.height = 32, d.width = 48;
        d.width_div = 16, d.middle_blocks = 1;
        d.run.batch = 2;
        d.run.steps = 4;
        d.run.warmup = 1;
        d.run.lr = 2e-3;
    } else {
        return -1;
    }
    snprintf(d.preset, sizeof d.preset, "%s", name);
    *c = d;
    return 0;
}

static const char *const extra_keys[] = {"preset", "image", NULL};
static int set_extra(void *cfg, const char *key, const char *value, char *err, size_t errlen);

static const kt_table parts[] = {
    {keys, 0},
    RUNCFG_TABLE(cl_cfg, run),
};
static const kt_spec spec = {
    .what = "a climate configuration",
    .parts = parts,
    .nparts = sizeof parts / sizeof *parts,
    .extra = extra_keys,
    .set_extra = set_extra,
    .first = "preset",
};

static int set_extra(void *cfg, const char *key, const char *value, char *err, size_t errlen)
{
    cl_cfg *c = cfg;
    if (!strcmp(key, "preset")) {
        if (cl_cfg_preset(c, value) == 0) return 0;
        snprintf(err, errlen, "unknown preset '%s' (choose tiny, small, deepcam or gb2018)", value);
        return -1;
    }
    if (!strcmp(key, "image")) {
        if (kt_set(&spec, c, "height", value, err, errlen)) return -1;
        return kt_set(&spec, c, "width", value, err, errlen);
    }
    return 1;
}

const kt_spec *cl_cfg_keys(void) { return &spec; }

int cl_cfg_validate(const cl_cfg *c, char *err, size_t errlen)
{
    if (c->height % 16 || c->width % 16) {
        snprintf(err, errlen,
                 "height %d and width %d must be multiples of 16 (the encoder's output stride)",
                 c->height, c->width);
        return -1;
    }
    if (!strcmp(c->bn, "sync") && !strcmp(c->run.backend, "cuda")) {
        snprintf(err, errlen, "--bn sync runs on the cpu backend only (its reductions are host "
                              "loops: docs/climate.md \"Synchronised batch norm\")");
        return -1;
    }
    if (!strcmp(c->bn, "sync") && c->run.trainers > 1) {
        snprintf(err, errlen, "--bn sync with --trainers %d: synchronised statistics are for one "
                              "trainer's ranks only", c->run.trainers);
        return -1;
    }
    int sg[2];
    if (cl_cfg_spatial(c->spatial, sg)) {
        snprintf(err, errlen, "--spatial %s: not N or HxW", c->spatial);
        return -1;
    }
    int N = sg[0] * sg[1];
    if (N > 4096) {
        snprintf(err, errlen, "--spatial %s: %d ranks per sample (at most 4096)", c->spatial, N);
        return -1;
    }
    if (N > 1 && strcmp(c->run.backend, "cpu")) {
        snprintf(err, errlen, "--spatial %s runs on the cpu backend only (its batch-norm sums "
                              "and halo copies have not run on a GPU)", c->spatial);
        return -1;
    }
    if (N > 1 && c->run.trainers > 1) {
        snprintf(err, errlen, "--spatial %s with --trainers %d: not supported (a split's batch "
                              "norm is synchronised over its group)", c->spatial, c->run.trainers);
        return -1;
    }
    if (N > 1 && c->bn_group > 0 && c->bn_group % N) {
        snprintf(err, errlen, "--bn-group %d with --spatial %s: a statistics group must hold "
                              "whole spatial groups (a multiple of %d ranks)",
                 c->bn_group, c->spatial, N);
        return -1;
    }
    if (strcmp(c->bn, "sync") && c->bn_group != 0) {
        snprintf(err, errlen, "--bn-group %d needs --bn sync", c->bn_group);
        return -1;
    }
    return runcfg_validate(&c->run, err, errlen);
}

void cl_cfg_write(const cl_cfg *c, rec_t *r)
{
    rec_key(r, "config");
    rec_map_begin(r);
    rec_kv_str(r, "preset", c->preset[0] ? c->preset : NULL);
    kt_write(&spec, c, r);
    rec_map_end(r);
}

void cl_cfg_print_help(FILE *f)
{
    fprintf(f, "  --preset NAME          tiny | small | deepcam | gb2018 (default small)\n");
    fprintf(f, "  --image N              height and width together\n");
    kt_print_help(&spec, f);
}

int cl_cfg_ch(const cl_cfg *c, int deepcam_channels)
{
    int d = c->width_div > 0 ? c->width_div : 1;
    int v = (deepcam_channels + d - 1) / d;
    return v > 0 ? v : 1;
}
