/* Report section, per benchmark: the collectives table (per scale,
 * operation, type, placement and size: samples, median and CI, algbw, busbw,
 * wrong elements) and the figures <bench>_<op>_busbw and _latency.  For
 * records with a results: list (collectives'). */
#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include "harness/report/runctx.h"

static void md(sb_t *o, const runctx_t *rc, const bres_t *b)
{
    if (!b->nc) return;
    sb_puts(o, "\n### Collectives\n\nalgbw = bytes / median time (1e9 bytes per GB); busbw = "
               "algbw x the nccl-tests factor (allreduce 2(n-1)/n; allgather, reduce_scatter, "
               "alltoall (n-1)/n; broadcast, reduce 1). Times are per call, max over ranks.\n\n"
               "| scale | op | dtype | in-place | bytes | samples | median (us) | 95% CI (us) "
               "| algbw GB/s | busbw GB/s | wrong |\n"
               "|---:|---|---|---|---:|---:|---:|---|---:|---:|---:|\n");
    for (size_t i = 0; i < b->nc; i++) {
        const cres_t *c = &b->c[i];
        sb_printf(o, "| %d | %s | %s | %s | %.0f | %zu | %.4g | [%.4g, %.4g] | %.4g | %.4g | %lld |\n",
                  c->scale, c->op, c->dtype, c->inplace ? "yes" : "no", c->bytes, c->st.n,
                  c->latency_us, c->lat_lo, c->lat_hi, c->algbw, c->busbw, c->wrong);
    }
    const plots_t *pl = &rc->pl;
    for (size_t k = 0; k < pl->n; k++) {
        size_t l = strlen(b->name);
        if (!strncmp(pl->p[k].name, b->name, l) && pl->p[k].name[l] == '_' &&
            (strstr(pl->p[k].name, "_busbw") || strstr(pl->p[k].name, "_latency")))
            report_plot_link(o, pl, pl->p[k].name);
    }
}

static void plots(const runctx_t *rc, const bres_t *b, const char *dir, plots_t *out)
{
    arena_t *a = rc->a;
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
                plots_datum(&bw, vb);
                plots_datum(&lat, vl);
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

const bsection_t bsection_collectives = {.name = "collectives", .plots = plots, .md = md};
