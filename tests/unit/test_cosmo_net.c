/* The CosmoFlow network on one rank: its gradients against finite
 * differences of its loss (directional derivatives along random directions,
 * one per layer and one over everything), the fast set's step against the
 * reference step, the dry count against a real step, the exact parameter
 * and FLOP counts against hand formulas, the decomposition's arithmetic,
 * the data (synthetic sub-volumes, the raw file), and bad configurations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/rng.h"
#include "benchmarks/cosmoflow/model/cf_config.h"
#include "benchmarks/cosmoflow/model/cf_data.h"
#include "benchmarks/cosmoflow/model/cf_geom.h"
#include "benchmarks/cosmoflow/model/cf_network.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/kernels/kern.h"
#include "benchmarks/train/train.h"
#include "tests/unit/tap.h"

/* Odd sizes everywhere: 3 channels, filters 3, dense 5 and 3, 2 targets,
 * D = 8 with 2 blocks, batch 2. */
static cf_cfg small_cfg(void)
{
    cf_cfg c;
    T_ASSERT(cf_preset(&c, "tiny") == 0, "tiny preset");
    c.size = 8, c.blocks = 2, c.channels = 3, c.filters = 3;
    c.dense1 = 5, c.dense2 = 3, c.targets = 2;
    c.run.batch = 2;
    char err[256];
    T_ASSERT(cf_validate(&c, err, sizeof err) == 0, "%s", err);
    return c;
}

typedef struct {
    cf_model m;
    cf_net *n;
    ktab_t tab;
    kc_t kc;
    float *in, *tg;
} rig_t;

static void rig_open(rig_t *r, const cf_cfg *c, const kern_ops *ops, void *ctx)
{
    memset(r, 0, sizeof *r);
    cf_model_whole(&r->m, c);
    char err[256];
    r->n = cf_net_create(&r->m, ops, ctx, c->run.batch, 0, err, sizeof err);
    T_ASSERT(r->n, "create: %s", err);
    cf_net_init_params(r->n, 7);
    size_t ni, nt;
    cosmoflow_network.batch_floats(&r->m, c->run.batch, &ni, &nt);
    r->in = malloc(ni * sizeof *r->in);
    r->tg = malloc(nt * sizeof *r->tg);
    cosmoflow_network.generate(&r->m, 3, 0, 0, c->run.batch, r->in, r->tg);
    cf_net_load(r->n, r->in, r->tg);
    ktab_init(&r->tab, 256);
    r->kc = (kc_t){.ops = ops, .ctx = ctx, .tab = &r->tab};
}

static void rig_close(rig_t *r)
{
    cf_net_free(r->n);
    ktab_free(&r->tab);
    free(r->in);
    free(r->tg);
}

static double loss_at(rig_t *r, const float *w)
{
    cf_net_set_params(r->n, w);
    return cf_net_forward(r->n, &r->kc);
}

/* Directional derivatives: for a random direction v (one layer's
 * parameters, then all of them), (L(w + e v) - L(w - e v)) / 2e against
 * g . v.  Kinks (leaky ReLU, max-pool) make single parameters noisy;
 * directions average them out. */
static void gradients_fd(const cf_cfg *cp, const char *what)
{
    cf_cfg c = *cp;
    rig_t r;
    rig_open(&r, &c, kern_ref_ops(), NULL);
    const cf_plan *p = &r.m.plan;
    int64_t P = p->params;
    float *w = malloc(P * sizeof *w), *g = malloc(P * sizeof *g), *wp = malloc(P * sizeof *wp);
    double *v = malloc(P * sizeof *v);
    cf_net_get_params(r.n, w);
    /* non-zero biases, so that their gradients matter */
    rng_t rb = rng_stream(11, 0, 0, 0);
    for (int i = 0; i < p->nlayers; i++)
        for (int j = 0; j < p->layers[i].co; j++)
            w[p->layers[i].off_b + j] = (float)(0.1 * (2 * rng_uniform(&rb) - 1));
    loss_at(&r, w);
    cf_net_backward(r.n, &r.kc, NULL, NULL);
    cf_net_grads_to_host(r.n, g);
    for (int d = 0; d <= p->nlayers; d++) {
        const cf_layer *L = d < p->nlayers ? &p->layers[d] : NULL;
        int64_t lo = L ? L->off_w : 0, hi = L ? L->off_b + L->co : P;
        rng_t rv = rng_stream(5, (uint64_t)d, 0, 0);
        double gv = 0, norm = 0;
        for (int64_t i = 0; i < P; i++) {
            v[i] = i >= lo && i < hi ? rng_normal(&rv) : 0;
            norm += v[i] * v[i];
        }
        norm = sqrt(norm);
        for (int64_t i = 0; i < P; i++) v[i] /= norm, gv += g[i] * v[i];
        double e = getenv("FD_EPS") ? atof(getenv("FD_EPS")) : 1e-3, lp, lm;
        for (int64_t i = 0; i < P; i++) wp[i] = (float)(w[i] + e * v[i]);
        lp = loss_at(&r, wp);
        for (int64_t i = 0; i < P; i++) wp[i] = (float)(w[i] - e * v[i]);
        lm = loss_at(&r, wp);
        double fd = (lp - lm) / (2 * e);
        if (getenv("FD_EPS")) printf("# %s fd %.8g g.v %.8g\n", L ? L->name : "all", fd, gv);
        T_ASSERT(fabs(fd - gv) <= 0.02 * fabs(gv) + 1e-5,
                 "%s, %s: finite difference %.6g, gradient . v %.6g", what, L ? L->name : "all",
                 fd, gv);
    }
    free(w), free(g), free(wp), free(v);
    rig_close(&r);
}

/* the network as it is, with average pooling, and with the recipe's 1.2
 * tanh output (dropout draws a new mask every pass: no finite differences) */
static void test_gradients_fd(void)
{
    cf_cfg c = small_cfg();
    gradients_fd(&c, "max pooling, linear output");
    snprintf(c.pool, sizeof c.pool, "avg");
    gradients_fd(&c, "average pooling");
    c = small_cfg();
    c.out_scale = 1.2;
    gradients_fd(&c, "1.2 tanh output");
    c = small_cfg();
    c.block_kernels[0] = 5, c.block_kernels[1] = 1, c.nblock_kernels = 2;
    gradients_fd(&c, "block kernels 5, 1");
}

/* The fast set's gradients and loss against the reference set's. */
static void test_fast_matches_reference(void)
{
    cf_cfg c = small_cfg();
    c.size = 16;
    void *ctx = kern_fast_create(1);
    rig_t a, b;
    rig_open(&a, &c, kern_ref_ops(), NULL);
    rig_open(&b, &c, kern_fast_ops(), ctx);
    double la = cf_net_forward(a.n, &a.kc), lb = cf_net_forward(b.n, &b.kc);
    cf_net_backward(a.n, &a.kc, NULL, NULL);
    cf_net_backward(b.n, &b.kc, NULL, NULL);
    int64_t P = a.m.plan.params;
    float *ga = malloc(P * sizeof *ga), *gb = malloc(P * sizeof *gb);
    cf_net_grads_to_host(a.n, ga);
    cf_net_grads_to_host(b.n, gb);
    double mx = 0, err = 0;
    for (int64_t i = 0; i < P; i++) {
        mx = fmax(mx, fabs(ga[i]));
        err = fmax(err, fabs(ga[i] - gb[i]));
    }
    free(ga), free(gb);
    rig_close(&a);
    rig_close(&b);
    kern_fast_release(ctx);
    T_ASSERT(fabs(la - lb) <= 1e-5 * fabs(la), "loss: reference %.9g, fast %.9g", la, lb);
    T_ASSERT(err <= 1e-4 * mx, "gradients: max difference %.3g, max |g| %.3g", err, mx);
}

/* The FLOPs a dry step counts are the FLOPs a real step runs. */
static void test_dry_equals_real(void)
{
    cf_cfg c = small_cfg();
    rig_t r;
    rig_open(&r, &c, kern_ref_ops(), NULL);
    cf_net_forward(r.n, &r.kc);
    cf_net_backward(r.n, &r.kc, NULL, NULL);
    int64_t real = ktab_total_flops(&r.tab);
    rig_close(&r);
    cf_model m;
    cf_model_whole(&m, &c);
    ktab_t t;
    int64_t dry = train_dry_flops(&cosmoflow_network, &m, c.run.batch, &t);
    int64_t adam = 0;
    for (int i = 0; i < t.n; i++)
        if (!strcmp(t.rows[i].kernel, "adam")) adam += t.rows[i].flops;
    ktab_free(&t);
    cf_model_free(&m);
    T_ASSERT(adam == 13 * m.plan.params, "adam rows %lld", (long long)adam);
    T_ASSERT(dry - adam == real, "dry step %lld (without Adam), real forward+backward %lld",
             (long long)(dry - adam), (long long)real);
}

/* Parameters and forward FLOPs by hand: conv k^3 ci co + co, dense in out + out;
 * filters doubled per block up to the cap. */
static void test_counts_by_hand(void)
{
    const char *names[] = {"cosmo128", "cosmo256", "cosmo512", "small", "tiny"};
    for (int q = 0; q < 5; q++) {
        cf_cfg c;
        T_ASSERT(cf_preset(&c, names[q]) == 0, "%s", names[q]);
        cf_plan p;
        cf_plan_build(&p, &c);
        int64_t params = 0, flops = 0, ci = c.channels, co = c.filters, D = c.size, k3 = 27;
        for (int i = 0; i < c.blocks; i++, ci = co, co *= 2, D /= 2) {
            if (c.filter_cap > 0 && co > c.filter_cap) co = c.filter_cap;
            params += k3 * ci * co + co;
            flops += 2 * k3 * ci * co * D * D * D;
        }
        int64_t flat = ci * D * D * D;
        params += flat * c.dense1 + c.dense1 + (int64_t)c.dense1 * c.dense2 + c.dense2 +
                  (int64_t)c.dense2 * c.targets + c.targets;
        T_ASSERT(p.params == params, "%s: %lld parameters, by hand %lld", names[q],
                 (long long)p.params, (long long)params);
        T_ASSERT(p.fwd_conv_flops == flops, "%s: %lld forward conv FLOPs, by hand %lld", names[q],
                 (long long)p.fwd_conv_flops, (long long)flops);
    }
    /* the MLPerf HPC network: 8,907,556 parameters at 128^3 */
    cf_cfg c;
    cf_preset(&c, "cosmo128");
    cf_plan p;
    cf_plan_build(&p, &c);
    T_ASSERT(p.params == 8907556, "cosmo128: %lld parameters", (long long)p.params);
    /* LBANN's rule: log2(size) - 2 blocks, filters capped at 512: fc1 takes
     * 32,768 features at every size; cosmo512 is LBANN's 23,064,356 */
    const int sizes[] = {128, 256, 512};
    for (int q = 0; q < 3; q++) {
        cf_preset(&c, "cosmo128");
        c.size = sizes[q], c.blocks = 0;
        char err[256];
        T_ASSERT(cf_validate(&c, err, sizeof err) == 0, "size %d, blocks 0: %s", sizes[q], err);
        cf_plan_build(&p, &c);
        T_ASSERT(p.cfg.blocks == 5 + q && p.flat == 32768, "size %d: %d blocks, %lld features",
                 sizes[q], p.cfg.blocks, (long long)p.flat);
    }
    cf_preset(&c, "cosmo512");
    cf_plan_build(&p, &c);
    T_ASSERT(p.params == 23064356 && p.cfg.blocks == 7, "cosmo512: %lld parameters, %d blocks",
             (long long)p.params, p.cfg.blocks);
    /* the learning-rate schedule (runcfg_lr_at): warm-up, then the decays */
    runcfg_t r;
    runcfg_default(&r);
    r.lr = 0.004, r.lr_warmup_start = 0.001, r.lr_warmup_steps = 4;
    snprintf(r.lr_decay, sizeof r.lr_decay, "7:0.25,9:0.125");
    const double want[] = {0.001, 0.00175, 0.0025, 0.00325, 0.004, 0.004, 0.001, 0.001, 0.0005};
    for (int s = 1; s <= 9; s++)
        T_ASSERT(fabs(runcfg_lr_at(&r, s) - want[s - 1]) < 1e-12, "lr at step %d: %g, want %g", s,
                 runcfg_lr_at(&r, s), want[s - 1]);
    char err[256];
    c.size = 96, c.blocks = 0;
    T_ASSERT(cf_validate(&c, err, sizeof err) == -1 && strstr(err, "power of two"),
             "blocks 0 at size 96: %s", err);
}

/* Uneven splits deal the units out, first ranks one more; the parts tile
 * the volume; bad splits are refused naming --spatial. */
static void test_decomposition(void)
{
    cf_cfg c = small_cfg();
    c.size = 12, c.blocks = 2; /* 3 units of 4 voxels */
    cf_plan p;
    cf_plan_build(&p, &c);
    int s[3] = {2, 1, 3};
    int seen[3][3] = {{0}};
    for (int r = 0; r < 6; r++) {
        cf_part pt;
        cf_part_for(&p, s, r, &pt);
        for (int a = 0; a < 3; a++)
            for (int u = 0; u < pt.units[a]; u++) seen[a][pt.unit_off[a] + u]++;
    }
    /* along D (2 ranks): units 2 + 1; along W (3 ranks): 1 + 1 + 1 */
    cf_part p0, p1;
    cf_part_for(&p, s, 0, &p0);
    cf_part_for(&p, s, 3, &p1);
    T_ASSERT(p0.units[0] == 2 && p1.units[0] == 1 && p1.unit_off[0] == 2, "D split 2+1");
    T_ASSERT(cf_part_extent(&p, &p0, 0, 0) == 8 && cf_part_extent(&p, &p1, 0, 1) == 2,
             "extents 8 and 2");
    for (int a = 0; a < 3; a++)
        for (int u = 0; u < 3; u++)
            T_ASSERT(seen[a][u] == 6 / s[a], "axis %d unit %d held %d times", a, u, seen[a][u]);
    char err[512];
    cf_part pt;
    snprintf(p.cfg.spatial, sizeof p.cfg.spatial, "4x1x1");
    T_ASSERT(cf_part_make(&p, 4, 0, &pt, err, sizeof err) == -1 && strstr(err, "--spatial 4x1x1") &&
                 strstr(err, "at most 3"),
             "4 ranks along 3 units: %s", err);
    snprintf(p.cfg.spatial, sizeof p.cfg.spatial, "2x1x1");
    T_ASSERT(cf_part_make(&p, 3, 0, &pt, err, sizeof err) == -1 && strstr(err, "multiple"),
             "3 ranks in groups of 2: %s", err);
    T_ASSERT(cf_part_make(&p, 4, 3, &pt, err, sizeof err) == 0 && pt.groups == 2 && pt.group == 1 &&
                 pt.srank == 1,
             "4 ranks = 2 groups of 2");
    /* kernel 7: halo 3 against sub-volumes of 2 voxels at the last block */
    cf_cfg k7 = c;
    k7.kernel = 7;
    cf_plan_build(&p, &k7);
    snprintf(p.cfg.spatial, sizeof p.cfg.spatial, "3");
    T_ASSERT(cf_part_make(&p, 3, 0, &pt, err, sizeof err) == -1 && strstr(err, "thinner than the halo"),
             "thin sub-volumes: %s", err);
    snprintf(p.cfg.spatial, sizeof p.cfg.spatial, "auto");
    T_ASSERT(cf_part_make(&p, 1, 0, &pt, err, sizeof err) == 0, "auto at 1 rank: %s", err);
    /* auto picks a split that fits; at 2 ranks of a cube, along D */
    cf_plan_build(&p, &c);
    int t[3];
    T_ASSERT(cf_split_choose(&p, 2, t) == 0 && t[0] == 2 && t[1] == 1 && t[2] == 1,
             "auto 2: %dx%dx%d", t[0], t[1], t[2]);
    T_ASSERT(cf_split_choose(&p, 81, t) == -1, "81 ranks cannot split 3x3x3 units");
}

/* A rank's synthetic sub-volume is the same sub-box of the whole sample;
 * the raw file reads back what --write-data wrote; a truncated file is
 * refused with its name. */
static void test_data(void)
{
    cf_cfg c = small_cfg();
    c.size = 12;
    cf_plan p;
    cf_plan_build(&p, &c);
    int one[3] = {1, 1, 1}, s[3] = {2, 1, 3};
    cf_part whole, part;
    cf_part_for(&p, one, 0, &whole);
    cf_part_for(&p, s, 4, &part);
    int C = c.channels, D = c.size;
    float *all = malloc((size_t)D * D * D * C * sizeof *all), t1[2], t2[2];
    int e[3], o[3];
    for (int a = 0; a < 3; a++) e[a] = cf_part_extent(&p, &part, a, 0), o[a] = cf_part_offset(&p, &part, a, 0);
    float *mine = malloc((size_t)e[0] * e[1] * e[2] * C * sizeof *mine);
    cf_data_generate(&p, &whole, 9, 3, 5, 1, all, t1);
    cf_data_generate(&p, &part, 9, 3, 5, 1, mine, t2);
    T_ASSERT(t1[0] == t2[0] && t1[1] == t2[1], "targets differ between parts");
    for (int z = 0; z < e[0]; z++)
        for (int y = 0; y < e[1]; y++)
            for (int x = 0; x < e[2]; x++)
                for (int ch = 0; ch < C; ch++) {
                    float a = all[((((size_t)(o[0] + z) * D + o[1] + y) * D + o[2] + x) * C + ch)];
                    float b = mine[(((size_t)z * e[1] + y) * e[2] + x) * C + ch];
                    T_ASSERT(a == b, "voxel (%d,%d,%d) channel %d: %g vs %g", z, y, x, ch, a, b);
                }
    char path[] = "/tmp/exadl-cosmo-data.XXXXXX", err[512];
    int fd = mkstemp(path);
    T_ASSERT(fd >= 0, "mkstemp");
    close(fd);
    T_ASSERT(cf_data_write(&p, 9, 3, path, err, sizeof err) == 0, "%s", err);
    cf_data_file f;
    T_ASSERT(cf_data_open(&f, &p, path, err, sizeof err) == 0, "%s", err);
    T_ASSERT(f.samples == 3, "%lld samples", (long long)f.samples);
    /* step 0, sample 2: what generate makes for (seed, step 0, sample 2) */
    part.groups = 1;
    cf_data_read(&f, &p, &part, 0, 2, 1, mine, t2);
    cf_data_generate(&p, &whole, 9, 0, 2, 1, all, t1);
    for (int z = 0; z < e[0]; z++)
        for (int x = 0; x < e[2]; x++)
            T_ASSERT(mine[(((size_t)z * e[1]) * e[2] + x) * C] ==
                         all[((((size_t)(o[0] + z) * D + o[1]) * D + o[2] + x) * C)],
                     "file voxel (%d,0,%d)", z, x);
    T_ASSERT(t1[0] == t2[0] && t1[1] == t2[1], "file targets");
    cf_data_close(&f);
    T_ASSERT(truncate(path, (off_t)f.sample_bytes * 2 + 5) == 0, "truncate");
    T_ASSERT(cf_data_open(&f, &p, path, err, sizeof err) == -1 && strstr(err, path) &&
                 strstr(err, "whole number of samples"),
             "truncated file: %s", err);
    unlink(path);
    free(all);
    free(mine);
}

/* Bad values name the key; the network's own checks name what is wrong. */
static void test_bad_config(void)
{
    cf_cfg c;
    char err[512];
    cf_preset(&c, "tiny");
    T_ASSERT(cf_set(&c, "kernel", "4", err, sizeof err) == 0, "kernel 4 is in range");
    T_ASSERT(cf_validate(&c, err, sizeof err) == -1 && strstr(err, "odd"), "even kernel: %s", err);
    cf_preset(&c, "tiny");
    cf_set(&c, "size", "18", err, sizeof err);
    T_ASSERT(cf_validate(&c, err, sizeof err) == -1 && strstr(err, "divisible"), "size 18: %s", err);
    /* found by fuzz_cosmo_config: passed the check, then failed cf_plan_build's */
    cf_preset(&c, "tiny");
    cf_set(&c, "size", "8888", err, sizeof err);
    T_ASSERT(cf_validate(&c, err, sizeof err) == -1 && strstr(err, "dense head"),
             "size 8888 over tiny's blocks: %s", err);
    T_ASSERT(cf_set(&c, "spatial", "2x2", err, sizeof err) == -1 && strstr(err, "spatial"),
             "spatial 2x2: %s", err);
    T_ASSERT(cf_set(&c, "spatial", "0x1x1", err, sizeof err) == -1, "spatial 0x1x1");
    T_ASSERT(cf_set(&c, "filtres", "8", err, sizeof err) == -2 && strstr(err, "filters"),
             "suggestion: %s", err);
    char path[] = "/tmp/exadl-cosmo-cfg.XXXXXX";
    int fd = mkstemp(path);
    T_ASSERT(fd >= 0, "mkstemp");
    const char *yaml = "preset: tiny\nsize: 16\nblocks: many\n";
    T_ASSERT(write(fd, yaml, strlen(yaml)) == (ssize_t)strlen(yaml), "write");
    close(fd);
    cf_preset(&c, "tiny");
    T_ASSERT(cf_load_yaml(&c, path, err, sizeof err) == -1 && strstr(err, path) && strstr(err, ":3:"),
             "bad YAML value: %s", err);
    unlink(path);
}

int main(void)
{
    tap_run_("cosmo_gradients_fd", test_gradients_fd);
    tap_run_("cosmo_fast_matches_reference", test_fast_matches_reference);
    tap_run_("cosmo_dry_equals_real", test_dry_equals_real);
    tap_run_("cosmo_counts_by_hand", test_counts_by_hand);
    tap_run_("cosmo_decomposition", test_decomposition);
    tap_run_("cosmo_data", test_data);
    tap_run_("cosmo_bad_config", test_bad_config);
    return tap_failed_ ? 1 : 0;
}
