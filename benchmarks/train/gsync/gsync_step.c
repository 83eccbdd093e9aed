/* gsync_step: gsync's calls of a training step from the main thread (gsync.h):
 * begin, each tensor reported ready, progress and finish (on one rank: each
 * group handed to the exchange after backward), and settle; gsync.c sets the
 * engine up, gsync_engine.c is its background thread. */
#include "benchmarks/train/gsync/gsync.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/train/gsync/gsync_impl.h"

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
