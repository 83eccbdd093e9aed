/* gsync: the gradient-reduction engine of data parallelism, after Horovod as
 * the 2019 STEMDL runs changed it (Romero et al., NSDI 2022; docs/gsync.md).
 *
 * The network reports each layer's gradient as soon as backward has made it
 * (gsync_ready); its tensors come in the order backward makes them
 * (network_t.tensors).  A background thread runs cycles, at most one per cycle_ms:
 * it hands the tensors that became ready here to the orchestration (orch.h),
 * which finds out which groups are ready on every rank, either through a
 * coordinator (rank 0 gathers every rank's ready list and broadcasts what is
 * ready everywhere) or through the response cache (one allreduce with bitwise
 * AND over a bit vector of cached tensors).  Each released group is reduced at
 * once, fused into reductions of at most fusion_bytes, while the main thread
 * goes on with backward.  gsync_finish waits for the rest: that wait is the
 * step's exposed communication.
 *
 * Sums are taken here; the division by the number of ranks is folded into the
 * optimizer's grad_scale. */
#ifndef EXADL_TRAIN_GSYNC_H
#define EXADL_TRAIN_GSYNC_H

#include <stdint.h>

#include "benchmarks/common/mpi/comm.h"

enum { GS_COORDINATOR = 0, GS_BITVECTOR = 1 };
enum { GS_GROUP_NONE = 0, GS_GROUP_LAYER = 1, GS_GROUP_COUNT = 2 };

typedef struct {
    int orchestration;    /* GS_COORDINATOR | GS_BITVECTOR */
    int cache_capacity;   /* bit vector: tensors the response cache holds; 0 = no cache */
    int grouping;         /* none: each tensor alone; layer: graph-aware; count: N groups */
    int groups;           /* GS_GROUP_COUNT: N groups of similar byte size */
    int64_t fusion_bytes; /* largest single fused reduction */
    double cycle_ms;      /* the engine starts a cycle at most this often */
    double timeout_s;     /* a step where a group never gets ready ends in an error */
    int poll_us;          /* the engine tests its MPI requests this often instead of spinning */
    int inline_engine;    /* 1: no background thread; the caller's thread runs the cycles
                             (gsync_progress between kernels, gsync_finish): SimGrid's SMPI
                             ranks may not call MPI from a second thread (docs/gsync.md) */
} gsync_cfg;

/* A transport reduces fp32 buffers over all ranks.  NULL members mean the
 * built-in MPI transport (host memory, MPI_Iallreduce).  The CUDA backend
 * gives NCCL here (kern_cuda.h); its reductions run on the device, after the
 * gradients' events, while the host goes on, so its times come from the
 * device (settle). */
typedef struct {
    const char *name; /* "mpi", "nccl" */
    /* once, from gsync_create, before the engine thread starts: there will be
     * nslots gradient slots (tensor ids), and no allreduce call of several
     * buffers will hold more than fusion_elems floats in all (0 on one rank:
     * no reductions), so that a fusion buffer is sized here, never in a
     * step.  May be NULL. */
    void (*prepare)(void *ctx, int nslots, int64_t fusion_elems);
    /* main thread, in gsync_begin: the step's time origin (GPU: an event on
     * the compute stream).  May be NULL. */
    void (*begin)(void *ctx);
    /* main thread, in gsync_ready: the gradient `slot` (a tensor id) is being
     * made by the work queued so far (GPU: record an event).  May be NULL. */
    void (*mark)(void *ctx, int slot);
    /* engine thread, once when it starts (GPU: bind the device).  May be NULL. */
    void (*thread_init)(void *ctx);
    /* engine thread: in-place sum over the ranks of n buffers (fp32, after
     * their slots' marks), fused into one reduction when n > 1.  Complete when
     * it returns, unless the transport has `wait`: then it may only queue the
     * reduction (GPU: on the communication stream, behind the marks' events),
     * and the next call may come before this one is done. */
    void (*allreduce)(void *ctx, float *const *bufs, const int64_t *counts, const int *slots, int n);
    /* engine thread, after a step's last allreduce: until every reduction
     * queued is complete.  0, or -1 with err when the communicator failed (a
     * rank died) or timeout_s passed; the step then ends in that error.  May
     * be NULL. */
    int (*wait)(void *ctx, double timeout_s, char *err, size_t errlen);
    /* main thread, from gsync_settle once the step's device work is done:
     * device times in seconds from begin: ready_s[slot] for the nslots slots
     * (NAN where not marked in this step) and start_s[i], end_s[i] of each
     * allreduce call of the step, in call order; returns how many calls.
     * NULL: the host's clock times everything (right where the work runs on
     * the host). */
    int (*settle)(void *ctx, double *ready_s, int nslots, double *start_s, double *end_s,
                  int max_calls);
    void *ctx;
} gsync_transport;

/* An exchange in place of the sum (the Lion update exchange, lionx.h): the
 * engine hands each fused batch of released tensors (fp32 gradients, their
 * tensor ids as slots) to run instead of reducing them; the batches are the
 * same on every rank.  Engine thread; run may call MPI (the engine is the
 * only thread calling MPI while a step runs).  On one rank, where no engine
 * runs, gsync_finish hands it every group in turn. */
typedef struct {
    void (*run)(void *ctx, float *const *bufs, const int64_t *counts, const int *slots, int n);
    void *ctx;
} gsync_exchange;

/* One tensor: a layer's weights or its bias, a slice of the flat gradient. */
typedef struct {
    char name[48];     /* "up0.l2.w", "conv_fin.b" */
    int layer;         /* the network's parameter layer (network.h) */
    int64_t off, count; /* floats, from the start of the gradient array */
} gsync_tensor;

/* One group's times in a step, seconds from gsync_begin, on this rank. */
typedef struct {
    double ready_s;    /* its last tensor was reported ready here */
    double start_s;    /* its first reduction started (after release) */
    double end_s;      /* its last reduction ended */
    int reductions;    /* fused reductions that carried its tensors */
} gsync_group_time;

typedef struct {
    int cycles;             /* engine cycles */
    double negotiation_s;   /* engine time inside orchestration cycles */
    double reduce_s;        /* engine time inside reductions */
    double exposed_s;       /* not overlapped: the main thread waiting in gsync_finish; on a
                               device (settle), last reduction end - last gradient ready */
    double backward_end_s;  /* the last gradient was reported, from gsync_begin */
    int reductions;         /* fused reductions */
    const gsync_group_time *groups; /* ngroups entries, valid until the next gsync_begin */
} gsync_step;

typedef struct gsync gsync_t;

/* Defaults: bit vector, cache of 1024 tensors, graph-aware (layer) grouping,
 * 8 MiB fusion, 1 ms cycle, 60 s timeout, 20 us polling. */
void gsync_cfg_default(gsync_cfg *c);
/* Parse "none", "layer" or a count N >= 1 into c; -1 when it is none of them. */
int gsync_parse_grouping(gsync_cfg *c, const char *text);

/* An engine over `ntensors` tensors of the gradient array at grad (device
 * memory for the CUDA transport), layer ids < nlayers.  Collective over
 * comm->world.  NULL with a message when the configuration cannot work. */
gsync_t *gsync_create(const gsync_cfg *cfg, comm_t *comm, gsync_transport tr,
                      const gsync_tensor *tensors, int ntensors, int nlayers, float *grad,
                      char *err, size_t errlen);
void gsync_free(gsync_t *g);

int gsync_ngroups(const gsync_t *g);
/* A group's label ("up0.l2" for a layer group, "g3" for a count group) and bytes. */
const char *gsync_group_label(const gsync_t *g, int group);
int64_t gsync_group_bytes(const gsync_t *g, int group);
int gsync_group_of(const gsync_t *g, int tensor);
const gsync_tensor *gsync_tensor_at(const gsync_t *g, int tensor);
int gsync_ntensors(const gsync_t *g);

/* Use x instead of the sum from the next step on (x.run NULL: the sum). */
void gsync_set_exchange(gsync_t *g, gsync_exchange x);

/* Start a step (the engine's cycles begin). */
void gsync_begin(gsync_t *g);
/* net_grad_ready_fn: every tensor of `layer` is complete (grad/count unused:
 * the engine knows its tensors). */
void gsync_ready(void *g, int layer, void *grad, int64_t count);
/* The inline engine (cfg.inline_engine): run the cycles that fall due
 * before timer_now_s() reaches until_s, sleeping between them, then sleep
 * until until_s.  A caller whose device works asynchronously (the compute
 * skeleton, benchmarks/skeleton) calls it while it waits for the next
 * gradient; a reduction started here delays the caller, as it would delay a
 * host thread that both computes and reduces.  Without the inline engine:
 * only the sleep. */
void gsync_progress(gsync_t *g, double until_s);
/* Wait until every group of the step is reduced; fails with the engine's
 * message (a tensor that never became ready on some rank) after timeout_s. */
void gsync_finish(gsync_t *g);
/* After the step's device work is complete (kern_ops.sync): a transport with
 * `settle` replaces the host's times of the step (when gsync_ready was
 * called, when a reduction was queued) by the device's: when each gradient
 * was made and when each reduction ran.  Exposed communication is then the
 * device time from the last gradient to the end of the last reduction.  No-op
 * for host transports. */
void gsync_settle(gsync_t *g);
/* The step just finished. */
const gsync_step *gsync_last_step(const gsync_t *g);

/* Test hook: EXADL_GSYNC_DROP="RANK:LAYER" makes that rank never report that
 * layer, to prove a missing gradient ends in an error and not in a hang. */

#endif
