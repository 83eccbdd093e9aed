/* The harness's part of CosmoFlow: the record reader of the cosmoflow kind
 * (its spatial block round trip; bad blocks named FILE:LINE:COL), the
 * spatial model's arithmetic on a case worked by hand (harness/model/
 * spatial.c) and the 3D U-Net's terms, its choice of layout, and the
 * suite's `scaling: spatial`.
 * The model's halo bytes against the benchmark's own count:
 * tests/it/cosmo_spatial.sh (the harness links no benchmark code). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/record/header.h"
#include "benchmarks/common/record/record.h"
#include "harness/blocks/network/blk_network.h"
#include "harness/blocks/recread.h"
#include "harness/blocks/spatial/blk_spatial.h"
#include "harness/blocks/training/blk_training.h"
#include "harness/model/spatial.h"
#include "harness/model/spatial_input.h"
#include "harness/suite/suite.h"
#include "tests/unit/tap.h"

static char path[] = "/tmp/exadl-spatial-rec.XXXXXX";
static char err[1024];

static void write_record(const char *split, long long rps)
{
    FILE *f = fopen(path, "w");
    T_ASSERT(f, "open %s", path);
    fprintf(f,
            "exadl_record: 1\nbenchmark: cosmoflow\nstatus: ok\nranks: 2\n"
            "config: {batch: 1, dense1: 128}\n"
            "timing: {step_s: [0.5, 0.6], samples_per_step: 1}\n"
            "network: {conv_weights: 100, parameters: 150}\n"
            "kernels_steps: 2\n"
            "kernels:\n"
            "- {kernel: conv3d_fwd, layer: conv0, calls: 2, flops: 10, time_s: 0.4}\n"
            "- {kernel: halo, layer: conv0, calls: 2, flops: 0, time_s: 0.02}\n"
            "- {kernel: dense_fwd, layer: fc1, calls: 2, flops: 4, time_s: 0.02}\n"
            "- {kernel: adam, layer: conv0, calls: 2, flops: 4, time_s: 0.04}\n"
            "spatial:\n  split: %s\n  ranks_per_sample: %lld\n  groups: 1\n  size: 16\n"
            "  units: 4\n  halo: 1\n  kernel: 3\n  overlap: true\n  rank0_units: [2, 4, 4]\n"
            "  halo_bytes_per_sample: 14784\n  halo_messages_per_step: 3\n"
            "  gather_bytes_per_sample: 2048\n  layers:\n"
            "  - {layer: conv0, extent: 16, c_in: 4, c_out: 8, fwd_flops: 10}\n"
            "  - {layer: conv1, extent: 8, c_in: 8, c_out: 16, fwd_flops: 5}\n",
            split, rps);
    fclose(f);
}

static void test_record(void)
{
    int fd = mkstemp(path);
    T_ASSERT(fd >= 0, "mkstemp");
    close(fd);
    arena_t *a = ar_new();
    record_t r;
    write_record("[2, 1, 1]", 2);
    T_ASSERT(record_load(a, path, &r, err, sizeof err) == 0, "%s", err);
    const spinfo_t *sp = rec_spatial(&r);
    T_ASSERT(sp && sp->split[0] == 2 && sp->split[2] == 1 && sp->ranks_per_sample == 2 &&
                 sp->units == 4 && sp->halo == 1 && sp->overlap == 1,
             "spatial block");
    T_ASSERT(sp->halo_bytes_per_sample == 14784 && sp->rank0_units[0] == 2, "halo bytes");
    T_ASSERT(sp->nl == 2 && !strcmp(sp->l[1].name, "conv1") && sp->l[1].c_out == 16, "layers");
    T_ASSERT(rec_training(&r)->nstep == 2 && rec_training(&r)->nk == 4 &&
                 rec_network(&r)->parameters == 150,
             "training blocks through stemdl's reader");
    write_record("[2, 1]", 2);
    T_ASSERT(record_load(a, path, &r, err, sizeof err) == -1 && strstr(err, path) &&
                 strstr(err, ":15:") && strstr(err, "3 numbers"),
             "two numbers: %s", err);
    write_record("[2, 2, 1]", 2);
    T_ASSERT(record_load(a, path, &r, err, sizeof err) == -1 && strstr(err, "product"),
             "ranks_per_sample: %s", err);
    write_record("[2, 0, 1]", 0);
    T_ASSERT(record_load(a, path, &r, err, sizeof err) == -1 && strstr(err, "at least 1"),
             "zero split: %s", err);
    unlink(path);
    ar_free(a);
}

/* The U-Net's spatial block (docs/record.md "The 3D U-Net"): its keys read
 * back, the model's workload from it (dplanes, exchanges per layer, the
 * `gather` rows compute, `sgd` the optimizer), and its refusals. */
static void write_unet(const char *split, const char *net, const char *layer1)
{
    FILE *f = fopen(path, "w");
    T_ASSERT(f, "open %s", path);
    fprintf(f,
            "exadl_record: 1\nbenchmark: cosmoflow\nstatus: ok\nranks: 1\n"
            "config: {network: unet3d, batch: 1}\n"
            "timing: {step_s: [0.5, 0.5], samples_per_step: 1}\n"
            "network: {conv_weights: 100, parameters: 120}\n"
            "kernels_steps: 2\n"
            "kernels:\n"
            "- {kernel: conv3d_fwd, layer: d1a, calls: 2, flops: 10, time_s: 0.4}\n"
            "- {kernel: conv3d_fwd, layer: d1b, calls: 2, flops: 10, time_s: 0.2}\n"
            "- {kernel: gather, layer: deconv1, calls: 2, flops: 0, time_s: 0.1}\n"
            "- {kernel: halo, layer: d1b, calls: 2, flops: 0, time_s: 0.3}\n"
            "- {kernel: sgd, layer: all, calls: 2, flops: 480, time_s: 0.02}\n"
            "spatial:\n  network: %s\n  split: %s\n  ranks_per_sample: 1\n  groups: 1\n"
            "  size: 16\n  units: 2\n  halo: 1\n  rank0_units: [2, 2, 2]\n  halo_bytes_per_sample: 0\n"
            "  sync_allreduces_per_step: 8\n  sync_bytes_per_step: 400\n  layers:\n"
            "  - {layer: d1a, extent: 16, c_in: 1, c_out: 4, halo_in: 2, halo_out: 0}\n"
            "  - {layer: d1b, extent: 8, c_in: 4, c_out: 8%s}\n",
            net, split, layer1);
    fclose(f);
}

static void test_unet_record(void)
{
    /* path: test_record's (mkstemp there) */
    arena_t *a = ar_new();
    record_t r;
    write_unet("[1, 1, 1]", "unet3d", ", halo_in: 2, halo_out: 1");
    T_ASSERT(record_load(a, path, &r, err, sizeof err) == 0, "%s", err);
    const spinfo_t *sp = rec_spatial(&r);
    T_ASSERT(sp && !strcmp(sp->network, "unet3d") && sp->l[0].halo_in == 2 &&
                 sp->l[0].halo_out == 0 && sp->l[1].halo_out == 1 &&
                 sp->sync_allreduces_per_step == 8 && sp->sync_bytes_per_step == 400,
             "the U-Net's spatial keys");
    msw_t w;
    T_ASSERT(msp_work_from_record(&r, 0.5, &w, err, sizeof err) == 0, "%s", err);
    /* per sample: d1a 0.2 s, d1b 0.1 s, the rest 0.05 s (the gather rows),
     * SGD 0.01 s; the halo row is communication */
    T_ASSERT(w.dplanes == 1 && w.xin[1] == 2 && w.xout[1] == 1 && w.sync_n == 8 &&
                 w.sync_bytes == 400 && fabs(w.conv_s[0] - 0.2) < 1e-15 &&
                 fabs(w.conv_s[1] - 0.1) < 1e-15 && fabs(w.head_s - 0.05) < 1e-15 &&
                 fabs(w.opt_s - 0.01) < 1e-15,
             "workload: dplanes %d, conv %g %g, rest %g, opt %g", w.dplanes, w.conv_s[0],
             w.conv_s[1], w.head_s, w.opt_s);
    write_unet("[1, 1, 1]", "unet3d", "");
    T_ASSERT(record_load(a, path, &r, err, sizeof err) == -1 && strstr(err, "d1b") &&
                 strstr(err, "halo_in"),
             "a U-Net layer without its exchanges: %s", err);
    write_unet("[1, 1, 1]", "resnet", ", halo_in: 2, halo_out: 1");
    T_ASSERT(record_load(a, path, &r, err, sizeof err) == -1 && strstr(err, "resnet"),
             "an unknown network: %s", err);
    write_unet("[1, 1, 1]", "unet3d", ", halo_in: 2");
    T_ASSERT(record_load(a, path, &r, err, sizeof err) == -1 && strstr(err, "together"),
             "halo_in without halo_out: %s", err);
    unlink(path);
    ar_free(a);
}

/* Two levels, 4 units, halo 1; channels 4 -> 8 -> 16.  Worked in the
 * comments; the numbers are those of the record above (14784 bytes). */
static msw_t work(void)
{
    msw_t w;
    memset(&w, 0, sizeof w);
    w.nl = 2, w.units = 4, w.halo = 1, w.feat_c = 16;
    w.ext[0] = 16, w.ext[1] = 8;
    w.cin[0] = 4, w.cout[0] = 8, w.cin[1] = 8, w.cout[1] = 16;
    w.conv_s[0] = 0.4, w.conv_s[1] = 0.2;
    w.head_s = 0.01, w.opt_s = 0.02, w.other_s = 0.005;
    w.params = 1000, w.elem_bytes = 4;
    return w;
}

static void test_model_by_hand(void)
{
    msw_t w = work();
    mnet_t net;
    memset(&net, 0, sizeof net);
    net.intra = (mlink_t){1e-5, 1e-9, 0};
    net.algo = AR_RING;
    int s[3] = {2, 1, 1};
    /* rank 0 holds units (2, 4, 4): level 0 extents (8, 16, 16), level 1
     * (4, 8, 8); it has one neighbour, along D.  Faces along D carry the
     * padded H and W: level 0: (16+2)(16+2) = 324 elements per channel, 4
     * channels forward; level 1: (8+2)(8+2) = 100, 8 forward + 16 backward.
     * Bytes: 4*324*4 + 24*100*4 = 14784; 3 messages. */
    double msgs, b = msp_halo_bytes(&w, s, 0, &msgs);
    T_ASSERT(b == 14784 && msgs == 3, "halo bytes %g, messages %g", b, msgs);
    msp_t p;
    T_ASSERT(msp_predict(&w, s, 1, 1, &net, &p) == 0, "predict");
    /* compute: half the voxels of 0.6 s; halo 3 alpha + 14784 beta; gather
     * lg 2 alpha + 1/2 (16 x 4^3 x 4 B) beta; allreduce ring at p = 2:
     * 2 alpha + 4000 beta */
    double halo = 3e-5 + 14784e-9, gather = 1e-5 + 2048e-9, ar = 2e-5 + 4000e-9;
    double want = 0.3 + halo + 0.01 + gather + 0.02 + 0.005 + ar;
    T_ASSERT(fabs(p.compute_s - 0.3) < 1e-15 && fabs(p.halo_s - halo) < 1e-15, "compute %.17g halo %.17g",
             p.compute_s, p.halo_s);
    T_ASSERT(fabs(p.gather_s - gather) < 1e-15 && fabs(p.allreduce_s - ar) < 1e-15,
             "gather %.17g allreduce %.17g", p.gather_s, p.allreduce_s);
    T_ASSERT(fabs(p.step_s - want) < 1e-12, "step %.17g, by hand %.17g", p.step_s, want);
    /* uneven: 3 ranks along D deal 2 + 1 + 1 units: the busiest is rank 0 */
    int s3[3] = {3, 1, 1};
    T_ASSERT(msp_predict(&w, s3, 1, 1, &net, &p) == 0 && fabs(p.compute_s - 0.3) < 1e-15 + 0.0,
             "3-way: busiest compute %.17g (2 of 4 units)", p.compute_s);
    /* splits that do not fit */
    int s8[3] = {8, 1, 1};
    T_ASSERT(msp_predict(&w, s8, 1, 1, &net, &p) == -1, "8 ranks along 4 units");
    w.halo = 3;
    int s4[3] = {4, 1, 1};
    T_ASSERT(msp_predict(&w, s4, 1, 1, &net, &p) == -1, "halo 3 on 2-voxel sub-volumes");
}

/* The 3D U-Net's terms (msw_t.dplanes): two 3^3 layers at extents 8 and 4,
 * units 4 (D / 2 per pooling level here), batch 2, 2 ranks along D.  Rank 0
 * has one neighbour; per sample layer 0 sends 2 planes of c_in 1 (no
 * output gradient), layer 1 2 of c_in 4 and 1 of c_out 8, each plane
 * (e + 2)^2 x 4 bytes: 2*1*100*4 + (2*4 + 8)*36*4 = 800 + 2304 = 3104
 * bytes in 2 + 3 = 5 messages. */
static void test_unet_by_hand(void)
{
    msw_t w;
    memset(&w, 0, sizeof w);
    w.dplanes = 1, w.nl = 2, w.units = 4, w.halo = 1, w.elem_bytes = 4;
    w.ext[0] = 8, w.cin[0] = 1, w.cout[0] = 4, w.xin[0] = 2, w.xout[0] = 0, w.conv_s[0] = 0.4;
    w.ext[1] = 4, w.cin[1] = 4, w.cout[1] = 8, w.xin[1] = 2, w.xout[1] = 1, w.conv_s[1] = 0.2;
    w.head_s = 0.2, w.opt_s = 0.01, w.other_s = 0.005, w.params = 1000;
    w.sync_n = 4, w.sync_bytes = 64;
    mnet_t net;
    memset(&net, 0, sizeof net);
    net.intra = (mlink_t){1e-5, 1e-9, 0};
    net.algo = AR_RING;
    int s[3] = {2, 1, 1};
    double msgs, b = msp_halo_bytes(&w, s, 0, &msgs);
    T_ASSERT(b == 3104 && msgs == 5, "U-Net halo bytes %g, messages %g per sample", b, msgs);
    msp_t p;
    T_ASSERT(msp_predict(&w, s, 1, 2, &net, &p) == 0, "predict");
    /* compute: half the planes of 2 samples of (0.6 + the rest 0.2) s;
     * halo: 2 samples x (5 alpha + 3104 beta); sync: 4 allreduces of 16 B,
     * each the ring's 2 alpha + n beta at p = 2; no gather, no unsplit
     * head; gradients: 4000 B */
    double halo = 2 * (5e-5 + 3104e-9), ar = 2e-5 + 4000e-9, sync = 4 * (2e-5 + 16e-9);
    T_ASSERT(fabs(p.compute_s - 0.8) < 1e-15 && fabs(p.halo_s - halo) < 1e-15,
             "compute %.17g halo %.17g", p.compute_s, p.halo_s);
    T_ASSERT(p.halo_bytes == 6208 && p.halo_msgs == 10, "rank 0 per step: %g bytes, %g messages",
             p.halo_bytes, p.halo_msgs);
    T_ASSERT(p.gather_s == 0 && p.head_s == 0 && fabs(p.sync_s - sync) < 1e-15 &&
                 fabs(p.allreduce_s - ar) < 1e-15,
             "gather %g head %g sync %.17g allreduce %.17g", p.gather_s, p.head_s, p.sync_s,
             p.allreduce_s);
    T_ASSERT(fabs(p.step_s - (0.8 + halo + sync + 0.015 + ar)) < 1e-12, "step %.17g", p.step_s);
    /* 4 ranks: the middle ones have two neighbours and are the busiest */
    int s4[3] = {4, 1, 1};
    T_ASSERT(msp_predict(&w, s4, 1, 2, &net, &p) == 0 && fabs(p.halo_s - 2 * halo) < 1e-15,
             "4 ranks: busiest halo %.17g", p.halo_s);
    /* D only, and equal slabs of whole units */
    int hw[3] = {1, 2, 1}, s3[3] = {3, 1, 1};
    T_ASSERT(msp_predict(&w, hw, 1, 1, &net, &p) == -1 && msp_predict(&w, s3, 1, 1, &net, &p) == -1,
             "an H split and 3 ranks over 4 units refused");
}

/* 2 ranks, 2 samples per step: 2 groups of 1 (each 0.6 s of compute, no
 * halo) beat 1 group of 2 spatial ranks at batch 2 (0.6 s plus halo, gather
 * and twice the head); 2 ranks, 1 sample: only the spatial layouts. */
static void test_best(void)
{
    msw_t w = work();
    mnet_t net;
    memset(&net, 0, sizeof net);
    net.intra = (mlink_t){1e-5, 1e-9, 0};
    net.algo = AR_RING;
    msp_t b;
    T_ASSERT(msp_best(&w, 2, 2, &net, &b) == 0 && b.groups == 2 && b.split[0] * b.split[1] * b.split[2] == 1,
             "2 ranks, 2 samples: %d groups of %dx%dx%d", b.groups, b.split[0], b.split[1], b.split[2]);
    T_ASSERT(msp_best(&w, 2, 1, &net, &b) == 0 && b.groups == 1 && b.batch == 1, "2 ranks, 1 sample");
    int sp[16][3];
    T_ASSERT(msp_splits(&w, 4, sp, 16) == 6, "splits of 4 over 4 units per axis: %zu",
             msp_splits(&w, 4, sp, 16));
    T_ASSERT(msp_best(&w, 128, 1, &net, &b) == -1, "128 ranks cannot split 4^3 units");
}

static void test_suite_scaling(void)
{
    arena_t *a = ar_new();
    machine_t m;
    memset(&m, 0, sizeof m);
    m.cores = 2;
    suite_t s;
    const char ok[] = "exadl_suite: 1\nname: t\nscaling: spatial\nscales: [1, 2]\n"
                      "benchmarks: [{program: /bin/true}]\n";
    T_ASSERT(suite_load_text(a, ok, strlen(ok), "t.yaml", ".", &m, &s, err, sizeof err) == 0, "%s", err);
    T_ASSERT(s.bench[0].scaling == SCALING_SPATIAL && !strcmp(scaling_name(SCALING_SPATIAL), "spatial"),
             "spatial scaling");
    const char bad[] = "exadl_suite: 1\nname: t\nscaling: diagonal\nbenchmarks: [{program: /bin/true}]\n";
    T_ASSERT(suite_load_text(a, bad, strlen(bad), "t.yaml", ".", &m, &s, err, sizeof err) == -1 &&
                 strstr(err, "t.yaml:3:") && strstr(err, "spatial"),
             "bad scaling: %s", err);
    ar_free(a);
}

/* exadl model --spatial --size: LBANN's rule adds blocks at the deep end
 * (cosmo128's 8,907,556 parameters -> cosmo512's 23,064,356 and cosmo256's
 * 15,985,956, docs/cosmoflow.md), the fixed rule grows fc1 (273,148,708) */
static void cosmo128(msw_t *w)
{
    memset(w, 0, sizeof *w);
    int ci[5] = {4, 32, 64, 128, 256};
    w->nl = 5, w->units = 4, w->halo = 1, w->feat_c = 512;
    for (int l = 0; l < 5; l++)
        w->ext[l] = 128 >> l, w->cin[l] = ci[l], w->cout[l] = 32 << l, w->conv_s[l] = 1;
    w->head_s = 0.01, w->opt_s = 0.1, w->params = 8907556, w->elem_bytes = 4;
}

static void test_resize(void)
{
    msw_t w;
    char why[256];
    msp_rule lb = {.lbann = 1, .filters = 32, .cap = 512, .kernel = 3, .dense1 = 128};
    cosmo128(&w);
    T_ASSERT(msp_resize(&w, 128, 512, &lb, why, sizeof why) == 0, "%s", why);
    T_ASSERT(w.params == 23064356, "cosmo512 from cosmo128: %.0f parameters", w.params);
    T_ASSERT(w.nl == 7 && w.units == 4 && w.ext[6] == 8 && w.cin[5] == 512 && w.cout[6] == 512,
             "blocks %d units %d", w.nl, w.units);
    /* kept blocks x 4^3; block 5 at block 4's time per FLOP: 64 x 1/4 */
    T_ASSERT(w.conv_s[4] == 64 && fabs(w.conv_s[5] - 16) < 1e-9, "conv_s %g %g", w.conv_s[4],
             w.conv_s[5]);
    T_ASSERT(w.head_s == 0.01 && fabs(w.opt_s - 0.1 * 23064356 / 8907556) < 1e-12,
             "head %g opt %g", w.head_s, w.opt_s);
    cosmo128(&w);
    T_ASSERT(msp_resize(&w, 128, 256, &lb, why, sizeof why) == 0, "%s", why);
    T_ASSERT(w.params == 15985956 && w.nl == 6, "cosmo256: %.0f, %d blocks", w.params, w.nl);
    T_ASSERT(msp_resize(&w, 256, 128, &lb, why, sizeof why) == 0 && w.params == 8907556 &&
                 w.nl == 5,
             "back to 128: %.0f", w.params);
    T_ASSERT(msp_resize(&w, 128, 384, &lb, why, sizeof why) == -1 && strstr(why, "power of two"),
             "384 accepted");
    msp_rule fx = lb;
    fx.lbann = 0;
    cosmo128(&w);
    T_ASSERT(msp_resize(&w, 128, 512, &fx, why, sizeof why) == 0 && w.params == 273148708 &&
                 w.nl == 5 && w.units == 16,
             "fixed: %.0f", w.params);
}

int main(void)
{
    tap_run_("harness_spatial_record", test_record);
    tap_run_("harness_spatial_unet_record", test_unet_record);
    tap_run_("harness_spatial_model_by_hand", test_model_by_hand);
    tap_run_("harness_spatial_unet_by_hand", test_unet_by_hand);
    tap_run_("harness_spatial_best_layout", test_best);
    tap_run_("harness_spatial_suite_scaling", test_suite_scaling);
    tap_run_("harness_spatial_resize", test_resize);
    return tap_failed_ ? 1 : 0;
}
