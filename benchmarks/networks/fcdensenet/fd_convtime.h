/* fd_convtime: the measured local convolution times of the plan model
 * (docs/spatial.md "Measured convolution times").  A candidate plan's step
 * is charged, per convolution call of a dry step (counted.h's observer), the
 * time this machine takes for that call's shape (samples, input channels,
 * rows, columns, output channels, k), instead of its FLOPs at one rate.
 * Each shape is benchmarked once with the run's kernel set (1 warm-up
 * call, then FDC_REPS calls of the forward and of both gradients, each
 * kind's median) and kept in a per-machine cache file, so that a second
 * --describe measures nothing:
 *
 *   $EXADL_CONV_CACHE, else $XDG_CACHE_HOME/exadl/conv-HOST.tsv, else
 *   $HOME/.cache/exadl/conv-HOST.tsv
 *
 * one line per shape, tab-separated: CPU model, threads, kernel set,
 * precision, "n cin h w cout k" (a convolution) or "FAMILY n cin h w cout k"
 * (the other kernels, fd_kerntime.h), and the family's three times in
 * seconds ("fwd_s bwd_data_s bwd_weights_s"; 0 where unused).  Lines
 * of another machine (CPU model, threads, kernel set, precision) are kept
 * and never used.  The file is appended to, never through a symlink.
 *
 * defines: FDC_REPS, fdc_shape, fdc_cost, fdc_bench, fdc_open, fdc_close, fdc_time,
 *          fdc_use, fdc_current, fdc_step */
#ifndef EXADL_FCDENSENET_FD_CONVTIME_H
#define EXADL_FCDENSENET_FD_CONVTIME_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/networks/fcdensenet/fd_kerntime.h"
#include "benchmarks/train/kernels/kern.h"
#include "benchmarks/train/network.h"

#define FDC_REPS 3 /* timed calls per kind and shape after one warm-up */

/* the shape of a timed call: a convolution (fam FDK_CONV) or another kernel family */
typedef fdk_shape fdc_shape;

typedef struct {
    fdc_shape s;
    double t_s[3]; /* the family's kernels (fd_kerntime.h): conv_fwd, conv_bwd_data, ... */
    int from_cache, used; /* read from the file; asked for by a step */
} fdc_entry;

typedef struct {
    const kern_ops *ops; /* NULL: nothing can be measured (cache only) */
    void *ctx;
    char key[400];       /* CPU model \t threads \t kernel set \t precision */
    char path[1024];
    fdc_entry *e;
    int n, cap;
    int measured, reused; /* convolution shapes benchmarked now, taken from the cache */
    int measured_other, reused_other; /* the other families' */
    int unwritable;       /* the cache could not be appended to (said once) */
    double bench_s;       /* wall time of the benchmarking */
} fdc_bench;

/* Opens the cache of this machine for kernel set ops (ctx its context) at
 * threads and precision.  0, or -1 with err (no path can be named, a
 * damaged cache line: FILE:LINE: problem). */
int fdc_open(fdc_bench *b, const kern_ops *ops, void *ctx, const char *cpu_model, int threads,
             const char *precision, char *err, size_t errlen);
void fdc_close(fdc_bench *b);

/* The three times of shape s: from the cache, else measured now and
 * appended to the cache (a cache that cannot be written is said once on
 * stderr, naming the path and why, and the measuring goes on).  0, or -1
 * with err (nothing can be measured). */
int fdc_time(fdc_bench *b, const fdc_shape *s, double t_s[3], char *err, size_t errlen);

/* The bench --describe's plan model uses (NULL: none; FLOPs at one rate). */
void fdc_use(fdc_bench *b);
fdc_bench *fdc_current(void);

/* What one dry step's timed calls take: the convolutions and the other
 * families (fd_kerntime.h), their measured times and counted FLOPs. */
typedef struct {
    double conv_s, other_s;
    int64_t conv_flops, other_flops;
} fdc_cost;

/* One dry training step of model at batch through net, each timed call
 * charged its shape's time.  0, or -1 with err. */
int fdc_step(fdc_bench *b, const network_t *net, const void *model, int batch, fdc_cost *cost,
             char *err, size_t errlen);

#endif
