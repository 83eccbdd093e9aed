/* wf_mpi (wf_mpi.h): samples, credits and ends as MPI messages.  Both sides
 * poll (MPI_Iprobe, then a sleep of poll_us) instead of blocking in MPI,
 * whose progress loop spins on a core the producers need. */
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
    int p = comm->rank - 1, P = comm->size - 1, credits = wf_credits(c, P);
    size_t bytes = wf_sample_bytes(c);
    unsigned char *buf = XMALLOC(bytes, "sample");
    float *work = XMALLOC(2 * wf_cells(c) * sizeof(float), "simulation");
    double blocked = 0, failed = 0;
    int64_t made = 0;
    for (int64_t seq = 0; seq < c->samples; seq++) {
        if (p == c->fail_producer && seq == c->fail_after) {
            failed = 1;
            break;
        }
        wf_sample_make(c, p, seq, buf, work);
        made++;
        int copies = p == 0 && seq == c->duplicate_seq ? 2 : 1;
        if (p == 0 && seq == c->corrupt_seq) buf[bytes - 1] ^= 0x5a; /* after its checksum */
        for (int k = 0; k < copies; k++) {
            if (credits == 0) blocked += wait_credit(c, comm, &credits);
            CHECK_MPI(MPI_Send(buf, (int)bytes, MPI_BYTE, 0, TAG_SAMPLE, comm->world));
            credits--;
        }
    }
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
    free(buf), free(work);
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

void wf_mpi_trainer(const wf_cfg *c, const comm_t *comm, wf_tr *T, double *wall_s)
{
    int P = comm->size - 1, left = P;
    size_t bytes = wf_sample_bytes(c);
    unsigned char *buf = XMALLOC(bytes, "sample");
    int64_t *granted = XCALLOC((size_t)P, sizeof *granted, "credits"),
            *msgs = XCALLOC((size_t)P, sizeof *msgs, "credits");
    for (int p = 0; p < P; p++) granted[p] = wf_credits(c, P);
    tctx x = {comm, T, granted};
    double t0 = timer_now_s();
    for (;;) {
        int flag, got = 0;
        MPI_Status st;
        for (;;) {
            CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm->world, &flag, &st));
            if (!flag) break;
            int p = st.MPI_SOURCE - 1, n;
            got = 1;
            if (st.MPI_TAG == TAG_END) {
                double end[3];
                CHECK_MPI(MPI_Recv(end, 3, MPI_DOUBLE, p + 1, TAG_END, comm->world, MPI_STATUS_IGNORE));
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
            CHECK_MPI(MPI_Recv(buf, n, MPI_BYTE, p + 1, TAG_SAMPLE, comm->world, MPI_STATUS_IGNORE));
            msgs[p]++;
            if (wf_tr_offer(T, p, msgs[p] - 1, buf, (size_t)n) != WF_NEW) give_credit(&x, p, 0);
        }
        /* can a producer still send?  (one whose credits all sit in the queue
         * cannot: waiting for it would never end) */
        int can = 0;
        for (int p = 0; p < P; p++) can |= !T->ends[p].ended && msgs[p] < granted[p];
        if (T->qn >= c->batch || (T->qn > 0 && !can)) {
            wf_tr_step(T, give_credit, &x);
            continue;
        }
        if (!left && !T->qn) break;
        if (!got) {
            double w0 = timer_now_s();
            nap(c->poll_us);
            T->stall_s += timer_now_s() - w0;
        }
    }
    *wall_s = timer_now_s() - t0;
    for (int p = 0; p < P; p++) {
        int zero = 0;
        CHECK_MPI(MPI_Send(&zero, 1, MPI_INT, p + 1, TAG_STOP, comm->world));
    }
    free(buf), free(granted), free(msgs);
}
