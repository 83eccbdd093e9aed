#include "benchmarks/skeleton/skel.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/rng.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/train/counted.h"
#include "benchmarks/train/optim.h"
#include "benchmarks/train/train.h"

/* ---- the trace ---------------------------------------------------------- */

typedef struct {
    skel_trace *t;
    ktab_t *tab;
    int64_t fwd_flops;
    int cap;
} trace_ctx;

/* backward's ready callback in the dry pass: where in backward's FLOPs the
 * layer's gradient is complete (turned into seconds afterwards) */
static void note_ready(void *user, int layer, void *grad, int64_t count)
{
    (void)grad, (void)count;
    trace_ctx *c = user;
    skel_trace *t = c->t;
    CHECK(t->nevents < c->cap, "more gradient events than layers");
    t->event_layer[t->nevents] = layer;
    t->event_s[t->nevents] = (double)(ktab_total_flops(c->tab) - c->fwd_flops);
    t->nevents++;
}

int skel_trace_build(const network_t *net, const void *model, int batch, double device_flops,
                     int basis, skel_trace *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    net_facts f;
    train_facts(net, model, &f);
    t->layers = f.layers;
    t->params = f.params;
    t->fwd_conv_flops_sample = f.fwd_conv_flops;
    t->convention_flops_sample = f.convention_flops;
    t->ntensors = net->tensors(model, &t->tensors);
    for (int i = 0; i < t->ntensors; i++)
        if (strstr(t->tensors[i].name, ".w")) t->conv_weights += t->tensors[i].count;

    /* forward and backward of a dry instance through counted.c */
    ktab_t tab;
    ktab_init(&tab, 16 * f.layers + 64);
    void *inst = net->create(model, kern_ref_ops(), NULL, batch, 1, err, errlen);
    CHECK(inst != NULL, "%s", err);
    kc_t kc = {.ops = kern_ref_ops(), .tab = &tab, .dry = 1};
    t->event_layer = XMALLOC((size_t)f.layers * sizeof *t->event_layer, "gradient events");
    t->event_s = XMALLOC((size_t)f.layers * sizeof *t->event_s, "gradient events");
    net->forward(inst, &kc);
    trace_ctx c = {.t = t, .tab = &tab, .fwd_flops = ktab_total_flops(&tab), .cap = f.layers};
    net->backward(inst, &kc, note_ready, &c);
    t->fwd_flops = c.fwd_flops;
    t->bwd_flops = ktab_total_flops(&tab) - c.fwd_flops;
    /* the optimizer's kernels (Adam, as train_dry_flops counts them) on the
     * same dry instance */
    optim_t *opt = optim_create(net, model, inst, kern_ref_ops(), NULL, 1, err, errlen);
    CHECK(opt != NULL, "%s", err);
    adam_hyper h = {.lr = 1e-3, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .step = 1, .grad_scale = 1};
    optim_step(opt, &kc, &h);
    t->opt_flops = ktab_total_flops(&tab) - t->fwd_flops - t->bwd_flops;
    optim_free(opt);
    net->release(inst);
    ktab_free(&tab);

    double exec = (double)(t->fwd_flops + t->bwd_flops);
    if (exec <= 0 || !(device_flops > 0)) {
        snprintf(err, errlen, "skeleton: nothing to time (%.0f FLOPs at %g FLOP/s)", exec, device_flops);
        return -1;
    }
    /* convention: batch x 3 x forward conv FLOPs at the rate, spread over the
     * kernels by what they execute (exadl model's T(1), docs/model.md) */
    t->seconds_per_flop = basis == SKEL_BASIS_CONVENTION
                              ? (double)batch * (double)t->convention_flops_sample / exec / device_flops
                              : 1.0 / device_flops;
    t->fwd_s = (double)t->fwd_flops * t->seconds_per_flop;
    t->bwd_s = (double)t->bwd_flops * t->seconds_per_flop;
    t->opt_s = (double)t->opt_flops * t->seconds_per_flop;
    for (int i = 0; i < t->nevents; i++) t->event_s[i] *= t->seconds_per_flop;
    return 0;
}

void skel_trace_copy(const skel_trace *src, skel_trace *dst)
{
    *dst = *src;
    dst->event_layer = XMALLOC((size_t)src->layers * sizeof *dst->event_layer, "gradient events");
    dst->event_s = XMALLOC((size_t)src->layers * sizeof *dst->event_s, "gradient events");
    dst->tensors = XMALLOC((size_t)src->ntensors * sizeof *dst->tensors, "gradient tensors");
    memcpy(dst->event_layer, src->event_layer, (size_t)src->nevents * sizeof *dst->event_layer);
    memcpy(dst->event_s, src->event_s, (size_t)src->nevents * sizeof *dst->event_s);
    memcpy(dst->tensors, src->tensors, (size_t)src->ntensors * sizeof *dst->tensors);
}

void skel_trace_free(skel_trace *t)
{
    free(t->event_layer);
    free(t->event_s);
    free(t->tensors);
    memset(t, 0, sizeof *t);
}

/* ---- the transport -------------------------------------------------------- */

struct skel_xport {
    comm_t *comm;
    MPI_Comm flat, node, cross; /* all ranks; the node's; those of the same local rank */
    int hierarchical;
    int grad_bytes;
    MPI_Datatype type;
    char *scratch;
    size_t scratch_bytes;
};

#if EXADL_SMPI
/* one buffer for every simulated rank: its contents are never read, and
 * SMPI skips copying shared memory */
#define SCRATCH_ALLOC(n) SMPI_SHARED_MALLOC(n)
#define SCRATCH_FREE(p) SMPI_SHARED_FREE(p)
#else
#define SCRATCH_ALLOC(n) calloc(1, (n))
#define SCRATCH_FREE(p) free(p)
#endif

skel_xport *skel_xport_open(comm_t *comm, int grad_bytes, int hierarchical, int64_t max_elems,
                            char *err, size_t errlen)
{
    if (grad_bytes != 2 && grad_bytes != 4) {
        snprintf(err, errlen, "--grad-bytes: %d (2: fp16, 4: fp32)", grad_bytes);
        return NULL;
    }
    skel_xport *x = XCALLOC(1, sizeof *x, "skeleton transport");
    x->comm = comm;
    x->grad_bytes = grad_bytes;
    x->type = grad_bytes == 2 ? MPI_UINT16_T : MPI_FLOAT;
    x->node = x->cross = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_dup(comm->world, &x->flat));
    if (hierarchical && comm->size > 1) {
        /* the nodes must hold equal numbers of ranks for equal shares */
        int mine[2] = {comm->local_size, -comm->local_size}, r[2];
        CHECK_MPI(MPI_Allreduce(mine, r, 2, MPI_INT, MPI_MAX, comm->world));
        if (r[0] == -r[1] && comm->local_size > 1 && comm->local_size < comm->size) {
            x->hierarchical = 1;
            x->node = comm->node;
            CHECK_MPI(MPI_Comm_split(comm->world, comm->local_rank, comm->rank, &x->cross));
        }
    }
    /* a reduction of n elements pads to a multiple of the ranks that share it */
    int64_t pad = (int64_t)comm->size + 1;
    if (max_elems < 1 || max_elems > ((int64_t)INT_MAX - pad) / 2) {
        snprintf(err, errlen, "skeleton: a reduction of %lld elements is more than one MPI call takes",
                 (long long)max_elems);
        skel_xport_close(x);
        return NULL;
    }
    /* room for p blocks to send and one to receive */
    x->scratch_bytes = 2 * (size_t)(max_elems + pad) * (size_t)grad_bytes;
    x->scratch = SCRATCH_ALLOC(x->scratch_bytes);
    if (!x->scratch) {
        snprintf(err, errlen, "skeleton: cannot allocate %zu bytes of reduction buffer", x->scratch_bytes);
        skel_xport_close(x);
        return NULL;
    }
    return x;
}

int skel_xport_hierarchical(const skel_xport *x) { return x->hierarchical; }

void skel_xport_close(skel_xport *x)
{
    if (!x) return;
    if (x->cross != MPI_COMM_NULL) MPI_Comm_free(&x->cross);
    if (x->flat != MPI_COMM_NULL) MPI_Comm_free(&x->flat);
    if (x->scratch) SCRATCH_FREE(x->scratch);
    free(x);
}

enum { SKEL_TAG = 0x5ce1 };

static void xfer(skel_xport *x, MPI_Comm comm, int peer, int64_t send_elems, int64_t recv_elems)
{
    /* send from the buffer's first half, receive into its second: MPI wants
     * them apart; contents are never read */
    char *snd = x->scratch, *rcv = x->scratch + x->scratch_bytes / 2;
    CHECK_MPI(MPI_Sendrecv(snd, (int)send_elems, x->type, peer, SKEL_TAG, rcv, (int)recv_elems,
                           x->type, peer, SKEL_TAG, comm, MPI_STATUS_IGNORE));
}

/* An allreduce of n elements over comm as Rabenseifner's algorithm, the
 * one MPICH and Open MPI use for large sums: recursive halving
 * (reduce-scatter) then recursive doubling (allgather), the ranks beyond
 * the largest power of two folded in first and out last.  Written with
 * MPI_Sendrecv on a buffer of the skeleton's own so that SimGrid moves
 * no bytes (shared memory) and adds none (the sum is skipped): a library's
 * collective copies and adds each message on this machine's CPU, hours at
 * thousands of simulated ranks.  The messages, their sizes and their order
 * are the algorithm's. */
static void raben_half(skel_xport *x, MPI_Comm comm, int64_t n, int second)
{
    int p, r;
    CHECK_MPI(MPI_Comm_size(comm, &p));
    CHECK_MPI(MPI_Comm_rank(comm, &r));
    if (p == 1 || n == 0) return;
    int pof2 = 1;
    while (pof2 * 2 <= p) pof2 *= 2;
    int rem = p - pof2;
    /* pairs (even, odd) below 2 rem: the odd rank takes part for both */
    int newrank = r < 2 * rem ? (r % 2 ? r / 2 : -1) : r - rem;
    int64_t block = (n + pof2 - 1) / pof2;
    char *rcv = x->scratch + x->scratch_bytes / 2;
    if (!second) {
        if (r < 2 * rem && r % 2 == 0)
            CHECK_MPI(MPI_Send(x->scratch, (int)n, x->type, r + 1, SKEL_TAG, comm));
        else if (r < 2 * rem)
            CHECK_MPI(MPI_Recv(rcv, (int)n, x->type, r - 1, SKEL_TAG, comm, MPI_STATUS_IGNORE));
        /* halving: each round exchanges half of the part still shared */
        for (int mask = pof2 / 2; newrank >= 0 && mask >= 1; mask /= 2) {
            int np = newrank ^ mask;
            xfer(x, comm, np < rem ? np * 2 + 1 : np + rem, block * mask, block * mask);
        }
        return;
    }
    /* doubling: each round exchanges everything gathered so far */
    for (int mask = 1; newrank >= 0 && mask < pof2; mask *= 2) {
        int np = newrank ^ mask;
        xfer(x, comm, np < rem ? np * 2 + 1 : np + rem, block * mask, block * mask);
    }
    if (r < 2 * rem && r % 2)
        CHECK_MPI(MPI_Send(x->scratch, (int)n, x->type, r - 1, SKEL_TAG, comm));
    else if (r < 2 * rem)
        CHECK_MPI(MPI_Recv(rcv, (int)n, x->type, r + 1, SKEL_TAG, comm, MPI_STATUS_IGNORE));
}

static void rabenseifner(skel_xport *x, MPI_Comm comm, int64_t n)
{
    raben_half(x, comm, n, 0);
    raben_half(x, comm, n, 1);
}

static void xport_allreduce(void *ctx, float *const *bufs, const int64_t *counts, const int *slots, int n)
{
    (void)bufs, (void)slots;
    skel_xport *x = ctx;
    int64_t elems = 0;
    for (int i = 0; i < n; i++) elems += counts[i];
    if (!x->hierarchical) {
        rabenseifner(x, x->flat, elems);
        return;
    }
    /* Horovod's hierarchical allreduce: reduce-scatter inside the node,
     * an allreduce of each node rank's share between the nodes, allgather
     * inside the node.  The node's two halves are the halving and doubling
     * phases of Rabenseifner's algorithm over the node's ranks. */
    int L = x->comm->local_size;
    int64_t share = (elems + L - 1) / L;
    raben_half(x, x->node, elems, 0);
    rabenseifner(x, x->cross, share);
    raben_half(x, x->node, elems, 1);
}

gsync_transport skel_xport_transport(skel_xport *x)
{
    return (gsync_transport){.name = x->hierarchical ? "mpi-hierarchical" : "mpi",
                             .allreduce = xport_allreduce,
                             .ctx = x};
}

/* ---- the step ----------------------------------------------------------- */

double skel_speed(double cv, uint64_t seed, int rank, int step)
{
    if (cv <= 0) return 1.0;
    rng_t r = rng_stream(seed, 0x5ce1e7, (uint64_t)rank, (uint64_t)step);
    double f = 1.0 + cv * rng_normal(&r);
    return f < 0.5 ? 0.5 : f;
}

void skel_step(const skel_trace *t, gsync_t *gs, comm_t *comm, double speed, skel_step_times *out)
{
    CHECK_MPI(MPI_Barrier(comm->world));
    double t0 = timer_now_s();
    gsync_begin(gs);
    /* the device runs forward, then backward; the host hands each gradient
     * over when the device has made it (an event query on a GPU) and runs
     * the engine's cycles while it waits */
    double bwd0 = t0 + t->fwd_s * speed;
    for (int i = 0; i < t->nevents; i++) {
        gsync_progress(gs, bwd0 + t->event_s[i] * speed);
        gsync_ready(gs, t->event_layer[i], NULL, 0);
    }
    gsync_progress(gs, bwd0 + t->bwd_s * speed);
    gsync_finish(gs);
    /* the optimizer runs on the device once the gradients are reduced */
    double opt0 = timer_now_s();
    gsync_progress(gs, opt0 + t->opt_s * speed);
    const gsync_step *st = gsync_last_step(gs);
    out->step_s = timer_now_s() - t0;
    out->compute_s = (t->fwd_s + t->bwd_s + t->opt_s) * speed;
    out->exposed_s = st->exposed_s;
    out->negotiation_s = st->negotiation_s;
    out->reduce_s = st->reduce_s;
    out->backward_end_s = st->backward_end_s;
    out->cycles = st->cycles;
}
