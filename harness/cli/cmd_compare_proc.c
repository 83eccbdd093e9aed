/* cmd_compare_proc: procurement mode of `exadl compare` (cmd_compare_proc.h). */
#define _GNU_SOURCE
#include "harness/cli/cmd_compare_proc.h"

#include <math.h>
#include <stdio.h>

#include "harness/analysis/compare.h"
#include "harness/analysis/ratio.h"
#include "harness/cli/text_table.h"
#include "harness/report/results_pool.h"
#include "harness/util/esc.h"

int cproc_run(arena_t *a, const copts_t *o, results_t *r, rdiffs_t *d)
{
    printf("B / A: %s / %s\n\n", esc_term(a, r[1].machine), esc_term(a, r[0].machine));
    table_t tab = {.ncol = 6};
    table_row(a, &tab, (const char *[]){"metric", "benchmark", "A [95% CI]", "B [95% CI]",
                                        "B/A [95% CI]", "winner"});
    double *sp = ar_alloc(a, 3 * (r[1].t.n + 1) * sizeof *sp), *splo = sp + r[1].t.n + 1,
           *sphi = splo + r[1].t.n + 1;
    size_t ns = 0;
    int cmp = 0, nref = 0, tag_config = 0;
    pinter_t ia = {0}, ib = {0}; /* the launches behind the headline rows */
    for (size_t i = 0; i < r[1].t.n; i++) {
        const metric_t *mb = &r[1].t.m[i], *ma = NULL;
        if (!compare_wanted(mb, o->nonly ? o->only : NULL, o->nonly, o->all)) continue;
        for (size_t j = 0; j < r[0].t.n && !ma; j++)
            if (compare_same_row(&r[0].t.m[j], mb)) ma = &r[0].t.m[j];
        char va[96] = "-", vb[96], rr[64] = "-";
        const char *win;
        compare_fmt_value(vb, sizeof vb, mb);
        if (!ma) {
            win = "only in B";
        } else if (copts_refused(o, d, 1, mb)) {
            compare_fmt_value(va, sizeof va, ma);
            win = "refused: config differs";
            nref++;
        } else {
            compare_fmt_value(va, sizeof va, ma);
            ratio_t q;
            ratio_of(ma, mb, &q);
            if (isfinite(q.lo)) snprintf(rr, sizeof rr, "%.3gx [%.3g, %.3g]", q.r, q.lo, q.hi);
            else if (isfinite(q.r)) snprintf(rr, sizeof rr, "%.3gx (no CI)", q.r);
            win = q.winner == 2 ? ar_printf(a, "B (%s)", esc_term(a, r[1].machine))
                  : q.winner == 1 ? ar_printf(a, "A (%s)", esc_term(a, r[0].machine))
                  : q.winner == 0 ? (ma->better ? "tie (CI holds 1)" : "-")
                                  : "unknown (no CI)";
            pinter_t pa, pb;
            results_interference(&r[0], ma->bench, ma->scale, &pa);
            results_interference(&r[1], mb->bench, mb->scale, &pb);
            if (pa.busy) win = ar_printf(a, "%s [A busy %zu/%zu]", win, pa.busy, pa.launches);
            if (pb.busy) win = ar_printf(a, "%s [B busy %zu/%zu]", win, pb.busy, pb.launches);
            int mk = copts_marked(d, 1, mb);
            if (mk) win = ar_printf(a, "%s (config differs)", win);
            if (ratio_headline(mb->metric) && isfinite(q.r) && q.r > 0) {
                sp[ns] = ratio_speed(mb, q.r);
                splo[ns] = ratio_speed(mb, mb->better < 0 ? q.hi : q.lo);
                sphi[ns++] = ratio_speed(mb, mb->better < 0 ? q.lo : q.hi);
                tag_config |= mk;
                ia.busy += pa.busy, ia.launches += pa.launches;
                ib.busy += pb.busy, ib.launches += pb.launches;
            }
            cmp++;
        }
        table_row(a, &tab, (const char *[]){mb->metric, metric_label(a, mb), va, vb, rr, win});
    }
    table_print(&tab);
    ratio_summary_t s;
    ratio_summarize(sp, splo, sphi, ns, &s);
    printf("\nratio CI: delta method on the log scale (each side: the larger of its median's 95%% "
           "CI and the spread across launches)\n");
    if (s.n) {
        const char *ci = isfinite(s.lo) ? ar_printf(a, " [95%% CI %.3g, %.3g]%s", s.lo, s.hi,
                                                    s.lo <= 1 && s.hi >= 1 ? ": tie (CI holds 1)" : "")
                                         : " (no CI: a headline row has none)";
        sb_t tags = {0};
        if (ia.busy) sb_printf(&tags, " [A busy %zu/%zu]", ia.busy, ia.launches);
        if (ib.busy) sb_printf(&tags, " [B busy %zu/%zu]", ib.busy, ib.launches);
        if (tag_config) sb_puts(&tags, " (config differs)");
        printf("overall: B (%s) is %.3gx A (%s) in speed%s%s: geometric mean of %zu headline "
               "ratio(s) (throughput, busbw_max; larger: B faster)%s; its CI: the rows' half-widths "
               "on the log scale averaged (an upper bound whatever the rows' correlation)\n",
               r[1].machine, s.gmean, r[0].machine, ci, sb_str(&tags), s.n,
               s.n > 1 ? ar_printf(a, ", geometric sd %.3g, range %.3gx to %.3gx", s.gsd, s.min, s.max)
                       : " (one ratio: no spread)");
        sb_free(&tags);
    } else {
        printf("overall: no headline metric (throughput, busbw_max) in common\n");
    }
    if (nref)
        printf("%d row(s) refused: their workload config differs (listed above); "
               "--allow-config-diff compares them anyway, marked\n", nref);
    return cmp ? 0 : 2;
}
