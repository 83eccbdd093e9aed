#include "benchmarks/train/runcfg.h"

#include <stdio.h>
#include <string.h>

#include "benchmarks/common/check.h"

static const char *const precisions[] = {"fp32", "tf32", "bf16", "fp16", NULL};
static const char *const kernel_sets[] = {"reference", "fast", NULL};
static const char *const backends[] = {"cpu", "cuda", NULL};
static const char *const orchestrations[] = {"coordinator", "bitvector", NULL};

static int grouping_valid(const char *text)
{
    gsync_cfg g;
    return gsync_parse_grouping(&g, text) == 0;
}

#define F(x) offsetof(runcfg_t, x)
#define SZ(x) sizeof(((runcfg_t *)0)->x)
#define INT(name, lo, hi, text) \
    {.key = #name, .type = KT_INT, .off = F(name), .min = lo, .max = hi, .help = text}
#define DBL(name, lo, hi, text) \
    {.key = #name, .type = KT_DOUBLE, .off = F(name), .min = lo, .max = hi, .help = text}
#define CHOICE(name, list, text) \
    {.key = #name, .type = KT_CHOICE, .off = F(name), .aux = SZ(name), .choices = list, .help = text}
#define BIG 1e9
const kt_key runcfg_keys[] = {
    INT(batch, 1, 1 << 20, "samples per rank per step"),
    INT(steps, 1, 1 << 24, "timed training steps"),
    INT(warmup, 0, 1 << 24, "warm-up steps (run, not timed)"),
    {.key = "seed", .type = KT_U64, .off = F(seed), .help = "seed of weights and synthetic data"},
    CHOICE(precision, precisions, "fp32 | tf32 | bf16 | fp16"),
    CHOICE(kernels, kernel_sets, "reference | fast"),
    CHOICE(backend, backends, "cpu | cuda"),
    DBL(lr, 0, 10, "Adam learning rate"),
    DBL(beta1, 0, 0.999999, "Adam beta1"),
    DBL(beta2, 0, 0.999999999, "Adam beta2"),
    DBL(eps, 1e-30, 1, "Adam epsilon"),
    INT(threads, 0, 4096, "threads per rank (0: cores / ranks on the node)"),
    {.key = "kernel_timing", .type = KT_BOOL, .off = F(kernel_timing),
     .help = "time every kernel (false: step time only)"},
    CHOICE(orchestration, orchestrations,
           "gradient negotiation: coordinator | bitvector (response cache)"),
    INT(cache_capacity, 0, BIG, "response cache, tensors (0: no cache, i.e. coordinator)"),
    {.key = "grouping", .type = KT_WORD, .off = F(grouping), .aux = SZ(grouping),
     .valid = grouping_valid, .what = "none, layer or a number of groups",
     .help = "none | layer (graph-aware) | N groups of similar bytes"},
    INT(fusion_bytes, 4, 1 << 30, "largest fused reduction, bytes"),
    DBL(cycle_ms, 0, 1000, "gradient-engine cycle time, ms"),
    DBL(comm_timeout, 0.1, 1e6, "seconds without progress before a stalled reduction fails"),
    {.key = NULL},
};

void runcfg_default(runcfg_t *r)
{
    memset(r, 0, sizeof *r);
    r->batch = 1;
    r->steps = 10;
    r->warmup = 2;
    r->seed = 42;
    r->lr = 1e-3;
    r->beta1 = 0.9;
    r->beta2 = 0.999;
    r->eps = 1e-8;
    r->kernel_timing = 1;
    snprintf(r->precision, sizeof r->precision, "fp32");
    snprintf(r->kernels, sizeof r->kernels, "fast");
    snprintf(r->backend, sizeof r->backend, "cpu");
    /* the paper's engine: bit vector, graph-aware groups, 8 MiB fusion */
    snprintf(r->orchestration, sizeof r->orchestration, "bitvector");
    r->cache_capacity = 1024;
    snprintf(r->grouping, sizeof r->grouping, "layer");
    r->fusion_bytes = 8 << 20;
    r->cycle_ms = 1.0;
    r->comm_timeout = 60.0;
}

int runcfg_validate(const runcfg_t *r, char *err, size_t errlen)
{
    if (r->batch < 1) return snprintf(err, errlen, "batch must be at least 1, not %d", r->batch), -1;
    if (r->steps < 1) return snprintf(err, errlen, "steps must be at least 1"), -1;
    if (strcmp(r->backend, "cpu") == 0 && strcmp(r->precision, "fp32") != 0)
        return snprintf(err, errlen,
                        "precision %s is for the cuda backend; the cpu backend runs fp32",
                        r->precision),
               -1;
    return 0;
}

void runcfg_gsync(const runcfg_t *r, gsync_cfg *g)
{
    gsync_cfg_default(g);
    g->orchestration = strcmp(r->orchestration, "coordinator") ? GS_BITVECTOR : GS_COORDINATOR;
    g->cache_capacity = r->cache_capacity;
    CHECK(gsync_parse_grouping(g, r->grouping) == 0, "grouping '%s'", r->grouping);
    g->fusion_bytes = r->fusion_bytes;
    g->cycle_ms = r->cycle_ms;
    g->timeout_s = r->comm_timeout;
}
