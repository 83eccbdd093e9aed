/* bench_conv: FLOP/s of the fast CPU path's k x k convolutions (k > 1) on the
 * dense-block layer shapes of a STEMDL preset (down*, bottleneck*, up*: the
 * 5x5 layers of `small`), straight through kern_ops, without the network.
 *
 *   bench_conv [--preset small] [--threads 1] [--batch 1] [--reps 5]
 *              [--peak FLOP/S] [--kernels fast|blas|reference] [--layers]
 *
 * --kernels blas runs the same layers on im2col + OpenBLAS (conv_blas.c), the
 * alternative the fast path was chosen against.
 *
 * Each layer runs as it does in the network: x is channels [0, c_in) of a
 * block buffer and y (or dy) the next growth channels of the same buffer, so
 * samples lie (c_in + growth)*h*w floats apart.  Per kernel (forward, data
 * gradient, weight gradient) and layer: one untimed call (oneDNN creates its
 * primitives), then --reps timed calls; the layer's time is their median.
 *   rate(kernel) = sum over layers of FLOPs (flops.h) / sum of median times
 * With --peak, each rate is also printed as a fraction of that peak.
 * Output: YAML lines, for benchmarks/stemdl/tools/bench_cpu.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/peak/conv_blas.h"
#include "benchmarks/networks/fcdensenet/config.h"
#include "benchmarks/networks/fcdensenet/plan.h"
#include "benchmarks/train/kernels/flops.h"
#include "benchmarks/train/kernels/kern.h"

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int is_dense(const plan_layer *l)
{
    return l->kind == PLAN_CONV && l->k > 1 &&
           (!strncmp(l->name, "down", 4) || !strncmp(l->name, "bottleneck", 10) ||
            !strncmp(l->name, "up", 2));
}

int main(int argc, char **argv)
{
    check_set_program("bench_conv");
    const char *preset = "small", *kernels = "fast";
    int threads = 1, batch = 1, reps = 5, per_layer = 0;
    double peak = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--preset") && v) preset = v, i++;
        else if (!strcmp(o, "--kernels") && v) kernels = v, i++;
        else if (!strcmp(o, "--threads") && v) threads = atoi(v), i++;
        else if (!strcmp(o, "--batch") && v) batch = atoi(v), i++;
        else if (!strcmp(o, "--reps") && v) reps = atoi(v), i++;
        else if (!strcmp(o, "--peak") && v) peak = atof(v), i++;
        else if (!strcmp(o, "--layers")) per_layer = 1;
        else {
            printf("usage: bench_conv [--preset NAME] [--threads N] [--batch N] [--reps R]\n"
                   "                  [--peak FLOP/S] [--kernels fast|blas|reference] [--layers]\n");
            return strcmp(o, "--help") ? 2 : 0;
        }
    }
    if (threads < 0 || batch < 1 || reps < 1 || reps > 99)
        check_usage("need --threads >= 0, --batch >= 1, 1 <= --reps <= 99");
    cfg_t cfg;
    if (cfg_preset(&cfg, preset)) check_usage("unknown preset '%s'", preset);
    int fast = !strcmp(kernels, "fast"), blas = !strcmp(kernels, "blas");
    if (!fast && !blas && strcmp(kernels, "reference")) check_usage("--kernels fast|blas|reference");
    plan_t plan;
    plan_build(&plan, &cfg);
    const kern_ops *ops = fast ? kern_fast_ops() : blas ? conv_blas_ops() : kern_ref_ops();
    void *ctx = fast ? kern_fast_create(threads) : blas ? conv_blas_create(threads) : NULL;

    printf("preset: %s\n", preset);
    printf("kernels: %s\n", kernels);
    printf("library: %s\n", fast ? kern_fast_library() : blas ? conv_blas_library() : "reference loops");
    printf("threads: %d\n", threads);
    printf("batch: %d\n", batch);
    printf("reps: %d\n", reps);
    static const char *names[3] = {"conv_fwd", "conv_bwd_data", "conv_bwd_weights"};
    double flops[3] = {0}, secs[3] = {0};
    int nlayers = 0;
    if (per_layer) printf("layers:\n");
    for (int li = 0; li < plan.n; li++) {
        const plan_layer *l = &plan.layers[li];
        if (!is_dense(l)) continue;
        nlayers++;
        int ctot = l->c_in + l->c_out, h = l->h_in, w = l->w_in, k = l->k;
        int64_t ss = (int64_t)ctot * h * w;
        float *buf = ops->alloc(ctx, (size_t)(batch * ss) * sizeof(float));
        float *gbuf = ops->alloc(ctx, (size_t)(batch * ss) * sizeof(float));
        float *wt = ops->alloc(ctx, (size_t)l->weights * sizeof(float));
        float *dw = ops->alloc(ctx, (size_t)l->weights * sizeof(float));
        CHECK(buf && gbuf && wt && dw, "out of memory for layer %s", l->name);
        for (int64_t i = 0; i < batch * ss; i++) buf[i] = gbuf[i] = (float)((i * 7919) % 1000) * 1e-3f - 0.5f;
        for (int64_t i = 0; i < l->weights; i++) wt[i] = (float)((i * 104729) % 1000) * 1e-5f;
        tview x = {buf, batch, l->c_in, h, w, ss};
        tview y = {buf + (int64_t)l->c_in * h * w, batch, l->c_out, h, w, ss};
        tview dx = {gbuf, batch, l->c_in, h, w, ss};
        tview dy = {gbuf + (int64_t)l->c_in * h * w, batch, l->c_out, h, w, ss};
        double f = (double)flops_conv_fwd(batch, l->c_in, l->c_out, k, h, w);
        if (per_layer)
            printf("- {layer: %s, c_in: %d, c_out: %d, h: %d, w: %d, k: %d", l->name, l->c_in,
                   l->c_out, h, w, k);
        for (int kind = 0; kind < 3; kind++) {
            double t[100];
            for (int r = -1; r < reps; r++) {
                double t0 = timer_now_s();
                if (kind == 0) ops->conv_fwd(ctx, &x, wt, k, &y);
                else if (kind == 1) ops->conv_bwd_data(ctx, &dy, wt, k, &dx);
                else ops->conv_bwd_weights(ctx, &x, &dy, k, dw);
                if (r >= 0) t[r] = timer_now_s() - t0;
            }
            qsort(t, (size_t)reps, sizeof *t, cmp_d);
            double med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
            flops[kind] += f;
            secs[kind] += med;
            if (per_layer) printf(", %s_flops_per_s: %.4e", names[kind], f / med);
        }
        if (per_layer) printf("}\n");
        ops->release(ctx, buf);
        ops->release(ctx, gbuf);
        ops->release(ctx, wt);
        ops->release(ctx, dw);
    }
    printf("conv_layers: %d\n", nlayers);
    double fa = 0, sa = 0;
    for (int kind = 0; kind < 3; kind++) {
        double rate = secs[kind] > 0 ? flops[kind] / secs[kind] : 0;
        printf("%s_time_s: %.6f\n", names[kind], secs[kind]);
        printf("%s_flops_per_s: %.4e\n", names[kind], rate);
        if (peak > 0) printf("%s_fraction_of_peak: %.3f\n", names[kind], rate / peak);
        fa += flops[kind];
        sa += secs[kind];
    }
    printf("conv_all_flops: %.6e\n", fa);
    printf("conv_all_time_s: %.6f\n", sa);
    printf("conv_all_flops_per_s: %.4e\n", sa > 0 ? fa / sa : 0);
    if (peak > 0) printf("conv_all_fraction_of_peak: %.3f\n", sa > 0 ? fa / sa / peak : 0);
    if (fast) kern_fast_release(ctx);
    if (blas) conv_blas_release(ctx);
    plan_free(&plan);
    return 0;
}
