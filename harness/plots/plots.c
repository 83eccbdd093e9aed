/* gnuplot figures (plots.h). */
#define _GNU_SOURCE
#include "harness/plots/plots.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/plots/axis.h"
#include "harness/proc/argv.h"
#include "harness/proc/launch.h"
#include "harness/util/safefile.h"

void plots_datum(sb_t *b, double v)
{
    if (isfinite(v)) sb_printf(b, " %.9g", v);
    else sb_puts(b, " NaN");
}

const char *plots_gp_str(arena_t *a, const char *s)
{
    sb_t b = {0};
    int open = 0; /* inside a '...' piece */
    if (!*s) sb_puts(&b, "''");
    for (const char *p = s; *p; p++) {
        /* a quote, a line feed or a carriage return: a double-quoted piece of
         * its own, which holds no backtick (gnuplot reads '' at the start of
         * a single-quoted string as an empty string, so no doubling) */
        if (*p == '\'' || *p == '\n' || *p == '\r') {
            if (open) sb_puts(&b, "'"), open = 0;
            sb_printf(&b, "%s\"%s\"", b.len ? "." : "",
                      *p == '\'' ? "'" : *p == '\n' ? "\\n" : "\\r");
            continue;
        }
        if (!open) sb_printf(&b, "%s'", b.len ? "." : ""), open = 1;
        sb_putn(&b, p, 1);
    }
    if (open) sb_puts(&b, "'");
    char *r = ar_strdup(a, sb_str(&b));
    sb_free(&b);
    return r;
}

int plots_name_ok(const char *name)
{
    return name && *name && name[0] != '.' && name[0] != '-' &&
           strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
               strlen(name);
}

const char *plots_gp_header(arena_t *a, const char *name, const char *title, const char *xl,
                            const char *yl)
{
    const char *n = sanitize_name(a, name); /* plots_add refuses any other name */
    return ar_printf(
        a,
        "# ExaDL plot. Re-plot: gnuplot %s.gp (writes %s.png and %s.svg from %s.dat)\n"
        "reset\n"
        "if (!exists(\"outbase\")) outbase = '%s'\n"
        "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
        "    set terminal pngcairo size 960,600 noenhanced font \"sans,11\"\n"
        "} else {\n"
        "    set terminal png size 960,600 noenhanced\n"
        "}\n"
        "set output outbase.\".png\"\n"
        "set datafile missing \"NaN\"\n"
        "set title %s\n"
        "set xlabel %s\n"
        "set ylabel %s\n"
        "set grid\n"
        AXIS_KEY,
        n, n, n, n, n, plots_gp_str(a, title), plots_gp_str(a, xl), plots_gp_str(a, yl));
}

const char *const plots_gp_footer =
    "set terminal svg size 960,600 noenhanced font \"sans,11\"\n"
    "set output outbase.\".svg\"\n"
    "replot\n"
    "unset output\n";

int plots_add(arena_t *a, const char *dir, plots_t *out, const char *name, const char *title,
              const sb_t *dat, const char *gp)
{
    char err[512];
    if (!plots_name_ok(name)) { /* the scripts name their .dat by it, unquoted */
        fprintf(stderr, "exadl: warning: plot name '%s' is not a plain file name; not drawn\n",
                sanitize_name(a, name));
        return -1;
    }
    char *dp = ar_printf(a, "%s/%s.dat", dir, name), *gpp = ar_printf(a, "%s/%s.gp", dir, name);
    if (fileio_write_atomic(dp, sb_str(dat), dat->len, err, sizeof err) ||
        fileio_write_atomic(gpp, gp, strlen(gp), err, sizeof err)) {
        fprintf(stderr, "exadl: warning: %s\n", err);
        return -1;
    }
    AR_GROW(a, out->p, out->n, out->cap);
    out->p[out->n++] = (plot_t){ar_strdup(a, name), ar_strdup(a, title), 0};
    return 0;
}

/* gnuplot's command line: into dir (a path from the user or a run folder,
 * so quoted like any text), then each script by its plain name */
static void gp_args(arena_t *a, argv_t *v, const char *gnuplot, const char *dir,
                    const plot_t *p, size_t n)
{
    argv_push(a, v, gnuplot);
    argv_push(a, v, "-e");
    argv_pushf(a, v, "cd %s", plots_gp_str(a, dir));
    for (size_t i = 0; i < n; i++) {
        argv_push(a, v, "-e");
        argv_pushf(a, v, "outbase = '%s.tmp'; load '%s.gp'", p[i].name, p[i].name);
    }
}

/* Draw every plot in one gnuplot; on failure, one at a time. */
static int draw(arena_t *a, const char *gnuplot, const char *dir, plots_t *out)
{
    argv_t all = {0};
    gp_args(a, &all, gnuplot, dir, out->p, out->n);
    char *log = ar_printf(a, "%s/gnuplot.log", dir);
    /* gnuplot and the log open by name, following links: names planted in a
     * folder from elsewhere are removed first (unlink removes the link) */
    unlink(log);
    for (size_t i = 0; i < out->n; i++) {
        unlink(ar_printf(a, "%s/%s.tmp.png", dir, out->p[i].name));
        unlink(ar_printf(a, "%s/%s.tmp.svg", dir, out->p[i].name));
    }
    spawn_opts_t o = {.argv = argv_done(a, &all), .log = log, .timeout_s = 120, .grace_s = 2};
    spawn_result_t r;
    spawn_run(&o, &r);
    int missing = 0;
    for (size_t i = 0; i < out->n; i++) {
        char *tp = ar_printf(a, "%s/%s.tmp.png", dir, out->p[i].name);
        char *ts = ar_printf(a, "%s/%s.tmp.svg", dir, out->p[i].name);
        if (!path_is_file(tp) || !path_is_file(ts)) { /* retry alone, to isolate a failure */
            argv_t one = {0};
            gp_args(a, &one, gnuplot, dir, &out->p[i], 1);
            char *log1 = ar_printf(a, "%s/gnuplot-%s.log", dir, out->p[i].name);
            unlink(log1), unlink(tp), unlink(ts);
            spawn_opts_t o1 = {.argv = argv_done(a, &one), .log = log1,
                               .timeout_s = 60, .grace_s = 2};
            spawn_run(&o1, &r);
        }
        char *fp = ar_printf(a, "%s/%s.png", dir, out->p[i].name);
        char *fs = ar_printf(a, "%s/%s.svg", dir, out->p[i].name);
        struct stat st;
        if (stat(tp, &st) == 0 && st.st_size > 0 && stat(ts, &st) == 0 && st.st_size > 0 &&
            rename(tp, fp) == 0 && rename(ts, fs) == 0) {
            out->p[i].drawn = 1;
        } else {
            unlink(tp), unlink(ts);
            missing++;
        }
    }
    if (!missing) unlink(log);
    return missing;
}

int plots_begin(arena_t *a, const char *dir, plots_t *out)
{
    memset(out, 0, sizeof *out);
    char err[1024];
    if (sf_mkdir(dir, err, sizeof err)) { /* never a link: the plots land where it points */
        out->note = ar_strdup(a, err);
        return -1;
    }
    return 0;
}

int plots_draw(arena_t *a, const char *dir, plots_t *out)
{
    if (!out->n) return 0;
    const char *gp = getenv("EXADL_GNUPLOT");
    char *gnuplot = path_search(a, gp && *gp ? gp : "gnuplot");
    if (!gnuplot) {
        out->note = "gnuplot not found: the .dat and .gp files are written, PNG and SVG are "
                    "not (install gnuplot-nox, then run gnuplot NAME.gp in plots/)";
        return (int)out->n;
    }
    int missing = draw(a, gnuplot, dir, out);
    if (missing)
        out->note = ar_printf(a, "gnuplot could not draw %d of %zu plots; see plots/gnuplot*.log",
                              missing, out->n);
    return missing;
}

