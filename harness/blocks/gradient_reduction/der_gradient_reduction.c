/* Block gradient_reduction, its derived half (blk_gradient_reduction.h): the
 * modes side by side, per entry and scale the engine's measured numbers
 * beside the scaling model's prediction (ablation_t, built by
 * harness/model/ablation.c), and their rows exposed_comm_s, negotiation_s
 * and model_efficiency (docs/ablation.md). */
#define _GNU_SOURCE
#include <math.h>

#include "harness/blocks/derive.h"
#include "harness/blocks/gradient_reduction/blk_gradient_reduction.h"
#include "harness/model/ablation.h"
#include "harness/workloads/workload.h"

void *gradient_reduction_derive(const blkctx_t *c)
{
    ablation_t *ab = ar_alloc(c->a, sizeof *ab);
    ablation_build(c->a, c->s, c->o, c->n, c->an, ab);
    return ab;
}

void gradient_reduction_rows(const blkctx_t *c, const void *self, size_t entry, mtable_t *t)
{
    (void)entry;
    const ablation_t *ab = self;
    if (!ab->active) return;
    for (size_t i = 0; i < ab->n; i++) {
        const abrow_t *r = &ab->r[i];
        kv_t *p = blocks_param(c->a, "mode", r->mode_name);
        const char *names[3] = {"exposed_comm_s", "negotiation_s", "model_efficiency"};
        double v[3] = {r->exposed_s, r->negotiation_s, r->have_pred ? r->pred.efficiency : NAN};
        for (int k = 0; k < 3; k++) {
            if (!isfinite(v[k])) continue;
            const metric_info_t *mi = metric_info(names[k]);
            const workload_t *w = workload_of_kind(r->kind);
            metric_t m = {.bench = r->bench, .program = w ? w->program : r->kind, .kind = r->kind,
                          .scale = r->scale, .metric = names[k], .value = v[k], .lo = NAN,
                          .hi = NAN, .n = NAN, .unit = mi ? mi->unit : "",
                          .better = mi ? mi->better : 0, .params = p, .nparams = 1};
            mtable_add(c->a, t, &m);
        }
    }
}
