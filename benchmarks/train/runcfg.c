#include "benchmarks/train/runcfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"

static const char *const precisions[] = {"fp32", "tf32", "bf16", "fp16", NULL};
static const char *const kernel_sets[] = {"reference", "fast", NULL};
static const char *const backends[] = {"cpu", "cuda", NULL};
static const char *const orchestrations[] = {"coordinator", "bitvector", NULL};
static const char *const optimizers[] = {"adam", "lion", "sgd", NULL};
static const char *const exchanges[] = {"grad", "1bit", "pbit", NULL};
static const char *const momentum_syncs[] = {"none", "every", "selective", NULL};
static const char *const engines[] = {"auto", "thread", "inline", NULL};

static int grouping_valid(const char *text)
{
    gsync_cfg g;
    return gsync_parse_grouping(&g, text) == 0;
}

/* "none" or STEP:FACTOR[,STEP:FACTOR]...: at most 8 boundaries, steps
 * from 1 increasing, factors in (0, 10]; *n gets the count */
static int decay_parse(const char *text, int64_t step[8], double factor[8], int *n)
{
    *n = 0;
    if (!strcmp(text, "none")) return 0;
    const char *p = text;
    while (*p) {
        char *end;
        long long st = strtoll(p, &end, 10);
        if (end == p || *end != ':' || st < 1 || st > (1LL << 40) || *n == 8) return -1;
        if (*n > 0 && st <= step[*n - 1]) return -1;
        p = end + 1;
        double f = strtod(p, &end);
        if (end == p || !(f > 0 && f <= 10)) return -1;
        step[*n] = st, factor[*n] = f, ++*n;
        p = end;
        if (*p == ',') p++;
        else if (*p) return -1;
    }
    return *n > 0 ? 0 : -1;
}

static int decay_valid(const char *text)
{
    int64_t s[8];
    double f[8];
    int n;
    return decay_parse(text, s, f, &n) == 0;
}

double runcfg_lr_at(const runcfg_t *r, int64_t step)
{
    int64_t i = step - 1;
    if (i < r->lr_warmup_steps)
        return r->lr_warmup_start + (double)i * (r->lr - r->lr_warmup_start) / r->lr_warmup_steps;
    int64_t s[8];
    double f[8], factor = 1;
    int n;
    if (decay_parse(r->lr_decay, s, f, &n)) return r->lr;
    for (int k = 0; k < n; k++)
        if (step >= s[k]) factor = f[k];
    return r->lr * factor;
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
    CHOICE(precision, precisions,
           "fp32 | tf32 | bf16 | fp16 (cpu: fp32, or bf16 on AVX512-BF16/AMX with the fast kernels)"),
    CHOICE(kernels, kernel_sets, "reference | fast"),
    CHOICE(backend, backends, "cpu | cuda"),
    CHOICE(optimizer, optimizers, "adam | lion (docs/lioncub.md) | sgd (with momentum; cpu backend)"),
    DBL(lr, 0, 10, "learning rate (Adam, Lion, SGD; the peak of a schedule)"),
    DBL(momentum, 0, 0.999999, "SGD's momentum"),
    INT(lr_warmup_steps, 0, 1 << 30, "linear learning-rate warm-up over the first N steps (0: none)"),
    DBL(lr_warmup_start, 0, 10, "learning rate at the warm-up's first step"),
    {.key = "lr_decay", .type = KT_WORD, .off = F(lr_decay), .aux = SZ(lr_decay),
     .valid = decay_valid, .what = "none or STEP:FACTOR[,STEP:FACTOR]... (increasing steps, at most 8)",
     .help = "learning rate x FACTOR from 1-based step STEP on (none: constant after the warm-up)"},
    DBL(beta1, 0, 0.999999, "beta1 (Adam; Lion: the update's interpolation)"),
    DBL(beta2, 0, 0.999999999, "beta2 (Adam; Lion: the momentum's decay, 0.99 in its paper)"),
    DBL(eps, 1e-30, 1, "Adam epsilon"),
    DBL(weight_decay, 0, 10, "Lion's decoupled weight decay"),
    CHOICE(exchange, exchanges,
           "data parallelism with Lion: grad (allreduce of gradients) | 1bit (majority vote "
           "of signs) | pbit (sum of signs in ceil(log2(ranks+1)) bits)"),
    CHOICE(momentum_sync, momentum_syncs,
           "1bit, pbit: none | every (all momenta every K steps) | selective (layers whose "
           "signs disagree, checked every K steps)"),
    INT(momentum_sync_every, 1, 1 << 24, "K of --momentum-sync"),
    DBL(momentum_sync_threshold, 0, 100,
        "selective: sync a layer whose weights' agreed update went against the local sign "
        "more often than this times the whole network's, over the last K steps"),
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
    CHOICE(engine, engines,
           "gradient engine: auto (inline on a cpu rank without a core to spare for the engine's "
           "thread, else thread) | thread (overlaps backward) | inline (after backward, "
           "blocking waits; docs/gsync.md)"),
    INT(trainers, 1, 1 << 20, "trainers: the ranks split into K data-parallel trainers (docs/ensembles.md)"),
    INT(tournament_every, 0, 1 << 24, "LTFB tournament every E steps (0: none; needs trainers >= 2)"),
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
    snprintf(r->optimizer, sizeof r->optimizer, "adam");
    r->momentum = 0.9;
    snprintf(r->lr_decay, sizeof r->lr_decay, "none");
    snprintf(r->exchange, sizeof r->exchange, "grad");
    snprintf(r->momentum_sync, sizeof r->momentum_sync, "none");
    r->momentum_sync_every = 10;
    r->momentum_sync_threshold = 1.0;
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
    snprintf(r->engine, sizeof r->engine, "auto");
    r->trainers = 1;
}

int runcfg_validate(const runcfg_t *r, char *err, size_t errlen)
{
    if (r->batch < 1) return snprintf(err, errlen, "batch must be at least 1, not %d", r->batch), -1;
    if (r->steps < 1) return snprintf(err, errlen, "steps must be at least 1"), -1;
    int cpu = strcmp(r->backend, "cpu") == 0, bf16 = strcmp(r->precision, "bf16") == 0;
    if (cpu && strcmp(r->precision, "fp32") != 0 && !bf16)
        return snprintf(err, errlen,
                        "precision %s is for the cuda backend; the cpu backend runs fp32 or bf16",
                        r->precision),
               -1;
    /* bf16 on the cpu rides on oneDNN's bf16 primitives (backend.c checks
     * the CPU); the reference loops are the fp32 yardstick */
    if (cpu && bf16 && strcmp(r->kernels, "fast") != 0)
        return snprintf(err, errlen,
                        "precision bf16 on the cpu backend runs on the fast kernels; the %s "
                        "kernels are fp32 only",
                        r->kernels),
               -1;
    int lion = !strcmp(r->optimizer, "lion"), compressed = strcmp(r->exchange, "grad") != 0;
    if (compressed && !lion)
        return snprintf(err, errlen,
                        "exchange %s needs optimizer lion: only Lion's update is a sign "
                        "(Adam exchanges gradients: exchange grad)",
                        r->exchange),
               -1;
    if (compressed && strcmp(r->backend, "cpu"))
        return snprintf(err, errlen,
                        "exchange %s runs on the cpu backend; the %s backend has exchange grad "
                        "(docs/lioncub.md)",
                        r->exchange, r->backend),
               -1;
    if (!compressed && strcmp(r->momentum_sync, "none"))
        return snprintf(err, errlen,
                        "momentum_sync %s needs exchange 1bit or pbit: with exchange grad every "
                        "rank's momentum is already the same",
                        r->momentum_sync),
               -1;
    if (!strcmp(r->optimizer, "sgd") && strcmp(r->backend, "cpu"))
        return snprintf(err, errlen,
                        "optimizer sgd runs on the cpu backend (no %s kernel for it yet)",
                        r->backend),
               -1;
    if (!decay_valid(r->lr_decay))
        return snprintf(err, errlen, "lr_decay '%s' is not none or STEP:FACTOR,...", r->lr_decay),
               -1;
    if (r->trainers > 1 && strcmp(r->backend, "cpu"))
        return snprintf(err, errlen,
                        "trainers %d runs on the cpu backend: the %s backend's NCCL communicator "
                        "spans the whole job, not one trainer (docs/ensembles.md)",
                        r->trainers, r->backend),
               -1;
    if (r->tournament_every > 0 && r->trainers < 2)
        return snprintf(err, errlen,
                        "tournament_every %d needs trainers 2 or more: a tournament pairs trainers",
                        r->tournament_every),
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
