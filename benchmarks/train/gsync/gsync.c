#include "benchmarks/train/gsync/gsync.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/train/gsync/gsync_impl.h"

void gsync_cfg_default(gsync_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->orchestration = GS_BITVECTOR;
    c->cache_capacity = 1024; /* Horovod's default */
    c->grouping = GS_GROUP_LAYER;
    c->fusion_bytes = 8 << 20; /* the 2019 production runs */
    c->cycle_ms = 1.0;
    c->timeout_s = 60.0;
    c->poll_us = 20;
}

int gsync_parse_grouping(gsync_cfg *c, const char *text)
{
    if (!strcmp(text, "none")) {
        c->grouping = GS_GROUP_NONE;
        return 0;
    }
    if (!strcmp(text, "layer")) {
        c->grouping = GS_GROUP_LAYER;
        return 0;
    }
    char *end;
    long n = strtol(text, &end, 10);
    if (end == text || *end || n < 1 || n > 1000000) return -1;
    c->grouping = GS_GROUP_COUNT;
    c->groups = (int)n;
    return 0;
}

/* Groups of contiguous tensors (in backward order) of about equal bytes, none
 * empty: a group closes once the bytes so far reach its share of the total,
 * or when every tensor left is needed to give each later group one. */
static void group_by_bytes(gsync_t *g, int want)
{
    int64_t total = 0, acc = 0;
    for (int t = 0; t < g->T; t++) total += g->tensors[t].count;
    int G = want < g->T ? want : g->T, cur = 0, in_cur = 0;
    for (int t = 0; t < g->T; t++) {
        int groups_left = G - 1 - cur, tensors_left = g->T - t;
        if (in_cur > 0 && cur < G - 1 &&
            ((double)acc >= (double)total * (cur + 1) / G || tensors_left == groups_left)) {
            cur++;
            in_cur = 0;
        }
        g->group_of[t] = cur;
        in_cur++;
        acc += g->tensors[t].count;
    }
    g->G = cur + 1;
}

static void make_groups(gsync_t *g)
{
    g->group_of = XCALLOC((size_t)g->T, sizeof *g->group_of, "gradient groups");
    if (g->cfg.grouping == GS_GROUP_COUNT) {
        group_by_bytes(g, g->cfg.groups);
    } else if (g->cfg.grouping == GS_GROUP_LAYER) {
        /* layers appear in backward order: number groups by first appearance */
        g->G = 0;
        for (int t = 0; t < g->T; t++) {
            if (t == 0 || g->tensors[t].layer != g->tensors[t - 1].layer) g->G++;
            g->group_of[t] = g->G - 1;
        }
    } else {
        g->G = g->T;
        for (int t = 0; t < g->T; t++) g->group_of[t] = t;
    }
    g->labels = XCALLOC((size_t)g->G, sizeof *g->labels, "group labels");
    g->group_bytes = XCALLOC((size_t)g->G, sizeof *g->group_bytes, "group sizes");
    for (int t = 0; t < g->T; t++) {
        int k = g->group_of[t];
        g->group_bytes[k] += g->tensors[t].count * (int64_t)sizeof(float);
        if (g->labels[k][0]) continue;
        if (g->cfg.grouping == GS_GROUP_COUNT)
            snprintf(g->labels[k], sizeof g->labels[k], "g%d", k);
        else if (g->cfg.grouping == GS_GROUP_LAYER)
            snprintf(g->labels[k], sizeof g->labels[k], "%.*s", (int)strlen(g->tensors[t].name) - 2,
                     g->tensors[t].name);
        else
            snprintf(g->labels[k], sizeof g->labels[k], "%s", g->tensors[t].name);
    }
}

gsync_t *gsync_create(const gsync_cfg *cfg, comm_t *comm, gsync_transport tr,
                      const gsync_tensor *tensors, int ntensors, int nlayers, float *grad,
                      char *err, size_t errlen)
{
    if (ntensors < 1 || cfg->fusion_bytes < (int64_t)sizeof(float) || cfg->cycle_ms < 0) {
        snprintf(err, errlen, "gradient reduction: %d tensors, fusion %lld bytes, cycle %g ms",
                 ntensors, (long long)cfg->fusion_bytes, cfg->cycle_ms);
        return NULL;
    }
    gsync_t *g = XCALLOC(1, sizeof *g, "gradient reduction");
    g->cfg = *cfg;
    g->comm = comm;
    g->tr = tr;
    g->builtin_mpi = tr.allreduce == NULL;
    g->grad = grad;
    g->T = ntensors;
    g->nlayers = nlayers;
    g->tensors = XMALLOC((size_t)ntensors * sizeof *g->tensors, "gradient tensors");
    memcpy(g->tensors, tensors, (size_t)ntensors * sizeof *g->tensors);
    g->layer_first = XMALLOC((size_t)nlayers * sizeof(int), "layer tensors");
    g->layer_n = XCALLOC((size_t)nlayers, sizeof(int), "layer tensors");
    for (int t = 0; t < g->T; t++) {
        int l = g->tensors[t].layer;
        CHECK(l >= 0 && l < nlayers, "tensor %s: layer %d out of range", g->tensors[t].name, l);
        if (g->layer_n[l]++ == 0) g->layer_first[l] = t;
        CHECK(g->layer_first[l] + g->layer_n[l] - 1 == t, "tensors of layer %d are not adjacent", l);
    }
    make_groups(g);
    g->tensor_ready = XCALLOC((size_t)g->T, sizeof *g->tensor_ready, "ready times");
    g->gt = XCALLOC((size_t)g->G, sizeof *g->gt, "group times");
    g->pending = XCALLOC((size_t)g->T, sizeof *g->pending, "ready tensors");
    g->group_call0 = XMALLOC((size_t)g->G * sizeof(int), "group reductions");
    g->group_call1 = XMALLOC((size_t)g->G * sizeof(int), "group reductions");
    g->released = XMALLOC((size_t)g->G * sizeof *g->released, "released groups");
    g->local = XMALLOC((size_t)g->T * sizeof *g->local, "ready tensors");
    g->b_bufs = XMALLOC((size_t)g->T * sizeof *g->b_bufs, "fusion list");
    g->b_counts = XMALLOC((size_t)g->T * sizeof *g->b_counts, "fusion list");
    g->b_slots = XMALLOC((size_t)g->T * sizeof *g->b_slots, "fusion list");
    g->step.groups = g->gt;
    g->drop_layer = -1;
    const char *drop = getenv("EXADL_GSYNC_DROP");
    int drop_rank, drop_l;
    if (drop && sscanf(drop, "%d:%d", &drop_rank, &drop_l) == 2 && drop_rank == comm->rank)
        g->drop_layer = drop_l;

    /* the transport's slots serve one rank too (device ready times); a call
     * of several tensors holds at most fusion_bytes (the engine flushes
     * before a tensor would pass it) and at most the whole gradient */
    if (g->tr.prepare) {
        int64_t all = 0;
        for (int t = 0; t < g->T; t++) all += g->tensors[t].count;
        int64_t fused = cfg->fusion_bytes / (int64_t)sizeof(float);
        if (fused > all) fused = all;
        g->tr.prepare(g->tr.ctx, g->T, comm->size > 1 && g->tr.allreduce ? fused : 0);
    }
    g->rcomm = MPI_COMM_NULL;
    if (comm->size > 1) {
        int level;
        CHECK_MPI(MPI_Query_thread(&level));
        if (level < MPI_THREAD_SERIALIZED && !cfg->inline_engine) {
            snprintf(err, errlen,
                     "gradient reduction: the MPI library gives thread level %d; the engine's "
                     "background thread needs MPI_THREAD_SERIALIZED",
                     level);
            gsync_free(g);
            return NULL;
        }
        CHECK_MPI(MPI_Comm_dup(comm->world, &g->rcomm));
        int *ids = XMALLOC((size_t)g->T * sizeof *ids, "group ids");
        memcpy(ids, g->group_of, (size_t)g->T * sizeof *ids);
        orch_config_t oc = {
            .mode = cfg->orchestration == GS_BITVECTOR && cfg->cache_capacity > 0 ? ORCH_CACHE
                                                                                  : ORCH_COORDINATOR,
            .grouping = ORCH_GROUP_LAYER, /* any assignment: our group ids */
            .ntensors = g->T,
            .layer = ids,
            .timeout_s = cfg->timeout_s,
            .comm = comm->world,
            .cache_capacity = cfg->cache_capacity,
            .poll_us = cfg->poll_us,
        };
        g->orch = orch_create(&oc, err, errlen);
        free(ids);
        if (!g->orch) {
            gsync_free(g);
            return NULL;
        }
        CHECK(orch_ngroups(g->orch) == g->G, "orchestration made %d groups, expected %d",
              orch_ngroups(g->orch), g->G);
        if (cfg->inline_engine) {
            g->inline_up = 1;
            return g;
        }
        pthread_mutex_init(&g->mu, NULL);
        pthread_cond_init(&g->cv, NULL);
        CHECK(pthread_create(&g->thread, NULL, gsync_engine_main, g) == 0,
              "cannot start the gradient-reduction thread");
        g->thread_up = 1;
    }
    return g;
}

void gsync_free(gsync_t *g)
{
    if (!g) return;
    if (g->thread_up) {
        pthread_mutex_lock(&g->mu);
        g->quit = 1;
        pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu);
        pthread_join(g->thread, NULL);
        pthread_mutex_destroy(&g->mu);
        pthread_cond_destroy(&g->cv);
    }
    orch_destroy(g->orch);
    if (g->rcomm != MPI_COMM_NULL) MPI_Comm_free(&g->rcomm);
    free(g->tensors);
    free(g->layer_first);
    free(g->layer_n);
    free(g->group_of);
    free(g->labels);
    free(g->group_bytes);
    free(g->tensor_ready);
    free(g->gt);
    free(g->pending);
    free(g->group_call0);
    free(g->group_call1);
    free(g->released);
    free(g->local);
    free(g->b_bufs);
    free(g->b_counts);
    free(g->b_slots);
    free(g->fusion);
    free(g);
}

int gsync_ngroups(const gsync_t *g) { return g->G; }
const char *gsync_group_label(const gsync_t *g, int group) { return g->labels[group]; }
int64_t gsync_group_bytes(const gsync_t *g, int group) { return g->group_bytes[group]; }
int gsync_group_of(const gsync_t *g, int tensor) { return g->group_of[tensor]; }
const gsync_tensor *gsync_tensor_at(const gsync_t *g, int tensor) { return &g->tensors[tensor]; }
int gsync_ntensors(const gsync_t *g) { return g->T; }

void gsync_set_exchange(gsync_t *g, gsync_exchange x) { g->xchg = x; }

/* One rank: no engine; the exchange gets each group in turn, after backward. */
static void exchange_alone(gsync_t *g)
{
    float **bufs = XMALLOC((size_t)g->T * sizeof *bufs, "exchange list");
    int64_t *counts = XMALLOC((size_t)g->T * sizeof *counts, "exchange list");
    int *slots = XMALLOC((size_t)g->T * sizeof *slots, "exchange list");
    for (int k = 0; k < g->G; k++) {
        int n = 0;
        for (int t = 0; t < g->T; t++)
            if (g->group_of[t] == k && !isnan(g->tensor_ready[t])) {
                bufs[n] = g->grad + g->tensors[t].off;
                counts[n] = g->tensors[t].count;
                slots[n++] = t;
            }
        if (n == 0) continue;
        double t0 = timer_now_s();
        g->xchg.run(g->xchg.ctx, bufs, counts, slots, n);
        double t1 = timer_now_s();
        g->gt[k].start_s = t0 - g->t0;
        g->gt[k].end_s = t1 - g->t0;
        g->gt[k].reductions = 1;
        g->step.reduce_s += t1 - t0;
        g->step.reductions++;
    }
    free(bufs);
    free(counts);
    free(slots);
}

void gsync_begin(gsync_t *g)
{
    memset(&g->step, 0, sizeof g->step);
    g->step.groups = g->gt;
    for (int k = 0; k < g->G; k++) g->gt[k] = (gsync_group_time){NAN, NAN, NAN, 0};
    for (int t = 0; t < g->T; t++) g->tensor_ready[t] = NAN;
    for (int k = 0; k < g->G; k++) g->group_call0[k] = g->group_call1[k] = -1;
    g->ncalls = 0;
    g->t0 = timer_now_s();
    if (g->tr.begin) g->tr.begin(g->tr.ctx);
    if (g->inline_up) {
        g->npending = 0;
        gsync_engine_begin(g);
        return;
    }
    if (!g->thread_up) return;
    pthread_mutex_lock(&g->mu);
    g->npending = 0;
    g->done = 0;
    g->active = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

void gsync_ready(void *user, int layer, void *grad, int64_t count)
{
    (void)grad, (void)count;
    gsync_t *g = user;
    if (layer == g->drop_layer) return;
    double now = timer_now_s() - g->t0;
    int first = g->layer_first[layer], n = g->layer_n[layer];
    for (int t = first; t < first + n; t++) {
        g->tensor_ready[t] = now;
        if (g->tr.mark) g->tr.mark(g->tr.ctx, t);
    }
    g->step.backward_end_s = now;
    if (g->inline_up) {
        for (int t = first; t < first + n; t++) g->pending[g->npending++] = t;
        return;
    }
    if (!g->thread_up) return;
    pthread_mutex_lock(&g->mu);
    for (int t = first; t < first + n; t++) g->pending[g->npending++] = t;
    pthread_mutex_unlock(&g->mu);
}

void gsync_progress(gsync_t *g, double until_s)
{
    if (!g->inline_up) {
        gsync_sleep_until(until_s);
        return;
    }
    while (!g->error[0] && !orch_step_done(g->orch) && g->next_cycle <= until_s) {
        gsync_sleep_until(g->next_cycle);
        gsync_engine_cycle(g);
    }
    gsync_sleep_until(until_s);
}

void gsync_finish(gsync_t *g)
{
    double t_wait = timer_now_s();
    if (g->inline_up) {
        for (;;) {
            gsync_sleep_until(g->next_cycle);
            if (gsync_engine_cycle(g)) break;
        }
        gsync_engine_end(g);
    } else if (g->thread_up) {
        pthread_mutex_lock(&g->mu);
        while (!g->done) pthread_cond_wait(&g->cv, &g->mu);
        pthread_mutex_unlock(&g->mu);
    }
    if (g->thread_up || g->inline_up) {
        if (g->error[0]) {
            /* the orchestration speaks of tensor ids: name the first one */
            const char *at = strstr(g->error, "tensor ");
            int id = -1;
            if (at && sscanf(at, "tensor %d", &id) == 1 && id >= 0 && id < g->T)
                check_fail("gradient reduction", __FILE__, __LINE__, "%s (tensor %d is %s)", g->error,
                           id, g->tensors[id].name);
            check_fail("gradient reduction", __FILE__, __LINE__, "%s", g->error);
        }
    }
    int engine = g->thread_up || g->inline_up;
    if (!engine && g->xchg.run) exchange_alone(g);
    g->step.exposed_s = timer_now_s() - t_wait;
    /* group ready times: the last of their tensors, on this rank */
    for (int t = 0; t < g->T; t++) {
        gsync_group_time *x = &g->gt[g->group_of[t]];
        if (isnan(x->ready_s) || g->tensor_ready[t] > x->ready_s) x->ready_s = g->tensor_ready[t];
    }
    if (!engine && !g->xchg.run)
        for (int k = 0; k < g->G; k++) g->gt[k].start_s = g->gt[k].end_s = g->gt[k].ready_s;
}

void gsync_settle(gsync_t *g)
{
    if (!g->tr.settle) return;
    int T = g->T, max_calls = g->ncalls > 0 ? g->ncalls : 1;
    double *ready = XMALLOC((size_t)T * sizeof *ready, "device times");
    double *start = XMALLOC((size_t)max_calls * sizeof *start, "device times");
    double *end = XMALLOC((size_t)max_calls * sizeof *end, "device times");
    int n = g->tr.settle(g->tr.ctx, ready, T, start, end, max_calls);
    CHECK(n == g->ncalls, "the transport reports %d reductions in this step, the engine made %d", n,
          g->ncalls);
    double backward_end = 0, last_end = 0, reduce = 0;
    for (int t = 0; t < T; t++) {
        g->tensor_ready[t] = ready[t];
        if (ready[t] > backward_end) backward_end = ready[t];
    }
    for (int i = 0; i < n; i++) {
        reduce += end[i] - start[i];
        if (end[i] > last_end) last_end = end[i];
    }
    for (int k = 0; k < g->G; k++) {
        gsync_group_time *x = &g->gt[k];
        x->ready_s = NAN;
        if (g->group_call0[k] >= 0) {
            x->start_s = start[g->group_call0[k]];
            x->end_s = end[g->group_call1[k]];
        }
    }
    for (int t = 0; t < T; t++) {
        gsync_group_time *x = &g->gt[g->group_of[t]];
        if (isnan(x->ready_s) || g->tensor_ready[t] > x->ready_s) x->ready_s = g->tensor_ready[t];
    }
    if (!g->thread_up && !g->inline_up)
        for (int k = 0; k < g->G; k++) g->gt[k].start_s = g->gt[k].end_s = g->gt[k].ready_s;
    g->step.backward_end_s = backward_end;
    g->step.reduce_s = reduce;
    /* what the device did not overlap: the reductions still running after the
     * last gradient was made (the host's wait includes the rest of backward) */
    g->step.exposed_s = n > 0 && last_end > backward_end ? last_end - backward_end : 0;
    free(ready);
    free(start);
    free(end);
}

const gsync_step *gsync_last_step(const gsync_t *g) { return &g->step; }
