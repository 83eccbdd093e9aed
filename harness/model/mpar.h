/* mpar: the performance model of modelpar's model parallelism
 * (docs/modelparallel.md "The model", docs/model.md): a step of R replicas
 * of model groups of M ranks (a GY x GX grid of tiles of the size x size
 * positions), batch n per group, is
 *
 *   T = compute + halo + tp + allreduce + opt + other
 *
 *   compute    the base's forward + backward without its exchanges, times
 *              (M_base / M) (n / n_base): a rank computes its tile's share
 *              of every locally connected layer (T / P of the positions)
 *              and D / M of the dense pair's hidden units
 *   halo       m_h alpha + b_h beta: the busiest rank's messages and bytes
 *              (an interior tile: two column and two row neighbours, forward
 *              and backward, before layers 2 and 3); per layer l = 1, 2
 *              b_h = 2 [nx p th c_l n + ny p (tw + 2p) c_l n] x 4 with nx =
 *              min(2, GX-1), ny = min(2, GY-1)
 *   tp         4 (M-1) alpha + b_tp beta + 2 (M-1)/M P n h2 x 4 gamma: the
 *              dense pair's two allgathers and two reduce-scatters (ring),
 *              b_tp = 4 (M-1) T n h2 x 4 a rank
 *   allreduce  the data-parallel model's allreduce (model.h) of the shard's
 *              4 P_total / M gradient bytes over the R replicas, exposed in
 *              full (no overlap with backward: an upper bound), plus one
 *              cycle of the gradient engine, which releases the last
 *              gradients at its next cycle (docs/gsync.md)
 *   opt        the base's optimizer times M_base / M (a rank updates its shard)
 *   other      the rest of the base's step (barrier, loop), kept
 *
 * The links: within a node where the model group fits one node (M <=
 * ranks per node), else between nodes (a tile with a neighbour on another
 * node waits for it).  Pure arithmetic: no I/O.  mpar_input.c fills the
 * inputs from a run.
 *
 * defines: mpw_t, mpc_t, mpp_t, mpar_auto_grid, mpar_bytes, mpar_predict */
#ifndef EXADL_HARNESS_MPAR_H
#define EXADL_HARNESS_MPAR_H

#include "harness/model/model.h"

/* The workload: the network, as the record's config says, and the base's
 * measured times. */
typedef struct {
    int size, channels, hidden1, hidden2, kernel, dense;
    double params;          /* all the model's parameters (P_total) */
    int base_M, base_batch; /* the base launch's model ranks and batch per group */
    double compute_s;       /* its forward + backward less its halo and tp time, per step */
    double opt_s;           /* its optimizer (the kernel table's adam or lion rows), per step */
    double other_s;         /* its step less its forward + backward and optimizer */
} mpw_t;

/* One configuration. */
typedef struct {
    int M, gy, gx, replicas, batch;
    double cycle_s; /* the gradient engine's cycle (replicas > 1) */
} mpc_t;

/* Bytes and messages of one configuration: per step, fp32. */
typedef struct {
    double halo_group;     /* sent by all ranks of a model group (the record's halo_bytes) */
    double halo_rank_max;  /* the busiest rank's (an interior tile) */
    double halo_msgs_rank; /* its messages */
    double tp_rank;        /* the dense pair's collectives, a rank */
    double allreduce_rank; /* 2 (R-1)/R of the shard's gradient, a rank */
    double shard_bytes;    /* 4 P_total / M */
} mpb_t;

typedef struct {
    mpc_t c;
    int ranks;
    mpb_t b;
    /* seconds per step; allreduce_s with the engine's cycle */
    double compute_s, halo_s, tp_s, allreduce_s, opt_s, other_s, step_s;
    double samples_per_s;
    int inter; /* the exchanges cross nodes */
} mpp_t;

/* The most square GY x GX = M (GY <= GX) whose tiles divide size x size, as
 * modelpar's --grid auto: 0, or -1 when none. */
int mpar_auto_grid(int M, int size, int *gy, int *gx);

/* The bytes of configuration c (fits: the caller checked the grid). */
void mpar_bytes(const mpw_t *w, const mpc_t *c, mpb_t *out);

/* The prediction for c on net (ranks_per_node 0: one node); the allreduce
 * on ar_net (NULL: net).  0, or -1 when c does not fit (grid not dividing
 * the positions, tiles thinner than the halo, dense not divisible by M). */
int mpar_predict(const mpw_t *w, const mpc_t *c, const mnet_t *net, const mnet_t *ar_net,
                 mpp_t *out);

#endif
