/* wf_mpi (wf_mpi.h): samples, credits and ends as MPI messages.  Both sides
 * poll (MPI_Iprobe or MPI_Test, then a sleep of poll_us) instead of blocking
 * in MPI, whose progress loop spins on a core the others need: with blocking
 * sends, 3 producers on 2 cores spun in MPI_Send while the trainer they
 * waited for got a fifth of the cores (48-62 samples/s against 220-300
 * through files, grid 32). */
#define _GNU_SOURCE
#include "benchmarks/workflow/wf_mpi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchmarks/common/timer.h"
#include "benchmarks/workflow/wf_sample.h"

enum { TAG_SAMPLE = 1, TAG_END, TAG_CREDIT, TAG_STOP };

static void nap(int us)
{
    struct timespec t = {us / 1000000, (long)(us % 1000000) * 1000};
    nanosleep(&t, NULL);
}

/* Wait for at least one credit from the trainer; the time it took. */
static double wait_credit(const wf_cfg *c, const comm_t *comm, int *credits)
{
    double t0 = timer_now_s();
    for (;;) {
        int flag;
        MPI_Status st;
        CHECK_MPI(MPI_Iprobe(0, TAG_CREDIT, comm->world, &flag, &st));
        if (flag) {
            int k;
            CHECK_MPI(MPI_Recv(&k, 1, MPI_INT, 0, TAG_CREDIT, comm->world, MPI_STATUS_IGNORE));
            *credits += k;
            if (*credits > 0) break;
        } else nap(c->poll_us);
    }
    return timer_now_s() - t0;
}

void wf_mpi_producer(const wf_cfg *c, const comm_t *comm)
{
    int p = comm->rank - 1, P = comm->size - 1, credits = wf_credits(c, P), cur = 0;
    size_t bytes = wf_sample_bytes(c);
    /* two buffers: the next sample is simulated while the last one is sent */
    unsigned char *bufs = XMALLOC(2 * bytes, "samples");
    float *work = XMALLOC(2 * wf_cells(c) * sizeof(float), "simulation");
    double blocked = 0, failed = 0;
    int64_t made = 0;
    MPI_Request rq = MPI_REQUEST_NULL;
    for (int64_t seq = 0; seq < c->samples; seq++) {
        if (p == c->fail_producer && seq == c->fail_after) {
            failed = 1;
            break;
        }
        unsigned char *buf = bufs + (size_t)cur * bytes;
        wf_sample_make(c, p, seq, buf, work);
        made++;
        int copies = p == 0 && seq == c->duplicate_seq ? 2 : 1;
        if (p == 0 && seq == c->corrupt_seq) buf[bytes - 1] ^= 0x5a; /* after its checksum */
        for (int k = 0; k < copies; k++) {
            if (credits == 0) blocked += wait_credit(c, comm, &credits);
            /* the previous send first (a sample above the eager limit waits
             * for the trainer's receive): tested with sleeps in between, as
             * MPI_Wait would spin on a core the others need */
            double t0 = timer_now_s();
            comm_wait(&rq, c->poll_us);
            blocked += timer_now_s() - t0;
            CHECK_MPI(MPI_Isend(buf, (int)bytes, MPI_BYTE, 0, TAG_SAMPLE, comm->world, &rq));
            credits--;
        }
        cur ^= 1;
    }
    double t0 = timer_now_s();
    comm_wait(&rq, c->poll_us);
    blocked += timer_now_s() - t0;
    double end[3] = {(double)made, failed, blocked};
    CHECK_MPI(MPI_Send(end, 3, MPI_DOUBLE, 0, TAG_END, comm->world));
    /* credits still on their way are taken until the trainer says stop */
    for (;;) {
        MPI_Status st;
        int k, flag;
        CHECK_MPI(MPI_Iprobe(0, MPI_ANY_TAG, comm->world, &flag, &st));
        if (!flag) {
            nap(c->poll_us);
            continue;
        }
        CHECK_MPI(MPI_Recv(&k, 1, MPI_INT, 0, st.MPI_TAG, comm->world, MPI_STATUS_IGNORE));
        if (st.MPI_TAG == TAG_STOP) break;
    }
    free(bufs), free(work);
}

typedef struct {
    const comm_t *comm;
    wf_tr *T;
    int64_t *granted;          /* credits each producer was given in all */
} tctx;

static void give_credit(void *user, int p, int64_t name_seq)
{
    (void)name_seq;
    tctx *x = user;
    x->granted[p]++;
    if (x->T->ends[p].ended) return; /* it stopped: a credit would wait for nobody */
    int one = 1;
    CHECK_MPI(MPI_Send(&one, 1, MPI_INT, p + 1, TAG_CREDIT, x->comm->world));
}

/* the receives in flight: a sample's transfer completes while the trainer
 * trains (a blocking receive would wait for a sender that sleeps between its
 * polls); at most one per credit (and one per producer for a duplicate or
 * damaged sample's credit given back early).  A slot's buffer stays put
 * until its receive completes: MPI writes into it meanwhile. */
typedef struct {
    MPI_Request *rq;             /* MPI_REQUEST_NULL: a free slot */
    unsigned char *buf;
    int *from, *idx, n, cap;
    size_t bytes;
} inflight;

static int free_slot(const inflight *f)
{
    for (int i = 0; i < f->cap; i++)
        if (f->rq[i] == MPI_REQUEST_NULL) return i;
    return -1;
}

/* Offer the samples whose transfer completed; 1 when any did. */
static int complete(inflight *f, tctx *x, double *check_s)
{
    int any = 0;
    for (int i = 0; f->n && i < f->cap; i++) {
        if (f->rq[i] == MPI_REQUEST_NULL) continue;
        int done;
        MPI_Status st;
        CHECK_MPI(MPI_Test(&f->rq[i], &done, &st)); /* sets rq[i] to MPI_REQUEST_NULL when done */
        if (!done) continue;
        int n, p = f->from[i];
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
        double c0 = timer_now_s();
        wf_offer o = wf_tr_offer(x->T, p, f->idx[i], f->buf + (size_t)i * f->bytes, (size_t)n);
        *check_s += timer_now_s() - c0;
        if (o != WF_NEW) give_credit(x, p, 0);
        f->n--, any = 1;
    }
    return any;
}

void wf_mpi_trainer(const wf_cfg *c, const comm_t *comm, wf_tr *T, double *wall_s)
{
    int P = comm->size - 1, left = P;
    size_t bytes = wf_sample_bytes(c);
    inflight f = {.cap = c->queue + P, .bytes = bytes}; /* + P: duplicates and damaged ones */
    f.rq = XCALLOC((size_t)f.cap, sizeof *f.rq, "receives");
    f.buf = XMALLOC((size_t)f.cap * bytes, "receives");
    f.from = XCALLOC((size_t)f.cap, sizeof *f.from, "receives");
    f.idx = XCALLOC((size_t)f.cap, sizeof *f.idx, "receives");
    for (int i = 0; i < f.cap; i++) f.rq[i] = MPI_REQUEST_NULL;
    int64_t *granted = XCALLOC((size_t)P, sizeof *granted, "credits"),
            *msgs = XCALLOC((size_t)P, sizeof *msgs, "credits");
    for (int p = 0; p < P; p++) granted[p] = wf_credits(c, P);
    tctx x = {comm, T, granted};
    double t0 = timer_now_s(), check_s = 0;
    for (;;) {
        int flag, got = 0;
        MPI_Status st;
        MPI_Message msg;
        for (;;) {
            CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm->world, &flag, &msg, &st));
            if (!flag) break;
            int p = st.MPI_SOURCE - 1, n;
            got = 1;
            if (st.MPI_TAG == TAG_END) {
                double end[3];
                CHECK_MPI(MPI_Mrecv(end, 3, MPI_DOUBLE, &msg, MPI_STATUS_IGNORE));
                wf_end *e = &T->ends[p];
                e->ended = 1, e->failed = end[1] != 0, e->produced = (int64_t)end[0];
                e->blocked_s = end[2];
                snprintf(e->how, sizeof e->how, "%s", e->failed ? "stopped (--fail-how stop)" : "done");
                left--;
                continue;
            }
            CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
            CHECK(n >= 0 && (size_t)n <= bytes, "a message of %d bytes from rank %d (a sample is %zu)",
                  n, p + 1, bytes);
            int k = free_slot(&f);
            CHECK(k >= 0, "more samples in flight than credits (%d)", f.cap);
            f.from[k] = p, f.idx[k] = (int)msgs[p]++;
            CHECK_MPI(MPI_Imrecv(f.buf + (size_t)k * bytes, n, MPI_BYTE, &msg, &f.rq[k]));
            f.n++;
        }
        got |= complete(&f, &x, &check_s);
        /* can a producer still send?  (one whose credits all sit in the queue
         * cannot: waiting for it would never end) */
        int can = f.n > 0;
        for (int p = 0; p < P; p++) can |= !T->ends[p].ended && msgs[p] < granted[p];
        if (T->qn >= c->batch || (T->qn > 0 && !can)) {
            wf_tr_step(T, give_credit, &x);
            continue;
        }
        if (!left && !T->qn && !f.n) break;
        if (!got) nap(c->poll_us);
    }
    *wall_s = timer_now_s() - t0;
    /* stall: the trainer's time neither training nor checking samples */
    T->stall_s = *wall_s - T->train_s - check_s;
    T->check_s = check_s;
    for (int p = 0; p < P; p++) {
        int zero = 0;
        CHECK_MPI(MPI_Send(&zero, 1, MPI_INT, p + 1, TAG_STOP, comm->world));
    }
    free(f.rq), free(f.buf), free(f.from), free(f.idx), free(granted), free(msgs);
}
