#define _GNU_SOURCE
#include "harness/report/plots.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/run/launch.h"

static void d(sb_t *b, double v) /* a data value; NaN is gnuplot's missing value */
{
    if (isfinite(v)) sb_printf(b, " %.9g", v);
    else sb_puts(b, " NaN");
}

const char *plots_gp_header(arena_t *a, const char *name, const char *title, const char *xl,
                            const char *yl)
{
    return ar_printf(
        a,
        "# ExaDL plot. Re-plot: gnuplot %s.gp (writes %s.png and %s.svg from %s.dat)\n"
        "reset\n"
        "if (!exists(\"outbase\")) outbase = \"%s\"\n"
        "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
        "    set terminal pngcairo size 960,600 noenhanced font \"sans,11\"\n"
        "} else {\n"
        "    set terminal png size 960,600 noenhanced\n"
        "}\n"
        "set output outbase.\".png\"\n"
        "set datafile missing \"NaN\"\n"
        "set title \"%s\"\n"
        "set xlabel \"%s\"\n"
        "set ylabel \"%s\"\n"
        "set grid\n"
        "set key top left\n",
        name, name, name, name, name, title, xl, yl);
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

static void scale_plots(arena_t *a, const char *dir, const bres_t *b, plots_t *out)
{
    const sres_t *base = NULL;
    for (size_t i = 0; i < b->ns && !base; i++)
        if (isfinite(b->s[i].thr)) base = &b->s[i];
    if (!base) return;
    sb_t t = {0}, e = {0}, f = {0};
    sb_puts(&t, "# scale  throughput_samples_per_s  ci_lo  ci_hi  ideal\n");
    sb_puts(&e, "# scale  efficiency  ci_lo  ci_hi\n");
    sb_puts(&f, "# scale  sustained_flops  peak_flops  convention_sustained_flops  "
                "sustained_per_device\n");
    for (size_t i = 0; i < b->ns; i++) {
        const sres_t *s = &b->s[i];
        if (!s->n) continue;
        sb_printf(&t, "%d", s->scale);
        d(&t, s->thr), d(&t, s->thr_lo), d(&t, s->thr_hi);
        d(&t, base->thr * s->scale / base->scale);
        sb_puts(&t, "\n");
        sb_printf(&e, "%d", s->scale);
        d(&e, s->eff), d(&e, s->eff_lo), d(&e, s->eff_hi);
        sb_puts(&e, "\n");
        sb_printf(&f, "%d", s->scale);
        d(&f, s->sustained), d(&f, s->peak), d(&f, s->conv_sustained);
        d(&f, s->sustained / (s->devices > 0 ? s->devices : s->scale));
        sb_puts(&f, "\n");
    }
    const char *xl = "scale (ranks; one per GPU where GPUs are used)";
    const char *logx = b->s[b->ns - 1].scale > 8 ? "set logscale x 2\n" : "";
    char *name = ar_printf(a, "%s_throughput", b->name);
    char *title = ar_printf(a, "%s: throughput (%s scaling)", b->name, scaling_name(b->scaling));
    char *gp = ar_printf(a,
                         "%s%sset xtics 1\nset format y '%%.3s%%c'\n"
                         "plot '%s.dat' using 1:2:3:4 with yerrorlines lw 2 pt 7 "
                         "title 'measured (median, 95%% CI)', \\\n"
                         "     '%s.dat' using 1:5 with lines dt 2 lw 2 title 'ideal (linear "
                         "from the smallest scale)'\n%s",
                         plots_gp_header(a, name, title, xl, "samples/s"), logx, name, name,
                         plots_gp_footer);
    plots_add(a, dir, out, name, title, &t, gp);
    name = ar_printf(a, "%s_efficiency", b->name);
    title = ar_printf(a, "%s: %s scaling efficiency", b->name, scaling_name(b->scaling));
    gp = ar_printf(a, "%s%sset xtics 1\nset yrange [0:1.2]\nset key bottom left\n"
                      "plot '%s.dat' using 1:2:3:4 with yerrorlines lw 2 pt 7 title "
                      "'measured (95%% CI)', \\\n"
                      "     1 with lines dt 2 lc rgb 'gray40' title 'ideal', \\\n"
                      "     %.2f with lines dt 3 lw 2 lc rgb 'red' title 'Summit 2019, 27,600 "
                      "V100 (published)'\n%s",
                   plots_gp_header(a, name, title, xl, "efficiency"), logx, name, SUMMIT_EFFICIENCY,
                   plots_gp_footer);
    plots_add(a, dir, out, name, title, &e, gp);
    name = ar_printf(a, "%s_flops", b->name);
    title = ar_printf(a, "%s: FLOP rate (executed FLOPs)", b->name);
    gp = ar_printf(a,
                   "%s%sset xtics 1\nset format y '%%.2s%%cFLOP/s'\n"
                   "plot '%s.dat' using 1:2 with linespoints lw 2 pt 7 title 'sustained', \\\n"
                   "     '%s.dat' using 1:3 with linespoints lw 2 pt 5 title 'peak (fastest "
                   "step)', \\\n"
                   "     '%s.dat' using 1:5 with linespoints lw 1 pt 6 title 'sustained per "
                   "device'\n%s",
                   plots_gp_header(a, name, title, xl, "FLOP/s"), logx, name, name, name,
                   plots_gp_footer);
    plots_add(a, dir, out, name, title, &f, gp);
    sb_free(&t), sb_free(&e), sb_free(&f);
}

static void kernel_plot(arena_t *a, const char *dir, const bres_t *b, plots_t *out)
{
    const sres_t *top = NULL; /* kinds in the order of the largest scale that has them */
    size_t ncol = 0;
    for (size_t i = 0; i < b->ns; i++)
        if (b->s[i].nkinds) top = &b->s[i], ncol++;
    if (!top) return;
    sb_t k = {0};
    sb_puts(&k, "kernel");
    for (size_t i = 0; i < b->ns; i++)
        if (b->s[i].nkinds) sb_printf(&k, " n=%d", b->s[i].scale);
    sb_puts(&k, "\n");
    for (size_t j = 0; j < top->nkinds; j++) {
        sb_puts(&k, sanitize_name(a, top->kinds[j].kind));
        for (size_t i = 0; i < b->ns; i++) {
            const sres_t *s = &b->s[i];
            if (!s->nkinds) continue;
            double v = NAN;
            for (size_t x = 0; x < s->nkinds; x++)
                if (!strcmp(s->kinds[x].kind, top->kinds[j].kind)) v = s->kinds[x].time_s * 1e3;
            d(&k, v);
        }
        sb_puts(&k, "\n");
    }
    char *name = ar_printf(a, "%s_kernels", b->name);
    char *title = ar_printf(a, "%s: time per step by kernel kind (rank 0)", b->name);
    char *gp = ar_printf(a,
                         "%sset style data histograms\nset style histogram clustered gap 1\n"
                         "set style fill solid 0.8 border -1\nset xtics rotate by -35\n"
                         "set key top right\nset yrange [0:*]\n"
                         "plot for [i=2:%zu] '%s.dat' using i:xtic(1) title columnheader(i)\n%s",
                         plots_gp_header(a, name, title, "kernel kind", "ms per step"), ncol + 1,
                         name, plots_gp_footer);
    plots_add(a, dir, out, name, title, &k, gp);
    sb_free(&k);
}

static void coll_plots(arena_t *a, const char *dir, const bres_t *b, plots_t *out)
{
    for (size_t i = 0; i < b->nc; i++) {
        const char *op = b->c[i].op;
        int first = 1;
        for (size_t j = 0; j < i; j++) first &= strcmp(b->c[j].op, op) != 0;
        if (!first) continue;
        int sc[64];
        size_t nsc = 0;
        double sizes[256];
        size_t nsz = 0;
        for (size_t j = 0; j < b->nc; j++) {
            const cres_t *c = &b->c[j];
            if (strcmp(c->op, op) || c->inplace) continue;
            size_t x = 0;
            if (c->scale == 1 && b->c[b->nc - 1].scale > 1) continue; /* busbw 0 at one rank */
            while (x < nsc && sc[x] != c->scale) x++;
            if (x == nsc && nsc < 64) sc[nsc++] = c->scale;
            x = 0;
            while (x < nsz && sizes[x] != c->bytes) x++;
            if (x == nsz && nsz < 256) sizes[nsz++] = c->bytes;
        }
        if (!nsc) continue;
        for (size_t x = 1; x < nsz; x++)
            for (size_t y = x; y > 0 && sizes[y - 1] > sizes[y]; y--) {
                double t = sizes[y];
                sizes[y] = sizes[y - 1];
                sizes[y - 1] = t;
            }
        sb_t bw = {0}, lat = {0};
        sb_puts(&bw, "bytes");
        sb_puts(&lat, "bytes");
        for (size_t x = 0; x < nsc; x++) {
            sb_printf(&bw, " n=%d", sc[x]);
            sb_printf(&lat, " n=%d", sc[x]);
        }
        sb_puts(&bw, "\n");
        sb_puts(&lat, "\n");
        for (size_t z = 0; z < nsz; z++) {
            sb_printf(&bw, "%.0f", sizes[z]);
            sb_printf(&lat, "%.0f", sizes[z]);
            for (size_t x = 0; x < nsc; x++) {
                double vb = NAN, vl = NAN;
                for (size_t j = 0; j < b->nc; j++) {
                    const cres_t *c = &b->c[j];
                    if (!strcmp(c->op, op) && !c->inplace && c->scale == sc[x] &&
                        c->bytes == sizes[z])
                        vb = c->busbw, vl = c->latency_us;
                }
                d(&bw, vb);
                d(&lat, vl);
            }
            sb_puts(&bw, "\n");
            sb_puts(&lat, "\n");
        }
        const char *xl = "message size (bytes)";
        const char *sop = sanitize_name(a, op);
        char *name = ar_printf(a, "%s_%s_busbw", b->name, sop);
        char *title = ar_printf(a, "%s: %s bus bandwidth (out-of-place)", b->name, sop);
        char *gp = ar_printf(a, "%sset logscale x 2\nset format x '%%.0b%%B'\n"
                                "plot for [i=2:%zu] '%s.dat' using 1:i with linespoints lw 2 "
                                "title columnheader(i)\n%s",
                             plots_gp_header(a, name, title, xl, "busbw (GB/s)"), nsc + 1, name,
                             plots_gp_footer);
        plots_add(a, dir, out, ar_strdup(a, name), title, &bw, gp);
        name = ar_printf(a, "%s_%s_latency", b->name, sop);
        title = ar_printf(a, "%s: %s latency (out-of-place)", b->name, sop);
        gp = ar_printf(a,
                       "%sset logscale xy\nset format x '%%.0b%%B'\n"
                       "plot for [i=2:%zu] '%s.dat' using 1:i with linespoints lw 2 "
                       "title columnheader(i)\n%s",
                       plots_gp_header(a, name, title, xl, "latency (us)"), nsc + 1, name,
                       plots_gp_footer);
        plots_add(a, dir, out, name, title, &lat, gp);
        sb_free(&bw), sb_free(&lat);
    }
}

/* Draw plots [from, n) in one gnuplot; on failure, one at a time. */
static int draw(arena_t *a, const char *gnuplot, const char *dir, plots_t *out)
{
    char *argv[2 * 512 + 4];
    size_t k = 0;
    argv[k++] = (char *)gnuplot;
    for (size_t i = 0; i < out->n && k < 2 * 512; i++) {
        argv[k++] = "-e";
        argv[k++] = ar_printf(a, "outbase='%s/%s.tmp'; cd '%s'", dir, out->p[i].name, dir);
        argv[k++] = ar_printf(a, "%s/%s.gp", dir, out->p[i].name);
    }
    argv[k] = NULL;
    char *log = ar_printf(a, "%s/gnuplot.log", dir);
    spawn_opts_t o = {.argv = argv, .log = log, .timeout_s = 120, .grace_s = 2};
    spawn_result_t r;
    spawn_run(&o, &r);
    int missing = 0;
    for (size_t i = 0; i < out->n; i++) {
        char *tp = ar_printf(a, "%s/%s.tmp.png", dir, out->p[i].name);
        char *ts = ar_printf(a, "%s/%s.tmp.svg", dir, out->p[i].name);
        if (!path_is_file(tp) || !path_is_file(ts)) { /* retry alone, to isolate a failure */
            char *one[] = {(char *)gnuplot, "-e", NULL, NULL, NULL};
            one[2] = ar_printf(a, "outbase='%s/%s.tmp'; cd '%s'", dir, out->p[i].name, dir);
            one[3] = ar_printf(a, "%s/%s.gp", dir, out->p[i].name);
            spawn_opts_t o1 = {.argv = one, .log = ar_printf(a, "%s/gnuplot-%s.log", dir,
                                                             out->p[i].name),
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

int plots_prepare(arena_t *a, const char *dir, const analysis_t *an, plots_t *out)
{
    memset(out, 0, sizeof *out);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        out->note = ar_printf(a, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    for (size_t i = 0; an && i < an->nb; i++) {
        scale_plots(a, dir, &an->b[i], out);
        kernel_plot(a, dir, &an->b[i], out);
        coll_plots(a, dir, &an->b[i], out);
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

int plots_make(arena_t *a, const char *dir, const analysis_t *an, plots_t *out)
{
    if (plots_prepare(a, dir, an, out)) return 1;
    return plots_draw(a, dir, out);
}
