/* wf_trainer: the trainer's side of the workflow whatever the transport:
 * the ledger (every sample checked once consumed: its checksum, its
 * producer and sequence in range, not seen before), the bounded queue of
 * samples waiting, the training step over a batch of them, and what is
 * measured (latency from simulation to gradient, stall, queue depth, loss).
 * The transports (wf_mpi.c, wf_files.c) offer what arrives and give a
 * trained sample's credit back through the release callback.
 * defines: wf_tr, wf_offer, wf_tr_init, wf_tr_offer, wf_tr_step, wf_tr_free */
#ifndef EXADL_WORKFLOW_WF_TRAINER_H
#define EXADL_WORKFLOW_WF_TRAINER_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/workflow/wf.h"
#include "benchmarks/workflow/wf_net.h"

typedef enum { WF_NEW, WF_DUPLICATE, WF_CORRUPT } wf_offer;

typedef struct {
    int producer;
    int64_t name_seq;   /* the transport's name for it (files: the file's sequence) */
    double made_s;
} wf_slot;

/* how a producer ended, as its transport tells */
typedef struct {
    int ended;                    /* its end is known and its samples are all read */
    int failed;                   /* it failed (stopped, exited, was killed) */
    int64_t produced;             /* samples it says it made; -1: unknown (killed) */
    double blocked_s;             /* its time waiting for a credit; NaN: unknown */
    char how[112];                /* "done", "killed by signal 9 (Killed)", ... */
} wf_end;

typedef struct {
    const wf_cfg *c;
    wf_end *ends;                 /* per producer */
    int producers;
    wf_net *net;
    unsigned char *seen;          /* [producer][seq] */
    int64_t *received;            /* per producer: new, whole samples */
    int64_t *pending;             /* per producer: in the queue, not yet trained */
    int64_t consumed, duplicates, corrupt;
    wf_slot *q;                   /* the queue, oldest first */
    float *qdata;                 /* its payloads: 2 x cells floats per slot */
    int qn;
    double *lat;                  /* simulation to gradient, per consumed sample */
    int64_t steps, depth_max;
    double depth_sum, loss_first, loss_last;
    double train_s;               /* in training steps */
    double check_s;               /* checking and queueing samples */
    double stall_s;               /* neither: waiting for data and moving it */
} wf_tr;

void wf_tr_init(wf_tr *T, const wf_cfg *c, int producers);
void wf_tr_free(wf_tr *T);
/* A sample that arrived from producer `from` (the transport's word) under
 * name_seq: checked, and queued when new and whole. */
wf_offer wf_tr_offer(wf_tr *T, int from, int64_t name_seq, const void *buf, size_t bytes);
/* One training step over the oldest min(qn, batch) samples; release(user,
 * producer, name_seq) for each afterwards (its credit back).  The queue depth
 * is sampled first. */
void wf_tr_step(wf_tr *T, void (*release)(void *user, int producer, int64_t name_seq), void *user);

#endif
