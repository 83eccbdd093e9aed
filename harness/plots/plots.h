/* plots: gnuplot figures of a run, PNG and SVG, with the .dat and .gp files
 * beside them so a user can re-plot (`cd plots && gnuplot NAME.gp`), all drawn
 * in one gnuplot pass.  The report sections make them (report/sections/:
 * training <bench>_throughput, _efficiency, _flops, _kernels; collectives
 * <bench>_<op>_busbw, _latency; gradient_reduction ablation_efficiency,
 * ablation_modes, model_efficiency); `exadl model` its own.
 * The PNG terminal is pngcairo where gnuplot has it, else png.
 *
 * Every text in a script (titles, labels, paths: they come from run folders,
 * results files, machine files and the command line) reaches gnuplot only
 * through plots_gp_str, and plot names (which scripts use unquoted, as file
 * names) only when plots_name_ok: gnuplot runs `backticks` and system() from
 * what it reads, so nothing from data is ever pasted into a script raw. */
#ifndef EXADL_HARNESS_PLOTS_H
#define EXADL_HARNESS_PLOTS_H

#include "harness/util/util.h"

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

/* Start the figures of dir (created): 0, or -1 with out->note when dir cannot
 * be made. */
int plots_begin(arena_t *a, const char *dir, plots_t *out);
/* Draw every registered plot; returns how many could not be drawn (out->note
 * says why). */
int plots_draw(arena_t *a, const char *dir, plots_t *out);

/* Register a plot whose data (dat) and script
 * (gp) are written to dir/NAME.dat and dir/NAME.gp; a script starts with
 * plots_gp_header (terminals, title, axis labels; output outbase.png) and
 * ends with plots_gp_footer (the SVG). */
int plots_add(arena_t *a, const char *dir, plots_t *out, const char *name, const char *title,
              const sb_t *dat, const char *gp);
const char *plots_gp_header(arena_t *a, const char *name, const char *title, const char *xl,
                            const char *yl);
/* s as a gnuplot string expression that evaluates to exactly s, whatever it
 * holds: single-quoted pieces (gnuplot substitutes nothing inside single
 * quotes: no `backticks`, no @macros, no \ escapes) joined by the
 * double-quoted pieces "'", "\n" and "\r" for the three characters a
 * single-quoted piece cannot hold.
 * "it's" -> 'it'."'".'s';  "a\nb" -> 'a'."\n".'b';  "" -> ''. */
const char *plots_gp_str(arena_t *a, const char *s);
/* name is a plain file name: letters, digits, '.', '_', '-', not starting
 * with '.' or '-' (plots_add refuses any other). */
int plots_name_ok(const char *name);
extern const char *const plots_gp_footer;
/* " VALUE" of a .dat row; NaN is gnuplot's missing value. */
void plots_datum(sb_t *b, double v);

/* Summit's published weak-scaling efficiency at 27,600 GPUs, drawn on STEMDL's
 * weak-scaling efficiency plots (reference/summit-2019.yaml) */
#define SUMMIT_EFFICIENCY 0.93

#endif
