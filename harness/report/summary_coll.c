#define _GNU_SOURCE
#include "harness/report/summary_coll.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/report/summary_cells.h"

/* a metric row of (bench, scale, metric) for op, out of place, at the
 * smallest (want_max 0) or largest (1) size */
static const metric_t *at_size(const mtable_t *t, const char *bench, int scale, const char *metric,
                               const char *op, int want_max)
{
    const metric_t *best = NULL;
    double bb = 0;
    for (size_t i = 0; i < t->n; i++) {
        const metric_t *m = &t->m[i];
        const char *b = metric_param(m, "bytes"), *o = metric_param(m, "op"),
                   *ip = metric_param(m, "inplace");
        if (m->scale != scale || !b || !o || strcmp(m->metric, metric) || strcmp(m->bench, bench) ||
            strcmp(o, op) || (ip && !strcmp(ip, "true")) || !isfinite(m->value))
            continue;
        double v = strtod(b, NULL);
        if (!best || (want_max ? v > bb : v < bb)) best = m, bb = v;
    }
    return best;
}

static void size_text(double bytes, char *buf, size_t len)
{
    if (bytes >= 1 << 20 && fmod(bytes, 1 << 20) == 0) snprintf(buf, len, "%.0f MiB", bytes / (1 << 20));
    else if (bytes >= 1024 && fmod(bytes, 1024) == 0) snprintf(buf, len, "%.0f KiB", bytes / 1024);
    else snprintf(buf, len, "%.0f B", bytes);
}

int summary_coll_print(FILE *f, const mtable_t *t, const checks_t *ck, int md)
{
    static const char *const head[] = {"collectives", "scale", "allreduce latency",
                                       "allreduce busbw", "best busbw", "checks"};
    static const int w[] = {14, 5, 26, 26, 26, 12};
    int n = 0;
    for (size_t i = 0; i < t->n; i++) {
        const metric_t *m = &t->m[i];
        if (strcmp(m->metric, "busbw_max_GBps")) continue;
        int first = 1; /* one row per bench and scale: its first busbw_max row */
        for (size_t j = 0; j < i && first; j++)
            first = !(!strcmp(t->m[j].metric, "busbw_max_GBps") && t->m[j].scale == m->scale &&
                      !strcmp(t->m[j].bench, m->bench));
        if (!first || m->scale < 2) continue; /* one rank moves nothing */
        if (!n++) {
            fprintf(f, "\n");
            summary_row(f, md, head, w, 6);
            if (md) fprintf(f, "|---|---:|---:|---:|---:|---|\n");
        }
        char sc[16], lat[48] = "-", bw[48] = "-", best[64] = "-", chk[32], sz[24];
        snprintf(sc, sizeof sc, "%d", m->scale);
        const metric_t *l = at_size(t, m->bench, m->scale, "latency_us", "allreduce", 0);
        const metric_t *b = at_size(t, m->bench, m->scale, "busbw_GBps", "allreduce", 1);
        if (l) {
            size_text(strtod(metric_param(l, "bytes"), NULL), sz, sizeof sz);
            snprintf(lat, sizeof lat, "%.3g us at %s", l->value, sz);
        }
        if (b) {
            size_text(strtod(metric_param(b, "bytes"), NULL), sz, sizeof sz);
            snprintf(bw, sizeof bw, "%.3g GB/s at %s", b->value, sz);
        }
        const metric_t *top = NULL;
        for (size_t j = 0; j < t->n; j++)
            if (!strcmp(t->m[j].metric, "busbw_max_GBps") && t->m[j].scale == m->scale &&
                !strcmp(t->m[j].bench, m->bench) && (!top || t->m[j].value > top->value))
                top = &t->m[j];
        if (top) snprintf(best, sizeof best, "%.3g GB/s (%s)", top->value, metric_param(top, "op"));
        summary_checks_cell(ck, m->bench, m->scale, chk, sizeof chk);
        const char *cells[] = {m->bench, sc, lat, bw, best, chk};
        summary_row(f, md, cells, w, 6);
    }
    return n;
}
