/* Report section, per benchmark: the collectives in brief.  Per scale, a
 * table operations x sizes (out of place, the first type and reduction of
 * each operation) with the headline quantity per cell: the latency (us) up
 * to 64 KiB, the bus bandwidth (GB/s) above; one figure per quantity with
 * every operation (<bench>_latency, <bench>_busbw, at the largest scale);
 * every row in full in results.yaml and in <bench>_collectives.csv beside the
 * report.  For records with a results: list (collectives'). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "benchmarks/common/fileio.h"
#include "harness/plots/axis.h"
#include "harness/report/runctx.h"

#define COLL_LATENCY_MAX_BYTES 65536.0 /* cells up to this size show latency */
#define COLL_MAX_COLS 8

/* the rows a cell of (scale, op) stands for: out of place, and the type and
 * reduction of the operation's first row at that scale */
static const cres_t *cell(const bres_t *b, int scale, const char *op, double bytes)
{
    const cres_t *first = NULL;
    for (size_t i = 0; i < b->nc; i++) {
        const cres_t *c = &b->c[i];
        if (c->scale != scale || strcmp(c->op, op) || c->inplace) continue;
        if (!first) first = c;
        if (c->bytes == bytes && !strcmp(c->dtype ? c->dtype : "", first->dtype ? first->dtype : "") &&
            !strcmp(c->redop ? c->redop : "", first->redop ? first->redop : ""))
            return c;
    }
    return NULL;
}

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void size_text(double bytes, char *buf, size_t len)
{
    if (bytes >= 1 << 20 && fmod(bytes, 1 << 20) == 0) snprintf(buf, len, "%.0f MiB", bytes / (1 << 20));
    else if (bytes >= 1024 && fmod(bytes, 1024) == 0) snprintf(buf, len, "%.0f KiB", bytes / 1024);
    else snprintf(buf, len, "%.0f B", bytes);
}

/* the sizes of one scale, sorted; returns the count */
static size_t sizes_of(const bres_t *b, int scale, double *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < b->nc && n < cap; i++) {
        const cres_t *c = &b->c[i];
        if (c->scale != scale || c->inplace) continue;
        size_t k = 0;
        while (k < n && out[k] != c->bytes) k++;
        if (k == n) out[n++] = c->bytes;
    }
    qsort(out, n, sizeof *out, cmp_d);
    return n;
}

static void table(sb_t *o, const runctx_t *rc, const bres_t *b, int scale)
{
    double all[256], col[COLL_MAX_COLS];
    size_t ns = sizes_of(b, scale, all, 256), nc = 0;
    if (!ns) return;
    /* about COLL_MAX_COLS columns spread over the sizes, the largest always */
    size_t step = (ns + COLL_MAX_COLS - 2) / (COLL_MAX_COLS - 1);
    if (step < 1) step = 1;
    for (size_t i = 0; i < ns && nc < COLL_MAX_COLS - 1; i += step) col[nc++] = all[i];
    if (col[nc - 1] != all[ns - 1]) col[nc++] = all[ns - 1];
    sb_printf(o, "\n%d ranks%s (latency in us up to 64 KiB, busbw in GB/s above; out of place):\n\n"
                 "| op |", scale, report_sim_mark(rc, b->name, scale));
    for (size_t k = 0; k < nc; k++) {
        char s[24];
        size_text(col[k], s, sizeof s);
        sb_printf(o, " %s |", s);
    }
    sb_puts(o, " wrong |\n|---|");
    for (size_t k = 0; k < nc; k++) sb_puts(o, "---:|");
    sb_puts(o, "---:|\n");
    for (size_t i = 0; i < b->nc; i++) {
        const cres_t *c = &b->c[i];
        int first = 1;
        for (size_t j = 0; j < i && first; j++) first = !(b->c[j].scale == scale && !strcmp(b->c[j].op, c->op));
        if (c->scale != scale || !first) continue;
        long long wrong = 0;
        for (size_t j = 0; j < b->nc; j++)
            if (b->c[j].scale == scale && !strcmp(b->c[j].op, c->op)) wrong += b->c[j].wrong;
        sb_printf(o, "| %s |", c->op);
        for (size_t k = 0; k < nc; k++) {
            const cres_t *x = cell(b, scale, c->op, col[k]);
            if (!x) sb_puts(o, " - |");
            else if (col[k] <= COLL_LATENCY_MAX_BYTES) sb_printf(o, " %.3g us |", x->latency_us);
            else sb_printf(o, " %.3g GB/s |", x->busbw);
        }
        sb_printf(o, " %lld |\n", wrong);
    }
}

/* every row, for spreadsheets: <bench>_collectives.csv in the run folder */
static const char *write_csv(const runctx_t *rc, const bres_t *b)
{
    sb_t s = {0};
    sb_puts(&s, "scale,op,dtype,redop,inplace,bytes,count,samples,median_us,ci_lo_us,ci_hi_us,"
                "algbw_GBps,busbw_GBps,busbw_factor,wrong\n");
    for (size_t i = 0; i < b->nc; i++) {
        const cres_t *c = &b->c[i];
        /* names come from records (untrusted): only [A-Za-z0-9_.-] reach the file */
        const char *f[3] = {c->op, c->dtype ? c->dtype : "", c->redop ? c->redop : ""};
        sb_printf(&s, "%d", c->scale);
        for (int k = 0; k < 3; k++) {
            sb_puts(&s, ",");
            for (const char *p = f[k]; *p; p++)
                sb_printf(&s, "%c", (strchr("_.-", *p) || (*p >= '0' && *p <= '9') ||
                                     ((*p | 32) >= 'a' && (*p | 32) <= 'z')) ? *p : '_');
        }
        sb_printf(&s, ",%s,%.0f,%.0f,%zu,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%lld\n",
                  c->inplace ? "true" : "false", c->bytes, c->count, c->st.n, c->latency_us, c->lat_lo,
                  c->lat_hi, c->algbw, c->busbw, c->factor, c->wrong);
    }
    const char *name = ar_printf(rc->a, "%s_collectives.csv", sanitize_name(rc->a, b->name));
    char err[512];
    int rc_w = rc->ri.dir ? fileio_write_atomic(path_join(rc->a, rc->ri.dir, name), s.s ? s.s : "",
                                             s.len, err, sizeof err)
                       : -1;
    sb_free(&s);
    return rc_w ? NULL : name;
}

/* EXADL_NET_RATE (harness/launchers/net_rate.sh: a number with bit, kbit,
 * mbit, gbit or tbit, decimal) in bits per second; 0 when absent, unlimited or
 * unreadable */
static double net_rate_bps(const char *r)
{
    if (!r) return 0;
    char *end;
    double v = strtod(r, &end);
    if (end == r || !(v > 0) || !isfinite(v)) return 0;
    static const struct { const char *u; double m; } units[] = {
        {"bit", 1}, {"kbit", 1e3}, {"mbit", 1e6}, {"gbit", 1e9}, {"tbit", 1e12}};
    for (size_t k = 0; k < sizeof units / sizeof *units; k++)
        if (!strcasecmp(end, units[k].u)) return v * units[k].m;
    return 0;
}

/* the rate of the emulated link under this entry (its env's EXADL_NET_RATE,
 * which the netns launcher shapes the ranks' loopback to), 0: none */
static double entry_rate_bps(const runctx_t *rc, const char *bench, const char **text)
{
    for (size_t i = 0; i < rc->s.nbench; i++) {
        const bench_spec_t *e = &rc->s.bench[i];
        if (strcmp(e->name, bench)) continue;
        for (size_t k = e->nenv; k-- > 0;) /* the entry's own env comes last */
            if (!strcmp(e->env[k].key, "EXADL_NET_RATE")) {
                *text = e->env[k].value;
                return net_rate_bps(e->env[k].value);
            }
    }
    return 0;
}

/* a best busbw above the emulated link's rate is not the link's number: say so
 * (issue 27) instead of reporting it as the network's */
static void link_flag(sb_t *o, const runctx_t *rc, const bres_t *b)
{
    const char *text = NULL;
    double bps = entry_rate_bps(rc, b->name, &text);
    if (!(bps > 0)) return;
    double link_GBps = bps / 8 / 1e9;
    sb_t l = {0};
    for (size_t i = 0; i < b->nc; i++) {
        const cres_t *c = &b->c[i];
        if (c->scale < 2 || c->inplace || !isfinite(c->busbw)) continue;
        int best = 1; /* the best out-of-place row of its op and scale, first of equals */
        for (size_t j = 0; j < b->nc && best; j++) {
            const cres_t *x = &b->c[j];
            if (j == i || x->scale != c->scale || x->inplace || strcmp(x->op, c->op)) continue;
            best = !(x->busbw > c->busbw || (x->busbw == c->busbw && j < i));
        }
        if (!best || !(c->busbw > link_GBps)) continue;
        char sz[32];
        size_text(c->bytes, sz, sizeof sz);
        sb_printf(&l, "%s%s %.3g GB/s at %s (%d ranks)", l.len ? ", " : "",
                  sanitize_name(rc->a, c->op), c->busbw, sz, c->scale);
    }
    if (l.len) {
        double g = bps / 1e9;
        sb_printf(o, "\n**Above the emulated link's %.4g %s (EXADL_NET_RATE=%s, %.4g GB/s):** best "
                     "busbw %s. On-host traffic bypasses the link (shared memory, a copy inside one "
                     "rank, a burst the shaping lets through): these are not the link's numbers.\n",
                  g >= 1 ? g : bps / 1e6, g >= 1 ? "Gbit/s" : "Mbit/s",
                  sanitize_name(rc->a, text), link_GBps, sb_str(&l));
    }
    sb_free(&l);
}

static void md(sb_t *o, const runctx_t *rc, const bres_t *b)
{
    if (!b->nc) return;
    sb_puts(o, "\n### Collectives\n\nTime per call: the median over batches of back-to-back "
               "calls, each batch the slowest rank's (docs/collectives.md \"Timing\"); algbw = "
               "bytes / time (1e9 bytes per GB), busbw = algbw x the nccl-tests factor.\n");
    int scales[64];
    size_t n = 0;
    for (size_t i = 0; i < b->nc; i++) {
        size_t k = 0;
        while (k < n && scales[k] != b->c[i].scale) k++;
        if (k == n && n < 64) scales[n++] = b->c[i].scale;
    }
    for (size_t k = 0; k < n; k++)
        if (scales[k] > 1 || n == 1) table(o, rc, b, scales[k]); /* one rank moves nothing */
    link_flag(o, rc, b);
    const char *csv = write_csv(rc, b);
    sb_printf(o, "\nEvery row (each type, reduction, placement and size, with its 95%% CI): "
                 "results.yaml%s%s%s.\n", csv ? " and " : "", csv ? csv : "", csv ? "" : "");
    const plots_t *pl = &rc->pl;
    for (size_t k = 0; k < pl->n; k++) {
        size_t l = strlen(b->name);
        if (!strncmp(pl->p[k].name, b->name, l) &&
            (!strcmp(pl->p[k].name + l, "_busbw") || !strcmp(pl->p[k].name + l, "_latency")))
            report_plot_link(o, pl, pl->p[k].name);
    }
}

/* one figure per quantity, a line per operation, at the largest scale */
static void plots(const runctx_t *rc, const bres_t *b, const char *dir, plots_t *out)
{
    arena_t *a = rc->a;
    int scale = 0;
    for (size_t i = 0; i < b->nc; i++)
        if (b->c[i].scale > scale) scale = b->c[i].scale;
    const char *ops[32];
    size_t nops = 0;
    for (size_t i = 0; i < b->nc && nops < 32; i++) {
        size_t k = 0;
        while (k < nops && strcmp(ops[k], b->c[i].op)) k++;
        if (k == nops && b->c[i].scale == scale) ops[nops++] = b->c[i].op;
    }
    double sizes[256];
    size_t nsz = sizes_of(b, scale, sizes, 256);
    if (!nops || !nsz) return;
    for (int q = 0; q < 2; q++) { /* 0 busbw, 1 latency */
        if (q == 0 && scale < 2) continue; /* busbw is 0 at one rank */
        sb_t d = {0};
        sb_puts(&d, "bytes");
        for (size_t k = 0; k < nops; k++) sb_printf(&d, " %s", sanitize_name(a, ops[k]));
        sb_puts(&d, "\n");
        for (size_t z = 0; z < nsz; z++) {
            sb_printf(&d, "%.0f", sizes[z]);
            for (size_t k = 0; k < nops; k++) {
                const cres_t *c = cell(b, scale, ops[k], sizes[z]);
                plots_datum(&d, !c ? NAN : q == 0 ? c->busbw : c->latency_us);
            }
            sb_puts(&d, "\n");
        }
        const char *name = ar_printf(a, "%s_%s", b->name, q == 0 ? "busbw" : "latency");
        const char *title = ar_printf(a, "%s: %s per operation, %d ranks (out of place)", b->name,
                                      q == 0 ? "bus bandwidth" : "latency", scale);
        /* sizes at powers of two in binary units; latency on a log axis of
         * plain numbers (never gnuplot's default 0.100000) */
        char *gp = ar_printf(a, "%s%s%s"
                                "plot for [i=2:%zu] '%s.dat' using 1:i with linespoints lw 2 "
                                "title columnheader(i)\n%s",
                             plots_gp_header(a, name, title, "message size",
                                             q == 0 ? "busbw (GB/s)" : "latency (us)"),
                             axis_bytes(a, sizes[0], sizes[nsz - 1]),
                             q == 0 ? "set yrange [0:*]\n" : "set logscale y 10\nset format y '%g'\n",
                             nops + 1, name, plots_gp_footer);
        plots_add(a, dir, out, ar_strdup(a, name), title, &d, gp);
        sb_free(&d);
    }
}

const bsection_t bsection_collectives = {.name = "collectives", .plots = plots, .md = md};
