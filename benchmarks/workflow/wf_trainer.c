/* wf_trainer (wf_trainer.h): ledger, queue and training steps. */
#define _GNU_SOURCE
#include "benchmarks/workflow/wf_trainer.h"

#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/workflow/wf_sample.h"

void wf_tr_init(wf_tr *T, const wf_cfg *c, int producers)
{
    memset(T, 0, sizeof *T);
    T->c = c, T->producers = producers;
    T->net = wf_net_create(c);
    T->seen = XCALLOC((size_t)producers * (size_t)c->samples, 1, "ledger");
    T->received = XCALLOC((size_t)producers, sizeof *T->received, "ledger");
    T->pending = XCALLOC((size_t)producers, sizeof *T->pending, "ledger");
    T->ends = XCALLOC((size_t)producers, sizeof *T->ends, "producers");
    for (int p = 0; p < producers; p++) T->ends[p].produced = -1;
    T->q = XCALLOC((size_t)c->queue, sizeof *T->q, "queue");
    T->qdata = XCALLOC((size_t)c->queue * 2 * wf_cells(c), sizeof(float), "queue");
    T->lat = XCALLOC((size_t)producers * (size_t)c->samples, sizeof *T->lat, "latencies");
}

void wf_tr_free(wf_tr *T)
{
    wf_net_free(T->net);
    free(T->seen), free(T->received), free(T->pending), free(T->ends), free(T->q), free(T->qdata), free(T->lat);
}

wf_offer wf_tr_offer(wf_tr *T, int from, int64_t name_seq, const void *buf, size_t bytes)
{
    wf_hdr h;
    /* a sample whose header names another producer or a sequence out of
     * range is as damaged as one whose checksum fails */
    /* the credits bound the queue: a transport offers nothing beyond it */
    CHECK(T->qn < T->c->queue, "queue of %d samples overrun (a producer past its credits)",
          T->c->queue);
    if (wf_sample_check(T->c, buf, bytes, &h) || h.producer != from || h.seq < 0 ||
        h.seq >= T->c->samples)
        return T->corrupt++, WF_CORRUPT;
    unsigned char *s = &T->seen[(size_t)from * (size_t)T->c->samples + (size_t)h.seq];
    if (*s) return T->duplicates++, WF_DUPLICATE;
    *s = 1;
    T->received[from]++, T->pending[from]++;
    int i = T->qn++;
    T->q[i] = (wf_slot){from, name_seq, h.made_s};
    size_t n2 = 2 * wf_cells(T->c);
    memcpy(T->qdata + (size_t)i * n2, (const wf_hdr *)buf + 1, n2 * sizeof(float));
    return WF_NEW;
}

void wf_tr_step(wf_tr *T, void (*release)(void *user, int producer, int64_t name_seq), void *user)
{
    int b = T->qn < T->c->batch ? T->qn : T->c->batch;
    if (b <= 0) return;
    if (T->qn > T->depth_max) T->depth_max = T->qn;
    T->depth_sum += T->qn;
    size_t n = wf_cells(T->c), n2 = 2 * n;
    for (int i = 0; i < b; i++) {
        const float *s = T->qdata + (size_t)i * n2;
        memcpy(wf_net_input(T->net, i), s, n * sizeof *s);
        memcpy(wf_net_target(T->net, i), s + n, n * sizeof *s);
    }
    double t0 = timer_now_s(), grad_s;
    double loss = wf_net_step(T->net, b, &grad_s);
    T->train_s += timer_now_s() - t0;
    if (!T->steps) T->loss_first = loss;
    T->loss_last = loss;
    T->steps++;
    for (int i = 0; i < b; i++) {
        T->lat[T->consumed++] = grad_s - T->q[i].made_s;
        T->pending[T->q[i].producer]--;
        release(user, T->q[i].producer, T->q[i].name_seq);
    }
    T->qn -= b;
    memmove(T->q, T->q + b, (size_t)T->qn * sizeof *T->q);
    memmove(T->qdata, T->qdata + (size_t)b * n2, (size_t)T->qn * n2 * sizeof(float));
}
