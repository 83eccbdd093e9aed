#define _GNU_SOURCE
#include "harness/report/summary.h"

#include <math.h>
#include <string.h>

#include "harness/report/summary_cells.h"
#include "harness/report/summary_coll.h"

const metric_t *mtable_find(const mtable_t *t, const char *bench, int scale, const char *metric)
{
    for (size_t i = 0; i < t->n; i++) {
        const metric_t *m = &t->m[i];
        if (m->scale == scale && !strcmp(m->metric, metric) && !strcmp(m->bench, bench) &&
            !metric_param(m, "bytes"))
            return m;
    }
    return NULL;
}

const char *checks_line(const checks_t *ck)
{
    static char buf[256]; /* checks of what ran apart from --describe counts (refcheck.h) */
    ck_tally_t t = checks_tally(ck);
    checks_tally_text(&t, buf, sizeof buf);
    return buf;
}

static void val(const mtable_t *t, const char *b, int s, const char *metric, const char *unit,
                char *buf, size_t len)
{
    const metric_t *m = mtable_find(t, b, s, metric);
    if (!m) snprintf(buf, len, "-");
    else if (unit && !*unit) snprintf(buf, len, "%.4g", m->value);
    else if (unit) fmt_si(m->value, unit, buf, len);
    else snprintf(buf, len, "%.3f", m->value);
}

void summary_print(FILE *f, const mtable_t *t, const checks_t *ck, int md)
{
    static const char *const head[] = {"benchmark", "scale", "samples/s", "efficiency",
                                       "sustained FLOP/s", "per device", "peak FLOP/s",
                                       "checks"};
    static const int w[] = {14, 5, 14, 10, 16, 14, 14, 12};
    int any = 0;
    for (size_t i = 0; i < t->n; i++) {
        const metric_t *m = &t->m[i];
        if (strcmp(m->metric, "launches_ok")) continue;
        int coll = 0; /* collectives have their own columns (summary_coll.c) */
        for (size_t j = 0; j < t->n && !coll; j++)
            coll = !strcmp(t->m[j].bench, m->bench) && !strcmp(t->m[j].metric, "busbw_max_GBps");
        if (coll && !mtable_find(t, m->bench, m->scale, "step_time_s")) continue;
        if (!any++) {
            summary_row(f, md, head, w, 8);
            if (md) fprintf(f, "|---|---:|---:|---:|---:|---:|---:|---|\n");
        }
        char sc[16], thr[32], eff[32], sus[32], dev[32], pk[32], chk[48];
        snprintf(sc, sizeof sc, "%d", m->scale);
        val(t, m->bench, m->scale, "throughput_samples_per_s", "", thr, sizeof thr);
        val(t, m->bench, m->scale, "efficiency", NULL, eff, sizeof eff);
        val(t, m->bench, m->scale, "sustained_flops", "FLOP/s", sus, sizeof sus);
        val(t, m->bench, m->scale, "sustained_flops_per_device", "FLOP/s", dev, sizeof dev);
        val(t, m->bench, m->scale, "peak_flops", "FLOP/s", pk, sizeof pk);
        if (!mtable_find(t, m->bench, m->scale, "step_time_s") && m->value == 0)
            snprintf(sus, sizeof sus, "no launch ok");
        summary_checks_cell(ck, m->bench, m->scale, chk, sizeof chk);
        if (m->value < m->n) { /* some launches failed here */
            size_t l = strlen(chk);
            snprintf(chk + l, sizeof chk - l, " (%.0f/%.0f ok)", m->value, m->n);
        }
        const char *cells[] = {m->bench, sc, thr, eff, sus, dev, pk, chk};
        summary_row(f, md, cells, w, 8);
    }
    any += summary_coll_print(f, t, ck, md);
    if (!any) fprintf(f, "%s(no benchmark results)\n", md ? "\n" : "");
    int other = 0; /* checks not tied to a scale of this run (exact counts via --describe) */
    for (size_t j = 0; j < ck->n; j++) other += !ck->c[j].bench && !check_described(&ck->c[j]);
    fprintf(f, "%s%s%s\n", md ? "\n" : "", checks_line(ck),
            other ? " (including those not tied to a row above)" : "");
}
