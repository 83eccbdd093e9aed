/* cmd_history_rows: the rows `exadl history` tabulates, one per run
 * (cmd_history_rows.h; the command itself is cmd_history.c). */
#include "harness/cli/cmd_history_rows.h"

#include <string.h>

static int selected(const metric_t *m, const char *metric, const char *bench, int scale, const hsel_t *s)
{
    if (strcmp(m->metric, metric) || (bench && strcmp(m->bench, bench))) return 0;
    if (scale > 0 && m->scale != scale) return 0;
    const char *mo = metric_param(m, "op"), *mb = metric_param(m, "bytes");
    const char *ip = metric_param(m, "inplace"), *mr = metric_param(m, "redop");
    if (s->op && (!mo || strcmp(mo, s->op))) return 0;
    if (s->bytes && (!mb || strcmp(mb, s->bytes))) return 0;
    if (s->redop && (!mr || strcmp(mr, s->redop))) return 0;
    if (ip && (strcmp(ip, "true") == 0) != s->inplace) return 0;
    return 1;
}

const metric_t *hrows_pick(const mtable_t *t, const char *metric, const char *bench, int scale,
                           const hsel_t *s)
{
    const metric_t *best = NULL;
    for (size_t i = 0; i < t->n; i++) {
        const metric_t *m = &t->m[i];
        if (!selected(m, metric, bench, scale, s)) continue;
        if (!best || (!strcmp(m->bench, best->bench) && m->scale > best->scale)) best = m;
    }
    return best;
}

/* rows of one run that the selection leaves at one scale: more than one (sum,
 * min and max of a size) is bad input, never one picked silently */
size_t hrows_matches(const mtable_t *t, const char *metric, const char *bench, int scale,
                     const hsel_t *s, sb_t *which)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++) {
        const metric_t *m = &t->m[i];
        if (!selected(m, metric, bench, scale, s)) continue;
        const char *mo = metric_param(m, "op"), *mb = metric_param(m, "bytes");
        const char *mr = metric_param(m, "redop");
        if (n < 6)
            sb_printf(which, "%s%s%s%s%s%s%s", n ? "; " : "", mo ? "op " : "", mo ? mo : "",
                      mr ? " redop " : "", mr ? mr : "", mb ? " bytes " : "", mb ? mb : "");
        n++;
    }
    return n;
}

/* the largest scale below `below` at which some run has the metric; 0: none */
int hrows_largest_below(const results_t *r, size_t n, const char *metric, const char *bench,
                        int below)
{
    int best = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < r[i].t.n; j++) {
            const metric_t *m = &r[i].t.m[j];
            if (strcmp(m->metric, metric) || (bench && strcmp(m->bench, bench))) continue;
            if (m->scale < below && m->scale > best) best = m->scale;
        }
    return best;
}

/* every run that has the metric at all has it at this scale */
int hrows_all_have(const results_t *r, size_t n, const char *metric, const char *bench, int scale,
                   const hsel_t *sel)
{
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        if (!hrows_pick(&r[i].t, metric, bench, 0, sel)) continue;
        if (!hrows_pick(&r[i].t, metric, bench, scale, sel)) return 0;
        any = 1;
    }
    return any;
}
