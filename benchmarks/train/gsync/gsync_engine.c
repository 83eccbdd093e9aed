/* The gradient-reduction engine's background thread: cycles of
 * orchestration, then fused reductions of the released groups. */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/train/gsync/gsync_impl.h"

void gsync_sleep_until(double t)
{
    double dt = t - timer_now_s();
    if (dt <= 0) return;
    struct timespec ts = {(time_t)dt, (long)((dt - (double)(time_t)dt) * 1e9)};
    nanosleep(&ts, NULL);
}

static int cmp_by_address(const void *a, const void *b)
{
    float *const *x = a, *const *y = b;
    return (*x > *y) - (*x < *y);
}

/* In-place sum over ranks of count floats, in slices MPI's int counts allow. */
static void mpi_sum(gsync_t *g, float *buf, int64_t count)
{
    while (count > 0) {
        int n = count > INT_MAX / 2 ? INT_MAX / 2 : (int)count;
        MPI_Request rq;
        CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, buf, n, MPI_FLOAT, MPI_SUM, g->rcomm, &rq));
        comm_wait(&rq, g->cfg.poll_us);
        buf += n;
        count -= n;
    }
}

/* The built-in MPI transport: buffers that lie end to end in memory are
 * reduced where they are; others go through the fusion buffer, as Horovod
 * fuses tensors (copy in, one allreduce, copy out). */
static void mpi_reduce(gsync_t *g, float **bufs, const int64_t *counts, int n)
{
    typedef struct {
        float *p;
        int64_t n;
    } span;
    span *s = XMALLOC((size_t)n * sizeof *s, "fusion list");
    int64_t total = 0;
    for (int i = 0; i < n; i++) s[i] = (span){bufs[i], counts[i]}, total += counts[i];
    qsort(s, (size_t)n, sizeof *s, cmp_by_address);
    int contiguous = 1;
    for (int i = 1; i < n; i++) contiguous &= s[i - 1].p + s[i - 1].n == s[i].p;
    if (contiguous) {
        mpi_sum(g, s[0].p, total);
    } else {
        if (total > g->fusion_cap) {
            free(g->fusion);
            g->fusion = XMALLOC((size_t)total * sizeof(float), "fusion buffer");
            g->fusion_cap = total;
        }
        int64_t off = 0;
        for (int i = 0; i < n; i++) memcpy(g->fusion + off, s[i].p, (size_t)s[i].n * sizeof(float)), off += s[i].n;
        mpi_sum(g, g->fusion, total);
        off = 0;
        for (int i = 0; i < n; i++) memcpy(s[i].p, g->fusion + off, (size_t)s[i].n * sizeof(float)), off += s[i].n;
    }
    free(s);
}

static void flush(gsync_t *g)
{
    if (g->b_n == 0) return;
    double start = timer_now_s();
    for (int i = 0; i < g->b_n; i++) {
        gsync_group_time *x = &g->gt[g->group_of[g->b_slots[i]]];
        if (isnan(x->start_s)) x->start_s = start - g->t0;
    }
    if (g->xchg.run)
        g->xchg.run(g->xchg.ctx, g->b_bufs, g->b_counts, g->b_slots, g->b_n);
    else if (g->builtin_mpi)
        mpi_reduce(g, g->b_bufs, g->b_counts, g->b_n);
    else
        g->tr.allreduce(g->tr.ctx, g->b_bufs, g->b_counts, g->b_slots, g->b_n);
    /* a transport that only queues (it has wait) gets its times at settle */
    double end = timer_now_s();
    int last_group = -1;
    for (int i = 0; i < g->b_n; i++) {
        int k = g->group_of[g->b_slots[i]];
        g->gt[k].end_s = end - g->t0;
        if (k != last_group) g->gt[k].reductions++;
        if (g->group_call0[k] < 0) g->group_call0[k] = g->ncalls;
        g->group_call1[k] = g->ncalls;
        last_group = k;
    }
    g->ncalls++;
    g->step.reduce_s += end - start;
    g->step.reductions++;
    g->b_n = 0;
    g->b_bytes = 0;
}

/* The released groups' tensors, in release order, fused up to fusion_bytes. */
static void reduce_released(gsync_t *g, int nrel)
{
    for (int r = 0; r < nrel; r++) {
        int nm;
        const int *members = orch_group_members(g->orch, g->released[r], &nm);
        for (int i = 0; i < nm; i++) {
            const gsync_tensor *t = &g->tensors[members[i]];
            int64_t bytes = t->count * (int64_t)sizeof(float);
            if (g->b_n > 0 && g->b_bytes + bytes > g->cfg.fusion_bytes) flush(g);
            g->b_bufs[g->b_n] = g->grad + t->off;
            g->b_counts[g->b_n] = t->count;
            g->b_slots[g->b_n] = members[i];
            g->b_n++;
            g->b_bytes += bytes;
        }
    }
    flush(g);
}

void gsync_engine_begin(gsync_t *g)
{
    g->error[0] = 0;
    orch_step_begin(g->orch);
    g->next_cycle = timer_now_s();
}

int gsync_engine_cycle(gsync_t *g)
{
    if (g->error[0] || orch_step_done(g->orch)) return 1;
    /* Horovod's cycle time: a cycle starts at most once per period */
    g->next_cycle = timer_now_s() + g->cfg.cycle_ms * 1e-3;
    int n;
    if (g->thread_up) pthread_mutex_lock(&g->mu);
    n = g->npending;
    memcpy(g->local, g->pending, (size_t)n * sizeof *g->local);
    g->npending = 0;
    if (g->thread_up) pthread_mutex_unlock(&g->mu);
    for (int i = 0; i < n; i++) orch_mark_ready(g->orch, g->local[i]);
    char err[sizeof g->error];
    double t = timer_now_s();
    int nrel = orch_cycle(g->orch, g->released, err, sizeof err);
    g->step.negotiation_s += timer_now_s() - t;
    g->step.cycles++;
    if (nrel < 0) {
        snprintf(g->error, sizeof g->error, "%s", err);
        return 1;
    }
    if (nrel > 0) reduce_released(g, nrel);
    return orch_step_done(g->orch);
}

void gsync_engine_end(gsync_t *g)
{
    /* the queued reductions, polled for a failed communicator and bounded by
     * the timeout: a dead peer ends the step in an error, not in a hang */
    char err[sizeof g->error];
    if (!g->error[0] && g->tr.wait && g->tr.wait(g->tr.ctx, g->cfg.timeout_s, err, sizeof err))
        snprintf(g->error, sizeof g->error, "%s", err);
}

void *gsync_engine_main(void *arg)
{
    gsync_t *g = arg;
    if (g->tr.thread_init) g->tr.thread_init(g->tr.ctx);
    for (;;) {
        pthread_mutex_lock(&g->mu);
        while (!g->active && !g->quit) pthread_cond_wait(&g->cv, &g->mu);
        int quit = g->quit;
        pthread_mutex_unlock(&g->mu);
        if (quit) break;
        gsync_engine_begin(g);
        for (;;) {
            gsync_sleep_until(g->next_cycle);
            if (gsync_engine_cycle(g)) break;
        }
        gsync_engine_end(g);
        pthread_mutex_lock(&g->mu);
        g->active = 0;
        g->done = 1;
        pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu);
    }
    return NULL;
}
