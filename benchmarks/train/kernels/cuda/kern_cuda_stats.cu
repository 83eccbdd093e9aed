/* kern_cuda_stats.cu: what the CUDA kernel set tells the record (kern_cuda.h):
 * its statistics and the convolution algorithms it chose; and the table of
 * the module's functions that programs open (kcu_load). */
#include "benchmarks/train/kernels/cuda/kern_cuda_impl.h"

/* ---- statistics --------------------------------------------------------------------------- */

extern "C" void kcu_get_stats(void *ctx, kcu_stats *s)
{
    Ctx *C = ctx_of(ctx);
    memset(s, 0, sizeof *s);
    s->precision = prec_name(C->prec);
    s->algo = C->find ? "find" : "heuristic";
    s->workspace_bytes = C->ws_need;
    s->workspace_limit = C->ws_cap;
    s->conv_problems = (int)C->convs.size();
    s->tune_s = C->tune_s;
    s->alloc_peak_bytes = C->alloc_peak;
    s->used_peak_bytes = C->used_peak;
    s->total_bytes = C->total_mem;
    s->tf32_disabled = C->tf32_disabled;
    s->loss_scaling = C->prec == P_FP16;
    s->scale_init = C->scale_init;
    s->scale_final = C->scale;
    s->growth_factor = C->growth;
    s->backoff_factor = C->backoff;
    s->growth_interval = C->growth_interval;
    s->checked_steps = C->checked;
    s->skipped_steps = C->skipped;
}

extern "C" int kcu_conv_choice_get(void *ctx, int i, kcu_conv_choice *c)
{
    Ctx *C = ctx_of(ctx);
    if (i < 0 || i >= (int)C->convs.size()) return -1;
    const Conv *cv = C->convs[(size_t)i];
    memset(c, 0, sizeof *c);
    snprintf(c->op, sizeof c->op, "%s", op_name(cv->g.op));
    c->n = cv->g.n;
    c->xc = cv->g.xc, c->xh = cv->g.xh, c->xw = cv->g.xw;
    c->yc = cv->g.yc, c->yh = cv->g.yh, c->yw = cv->g.yw;
    c->k = cv->g.k;
    c->stride = cv->g.stride;
    c->algo = cv->algo;
    snprintf(c->math, sizeof c->math, "%s", math_name(cv->math));
    c->ws_bytes = cv->ws;
    c->time_ms = cv->time_ms;
    return 0;
}

/* ---- the module's one exported table (kern_cuda.h: kcu_api, kcu_load) ----------------- */

extern "C" {
extern const kcu_api exadl_kcu_api;
__attribute__((visibility("default"))) const kcu_api exadl_kcu_api = {
    kcu_device_count, kcu_device_describe, kcu_create,         kcu_ops,
    kcu_release,      kcu_gemm_peak,       kcu_nccl_unique_id, kcu_nccl_init,
    kcu_gs_prepare,   kcu_gs_begin,        kcu_gs_mark,        kcu_gs_thread_init,
    kcu_gs_allreduce, kcu_gs_wait,         kcu_gs_settle,      kcu_get_stats,
    kcu_conv_choice_get,
};
}
