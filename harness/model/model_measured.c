#include "harness/model/model_measured.h"

#include <math.h>
#include <string.h>

#include "benchmarks/common/stats.h"
#include "harness/blocks/orchestration/blk_orchestration.h"
#include "harness/blocks/training/blk_training.h"

int model_straggler_from_run(arena_t *a, const outcome_t *o, size_t n, const char *bench,
                             straggler_t *out, const char **src)
{
    straggler_t *f = ar_alloc(a, (n + 1) * sizeof *f);
    size_t k = 0, recs = 0, ranks = 0;
    for (size_t i = 0; i < n; i++) {
        const record_t *r = o[i].rec;
        const trinfo_t *tr = r ? rec_training(r) : NULL;
        if (o[i].status != LS_OK || !tr || !tr->rank_compute_s || tr->rank_cols < 2) continue;
        if (bench && strcmp(o[i].bench, bench)) continue;
        if (straggler_fit(tr->rank_compute_s, tr->rank_steps, tr->rank_cols, &f[k]) == 0) {
            k++, recs++;
            if (tr->rank_cols > ranks) ranks = tr->rank_cols;
        }
    }
    if (!k || straggler_pool(f, k, out)) {
        *src = "no per-rank compute times at 2 ranks or more in the run";
        return -1;
    }
    *src = ar_printf(a,
                     "per-rank forward+backward times of %zu record%s%s%s (%zu steps, up to %zu "
                     "ranks): assumed normal within a step, pooled sigma/mean %.4g; check on the "
                     "samples: mean (max - mean over ranks) %.4g s measured, %.4g s by the normal",
                     recs, recs == 1 ? "" : "s", bench ? " of " : "", bench ? bench : "",
                     out->steps, ranks, out->cv, out->excess_measured_s, out->excess_normal_s);
    return 0;
}

int model_request_cost_from_run(arena_t *a, const outcome_t *o, size_t n, double *per_request_s,
                                const char **src)
{
    long long pmax = 0;
    for (size_t i = 0; i < n; i++)
        if (o[i].status == LS_OK && o[i].rec && rec_orch(o[i].rec)->no)
            for (size_t j = 0; j < rec_orch(o[i].rec)->no; j++)
                if (rec_orch(o[i].rec)->o[j].ranks > pmax) pmax = rec_orch(o[i].rec)->o[j].ranks;
    double v[256];
    size_t m = 0;
    for (size_t i = 0; i < n && m < 256; i++) {
        const record_t *r = o[i].rec;
        if (o[i].status != LS_OK || !r || !rec_orch(r)->no) continue;
        for (size_t j = 0; j < rec_orch(r)->no && m < 256; j++) {
            const orow_t *c = &rec_orch(r)->o[j];
            if (c->ranks != pmax || strcmp(c->mode, "coordinator") || !(c->requests > 0)) continue;
            for (size_t q = 0; q < rec_orch(r)->no; q++) {
                const orow_t *b = &rec_orch(r)->o[q];
                if (q == j || b->ranks != pmax || !strcmp(b->mode, "coordinator") ||
                    !b->grouping || !c->grouping || strcmp(b->grouping, c->grouping))
                    continue;
                double d = (c->median_s - b->median_s) / c->requests;
                if (isfinite(d)) v[m++] = d > 0 ? d : 0;
                break;
            }
        }
    }
    if (!m || pmax < 2) {
        *src = "no orchestration rows of both modes at 2 ranks or more in the run";
        return -1;
    }
    *per_request_s = stats_median(v, m);
    *src = ar_printf(a, "the run's orchestration benchmark at %lld ranks: (coordinator step - bit "
                     "vector step) / requests per step, median of %zu row%s: %.3g s per request",
                     pmax, m, m == 1 ? "" : "s", *per_request_s);
    return 0;
}
