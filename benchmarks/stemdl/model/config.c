#include "benchmarks/stemdl/model/config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/opt.h"
#include "benchmarks/common/ytree.h"

typedef enum { K_INT, K_LIST, K_U64, K_DOUBLE, K_CHOICE, K_BOOL, K_GROUPING } key_type;

typedef struct {
    const char *key;
    key_type type;
    size_t off;       /* offset of the field in cfg_t */
    size_t len_off;   /* K_LIST: offset of its length field; K_CHOICE: field size */
    double min, max;
    const char *const *choices; /* K_CHOICE */
    const char *help;
} key_t_;

static const char *const precisions[] = {"fp32", "tf32", "bf16", "fp16", NULL};
static const char *const kernel_sets[] = {"reference", "fast", NULL};
static const char *const backends[] = {"cpu", "cuda", NULL};
static const char *const orchestrations[] = {"coordinator", "bitvector", NULL};

#define F(x) offsetof(cfg_t, x)
#define SZ(x) sizeof(((cfg_t *)0)->x)
#define BIG 1e9
static const key_t_ keys[] = {
    {"c_in", K_INT, F(c_in), 0, 1, BIG, NULL, "input channels (CBED patterns stacked)"},
    {"height", K_INT, F(height), 0, 1, BIG, NULL, "image height in pixels"},
    {"width", K_INT, F(width), 0, 1, BIG, NULL, "image width in pixels"},
    {"f0", K_INT, F(f0), 0, 1, BIG, NULL, "CONV_INIT output features"},
    {"k0", K_INT, F(k0), 0, 1, 99, NULL, "CONV_INIT kernel size (odd)"},
    {"growth", K_INT, F(growth), 0, 1, BIG, NULL, "maps added by each dense layer"},
    {"k", K_INT, F(k), 0, 1, 99, NULL, "dense-layer kernel size (odd)"},
    {"down", K_LIST, F(down), F(ndown), 1, BIG, NULL, "layers per down dense block, one per level"},
    {"td", K_LIST, F(td), F(ntd), 1, BIG, NULL, "transition-down features, one per level"},
    {"bottleneck", K_INT, F(bottleneck), 0, 1, BIG, NULL, "layers of the bottleneck block"},
    {"up", K_LIST, F(up), F(nup), 1, BIG, NULL, "layers per up dense block, one per level"},
    {"tu", K_LIST, F(tu), F(ntu), 1, BIG, NULL, "transition-up features, one per level"},
    {"c_out", K_INT, F(c_out), 0, 1, BIG, NULL, "output maps"},
    {"batch", K_INT, F(batch), 0, 1, 1 << 20, NULL, "samples per rank per step"},
    {"steps", K_INT, F(steps), 0, 1, 1 << 24, NULL, "timed training steps"},
    {"warmup", K_INT, F(warmup), 0, 0, 1 << 24, NULL, "warm-up steps (run, not timed)"},
    {"seed", K_U64, F(seed), 0, 0, 0, NULL, "seed of weights and synthetic data"},
    {"precision", K_CHOICE, F(precision), SZ(precision), 0, 0, precisions, "fp32 | tf32 | bf16 | fp16"},
    {"kernels", K_CHOICE, F(kernels), SZ(kernels), 0, 0, kernel_sets, "reference | fast"},
    {"backend", K_CHOICE, F(backend), SZ(backend), 0, 0, backends, "cpu | cuda"},
    {"lr", K_DOUBLE, F(lr), 0, 0, 10, NULL, "Adam learning rate"},
    {"beta1", K_DOUBLE, F(beta1), 0, 0, 0.999999, NULL, "Adam beta1"},
    {"beta2", K_DOUBLE, F(beta2), 0, 0, 0.999999999, NULL, "Adam beta2"},
    {"eps", K_DOUBLE, F(eps), 0, 1e-30, 1, NULL, "Adam epsilon"},
    {"threads", K_INT, F(threads), 0, 0, 4096, NULL, "threads per rank (0: cores / ranks on the node)"},
    {"kernel_timing", K_BOOL, F(kernel_timing), 0, 0, 0, NULL, "time every kernel (false: step time only)"},
    {"orchestration", K_CHOICE, F(orchestration), SZ(orchestration), 0, 0, orchestrations,
     "gradient negotiation: coordinator | bitvector (response cache)"},
    {"cache_capacity", K_INT, F(cache_capacity), 0, 0, BIG, NULL,
     "response cache, tensors (0: no cache, i.e. coordinator)"},
    {"grouping", K_GROUPING, F(grouping), SZ(grouping), 0, 0, NULL,
     "none | layer (graph-aware) | N groups of similar bytes"},
    {"fusion_bytes", K_INT, F(fusion_bytes), 0, 4, 1 << 30, NULL, "largest fused reduction, bytes"},
    {"cycle_ms", K_DOUBLE, F(cycle_ms), 0, 0, 1000, NULL, "gradient-engine cycle time, ms"},
    {"comm_timeout", K_DOUBLE, F(comm_timeout), 0, 0.1, 1e6, NULL,
     "seconds without progress before a stalled reduction fails"},
};
#define NKEYS (sizeof keys / sizeof *keys)

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
    d.batch = 1;
    d.steps = 10;
    d.warmup = 2;
    d.seed = 42;
    d.lr = 1e-3;
    d.beta1 = 0.9;
    d.beta2 = 0.999;
    d.eps = 1e-8;
    d.kernel_timing = 1;
    snprintf(d.precision, sizeof d.precision, "fp32");
    snprintf(d.kernels, sizeof d.kernels, "fast");
    snprintf(d.backend, sizeof d.backend, "cpu");
    /* the paper's engine: bit vector, graph-aware groups, 8 MiB fusion */
    snprintf(d.orchestration, sizeof d.orchestration, "bitvector");
    d.cache_capacity = 1024;
    snprintf(d.grouping, sizeof d.grouping, "layer");
    d.fusion_bytes = 8 << 20;
    d.cycle_ms = 1.0;
    d.comm_timeout = 60.0;
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
        d.steps = 5;
        d.warmup = 1;
        /* no batch norm: Adam moves every weight by about lr per step whatever
         * its gradient, so wide layers (fan-in up to 90,000) need a small rate */
        d.lr = 1e-5;
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
        d.lr = 5e-5;
    } else if (!strcmp(name, "tiny")) {
        /* two levels, odd widths and 3x3 kernels: milliseconds per step, for tests */
        d.c_in = 6;
        d.height = d.width = 16;
        d.f0 = 8, d.k0 = 3, d.growth = 5, d.k = 3, d.bottleneck = 2;
        set_list(d.down, &d.ndown, (int[]){1, 2}, 2);
        set_list(d.up, &d.nup, (int[]){2, 1}, 2);
        set_list(d.td, &d.ntd, (int[]){9, 12}, 2);
        set_list(d.tu, &d.ntu, (int[]){7, 6}, 2);
        d.steps = 30;
        d.warmup = 1;
        d.lr = 3e-3;
    } else {
        return -1;
    }
    d.levels = d.ndown;
    snprintf(d.preset, sizeof d.preset, "%s", name);
    *c = d;
    return 0;
}

static const key_t_ *key_find(const char *name)
{
    char norm[64];
    snprintf(norm, sizeof norm, "%s", name);
    for (char *p = norm; *p; p++)
        if (*p == '-') *p = '_';
    for (size_t i = 0; i < NKEYS; i++)
        if (!strcmp(keys[i].key, norm)) return &keys[i];
    return NULL;
}

static const char *const *key_names(void)
{
    static const char *names[NKEYS + 4];
    if (!names[0]) {
        size_t n = 0;
        names[n++] = "preset";
        names[n++] = "image";
        for (size_t i = 0; i < NKEYS; i++) names[n++] = keys[i].key;
        names[n] = NULL;
    }
    return names;
}

static int set_int_checked(const key_t_ *k, long long v, int *dst, char *err, size_t errlen)
{
    if (v < (long long)k->min || v > (long long)k->max) {
        snprintf(err, errlen, "%s must be between %.0f and %.0f, not %lld", k->key, k->min, k->max, v);
        return -1;
    }
    *dst = (int)v;
    return 0;
}

/* Set a scalar key from text (the command line and YAML scalars both land here). */
static int set_text(cfg_t *c, const key_t_ *k, const char *value, char *err, size_t errlen)
{
    char *base = (char *)c;
    long long iv;
    double dv;
    switch (k->type) {
    case K_INT:
        if (opt_parse_int(value, &iv)) {
            snprintf(err, errlen, "%s: '%s' is not an integer", k->key, value);
            return -1;
        }
        return set_int_checked(k, iv, (int *)(base + k->off), err, errlen);
    case K_U64:
        if (opt_parse_int(value, &iv) || iv < 0) {
            snprintf(err, errlen, "%s: '%s' is not a non-negative integer", k->key, value);
            return -1;
        }
        *(uint64_t *)(base + k->off) = (uint64_t)iv;
        return 0;
    case K_DOUBLE:
        if (opt_parse_double(value, &dv)) {
            snprintf(err, errlen, "%s: '%s' is not a number", k->key, value);
            return -1;
        }
        if (dv < k->min || dv > k->max) {
            snprintf(err, errlen, "%s must be between %g and %g, not %g", k->key, k->min, k->max, dv);
            return -1;
        }
        *(double *)(base + k->off) = dv;
        return 0;
    case K_BOOL:
        if (!strcmp(value, "true") || !strcmp(value, "1") || !strcmp(value, "on")) {
            *(int *)(base + k->off) = 1;
        } else if (!strcmp(value, "false") || !strcmp(value, "0") || !strcmp(value, "off")) {
            *(int *)(base + k->off) = 0;
        } else {
            snprintf(err, errlen, "%s: '%s' is not true or false", k->key, value);
            return -1;
        }
        return 0;
    case K_CHOICE:
        for (int i = 0; k->choices[i]; i++)
            if (!strcmp(value, k->choices[i])) {
                snprintf(base + k->off, k->len_off, "%s", value);
                return 0;
            }
        snprintf(err, errlen, "%s: unknown value '%s'", k->key, value);
        return -1;
    case K_GROUPING: {
        char *end;
        long n = strtol(value, &end, 10);
        if (strcmp(value, "none") && strcmp(value, "layer") && (end == value || *end || n < 1 || n > 1000000)) {
            snprintf(err, errlen, "%s: '%s' is not none, layer or a number of groups", k->key, value);
            return -1;
        }
        snprintf(base + k->off, k->len_off, "%s", value);
        return 0;
    }
    case K_LIST: {
        int *dst = (int *)(base + k->off), *n = (int *)(base + k->len_off);
        int vals[CFG_MAX_LEVELS], cnt = 0;
        const char *p = value;
        while (*p) {
            char item[32];
            size_t len = strcspn(p, ",");
            if (len == 0 || len >= sizeof item || cnt == CFG_MAX_LEVELS) {
                snprintf(err, errlen, "%s: '%s' is not a list of at most %d integers like 1,2,4",
                         k->key, value, CFG_MAX_LEVELS);
                return -1;
            }
            memcpy(item, p, len);
            item[len] = 0;
            if (opt_parse_int(item, &iv)) {
                snprintf(err, errlen, "%s: '%s' is not an integer", k->key, item);
                return -1;
            }
            if (set_int_checked(k, iv, &vals[cnt], err, errlen)) return -1;
            cnt++;
            p += len;
            if (*p == ',') p++;
        }
        if (cnt == 0) {
            snprintf(err, errlen, "%s: empty list", k->key);
            return -1;
        }
        memcpy(dst, vals, (size_t)cnt * sizeof *dst);
        *n = cnt;
        if (k->off == F(down)) c->levels = cnt;
        return 0;
    }
    }
    return -1;
}

int cfg_set(cfg_t *c, const char *key, const char *value, char *err, size_t errlen)
{
    char norm[64];
    snprintf(norm, sizeof norm, "%s", key);
    for (char *p = norm; *p; p++)
        if (*p == '-') *p = '_';
    if (!strcmp(norm, "preset")) {
        if (cfg_preset(c, value) == 0) return 0;
        snprintf(err, errlen, "unknown preset '%s' (choose gb2019, bench256, small or tiny)", value);
        return -1;
    }
    if (!strcmp(norm, "image")) {
        if (set_text(c, key_find("height"), value, err, errlen)) return -1;
        return set_text(c, key_find("width"), value, err, errlen);
    }
    const key_t_ *k = key_find(norm);
    if (!k) {
        const char *s = yt_suggest(norm, key_names());
        if (s)
            snprintf(err, errlen, "unknown parameter '%s' (did you mean '%s'?)", key, s);
        else
            snprintf(err, errlen, "unknown parameter '%s' (see --help)", key);
        return -2;
    }
    return set_text(c, k, value, err, errlen);
}

/* A YAML value as text: scalars as they are, sequences of scalars joined with commas. */
static int yaml_value_text(const ytdoc *d, const ytnode *v, const key_t_ *k, char *buf, size_t len,
                           char *err, size_t errlen)
{
    if (k && k->type == K_LIST) {
        if (v->kind != YT_SEQ)
            return yt_err(err, errlen, d, v, "%s must be a list like [1, 2, 4]", k->key);
        size_t used = 0;
        buf[0] = 0;
        for (size_t i = 0; i < v->n; i++) {
            const ytnode *it = v->items[i];
            if (it->kind != YT_SCALAR || !it->plain)
                return yt_err(err, errlen, d, it, "%s: every entry must be an integer", k->key);
            used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : "", it->str);
            if (used >= len) return yt_err(err, errlen, d, v, "%s: list too long", k->key);
        }
        return 0;
    }
    if (v->kind != YT_SCALAR)
        return yt_err(err, errlen, d, v, "%s must be a single value, not a %s", k ? k->key : "value",
                      yt_kind_name(v->kind));
    /* "12" is a string in YAML: numbers and booleans must be written plain,
     * as the entries of lists already must */
    if (k && k->type != K_CHOICE && k->type != K_GROUPING && !v->plain)
        return yt_err(err, errlen, d, v, "%s must be %s, not the quoted string \"%s\"", k->key,
                      k->type == K_BOOL ? "true or false" : "a number", v->str);
    snprintf(buf, len, "%s", v->str);
    return 0;
}

int cfg_load_yaml(cfg_t *c, const char *path, char *err, size_t errlen)
{
    ytdoc *d = yt_load_file(path, err, errlen);
    if (!d) return -1;
    int rc = -1;
    char msg[512], text[1024];
    if (!d->root) {
        /* FILE:LINE:COL like every other message of this function */
        snprintf(err, errlen, "%s:1:1: the file is empty; expected a mapping of parameters", path);
        goto out;
    }
    if (yt_expect(d, d->root, YT_MAP, "a STEMDL configuration", err, errlen)) goto out;
    if (yt_check_keys(d, d->root, key_names(), err, errlen)) goto out;
    ytnode *p = yt_get(d->root, "preset");
    if (p) {
        if (yaml_value_text(d, p, NULL, text, sizeof text, err, errlen)) goto out;
        if (cfg_set(c, "preset", text, msg, sizeof msg)) {
            yt_err(err, errlen, d, p, "%s", msg);
            goto out;
        }
    }
    for (size_t i = 0; i < d->root->n; i++) {
        const ytnode *kn = yt_key(d->root, i), *v = yt_val(d->root, i);
        if (!strcmp(kn->str, "preset")) continue;
        if (yaml_value_text(d, v, key_find(kn->str), text, sizeof text, err, errlen)) goto out;
        if (cfg_set(c, kn->str, text, msg, sizeof msg)) {
            yt_err(err, errlen, d, v, "%s", msg);
            goto out;
        }
    }
    rc = 0;
out:
    yt_free(d);
    return rc;
}

int cfg_validate(const cfg_t *c, char *err, size_t errlen)
{
    /* cfg_set checks ranges; a cfg_t filled in by code must pass the same */
    const struct { const char *name; int v; } pos[] = {
        {"c_in", c->c_in},   {"height", c->height}, {"width", c->width},
        {"f0", c->f0},       {"k0", c->k0},         {"growth", c->growth},
        {"k", c->k},         {"bottleneck", c->bottleneck}, {"c_out", c->c_out},
        {"batch", c->batch},
    };
    for (size_t i = 0; i < sizeof pos / sizeof *pos; i++)
        if (pos[i].v < 1)
            return snprintf(err, errlen, "%s must be at least 1, not %d", pos[i].name, pos[i].v), -1;
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
        if (c->down[i] < 1 || c->up[i] < 1 || c->td[i] < 1 || c->tu[i] < 1)
            return snprintf(err, errlen, "level %d: down, up, td and tu must be at least 1", i), -1;
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
    if (c->steps < 1) return snprintf(err, errlen, "steps must be at least 1"), -1;
    if (strcmp(c->backend, "cpu") == 0 && strcmp(c->precision, "fp32") != 0)
        return snprintf(err, errlen,
                        "precision %s is for the cuda backend; the cpu backend runs fp32",
                        c->precision),
               -1;
    /* keep every buffer's element count well inside 64 bits */
    double widest = (double)c->c_in + c->f0 + c->td[0] + c->tu[0];
    for (int i = 0; i < levels; i++)
        widest += (double)c->growth * (c->down[i] + c->up[i]) + c->td[i] + c->tu[i];
    widest += (double)c->growth * c->bottleneck;
    if (widest * c->height * c->width * c->batch > 1e17)
        return snprintf(err, errlen, "network too large: buffers would exceed 1e17 elements"), -1;
    return 0;
}

void cfg_write(const cfg_t *c, rec_t *r)
{
    rec_key(r, "config");
    rec_map_begin(r);
    rec_kv_str(r, "preset", c->preset[0] ? c->preset : NULL);
    const char *base = (const char *)c;
    for (size_t i = 0; i < NKEYS; i++) {
        const key_t_ *k = &keys[i];
        rec_key(r, k->key);
        switch (k->type) {
        case K_INT: rec_int(r, *(const int *)(base + k->off)); break;
        case K_BOOL: rec_bool(r, *(const int *)(base + k->off)); break;
        case K_U64: rec_int(r, (int64_t) * (const uint64_t *)(base + k->off)); break;
        case K_DOUBLE: rec_double(r, *(const double *)(base + k->off)); break;
        case K_CHOICE:
        case K_GROUPING: rec_str(r, base + k->off); break;
        case K_LIST: {
            const int *v = (const int *)(base + k->off);
            int n = *(const int *)(base + k->len_off);
            rec_flow_seq_begin(r);
            for (int j = 0; j < n; j++) rec_int(r, v[j]);
            rec_seq_end(r);
            break;
        }
        }
    }
    rec_map_end(r);
}

void cfg_print_help(FILE *f)
{
    fprintf(f, "  --preset NAME          gb2019 | bench256 | small | tiny (default small)\n");
    fprintf(f, "  --image N              height and width together\n");
    for (size_t i = 0; i < NKEYS; i++) {
        char opt[40];
        snprintf(opt, sizeof opt, "--%s %s", keys[i].key,
                 keys[i].type == K_LIST ? "A,B,.." : keys[i].type == K_BOOL ? "BOOL" : "V");
        for (char *p = opt + 2; *p && *p != ' '; p++)
            if (*p == '_') *p = '-';
        fprintf(f, "  %-22s %s\n", opt, keys[i].help);
    }
}
