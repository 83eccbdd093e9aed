/* plots: gnuplot figures of a run, PNG and SVG, with the .dat and .gp files
 * beside them so a user can re-plot (`cd plots && gnuplot NAME.gp`).
 *   <bench>_throughput   samples/s against scale, with the ideal line
 *   <bench>_efficiency   efficiency against scale, Summit's published 0.93 marked
 *   <bench>_flops        sustained and peak FLOP/s against scale
 *   <bench>_kernels      STEMDL time per step by kernel kind, per scale
 *   <bench>_<op>_busbw   bus bandwidth against message size, one line per scale
 *   <bench>_<op>_latency latency against message size
 * The PNG terminal is pngcairo where gnuplot has it, else png. */
#ifndef EXADL_HARNESS_PLOTS_H
#define EXADL_HARNESS_PLOTS_H

#include "harness/analysis/analysis.h"

typedef struct {
    const char *name;  /* file base name in plots/ */
    const char *title;
    int drawn;         /* PNG and SVG exist */
} plot_t;

typedef struct {
    plot_t *p;
    size_t n, cap;
    const char *note;  /* why plots were not drawn (no gnuplot, gnuplot failed) */
} plots_t;

/* Write the .dat and .gp files into dir (created) and draw them.  Returns the
 * number of plots that could not be drawn (0 when all were). */
int plots_make(arena_t *a, const char *dir, const analysis_t *an, plots_t *out);

/* The same in two steps, so that other modules can add figures to the same
 * gnuplot run: prepare writes the .dat and .gp files of the analysis (0, or -1
 * with out->note when dir cannot be made); draw draws every registered plot. */
int plots_prepare(arena_t *a, const char *dir, const analysis_t *an, plots_t *out);
int plots_draw(arena_t *a, const char *dir, plots_t *out);

/* For other modules' figures: register a plot whose data (dat) and script
 * (gp) are written to dir/NAME.dat and dir/NAME.gp; a script starts with
 * plots_gp_header (terminals, title, axis labels; output outbase.png) and
 * ends with plots_gp_footer (the SVG). */
int plots_add(arena_t *a, const char *dir, plots_t *out, const char *name, const char *title,
              const sb_t *dat, const char *gp);
const char *plots_gp_header(arena_t *a, const char *name, const char *title, const char *xl,
                            const char *yl);
extern const char *const plots_gp_footer;

/* Summit's published weak-scaling efficiency at 27,600 GPUs, marked on plots. */
#define SUMMIT_EFFICIENCY 0.93

#endif
