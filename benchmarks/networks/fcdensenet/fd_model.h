/* fd_model: the plan model of the FC-DenseNet's spatial split (docs/spatial.md
 * "The plan model"), after Dryden et al. (IPDPS 2019): for a group of S ranks
 * and a batch of b samples per group it enumerates the candidate plans
 *
 *   data          every rank b/S whole samples, no split (--spatial 1 on
 *                 the same ranks);
 *   GxH:h         every level split into a grid of G x H tiles (G H = S:
 *                 every grid, H splits first);
 *   GxH:h..hs     levels [0, K) split, [K, L] whole samples, K = 1..L (an
 *                 all-to-all shuffle into level K and one out of it);
 *
 * counts for each what one rank does in one training step (executed FLOPs
 * from a dry step, halo and shuffle bytes and messages from fd_split.h,
 * network bytes from a dry allocation) and, given a machine (one rank's
 * sustained FLOP/s, a link's latency and bandwidth), predicts its step:
 *
 *   T = flops / F + (halo + shuffle + allreduce messages) alpha
 *       + (halo + shuffle + allreduce bytes) / B
 *
 * or, with measured kernel times (fd_convtime.h), flops / F replaced by the
 * step's convolutions and other kernels (Adam included) at their measured
 * times + the FLOPs of what is not timed (nothing today) at F (F:
 * --model-flops, else the convolutions' own measured rate); with the gradient allreduce a ring over the S ranks (2 (S-1) messages,
 * 2 (S-1)/S of the gradient's bytes; the same for every plan).  The chosen
 * plan is the fastest that fits: whose network bytes per rank are within
 * the machine's memory when one is given (ties: the first).  Halo counts are those of
 * the busiest rank (two neighbours when S > 2, one when S == 2).
 *
 * defines: fdm_plan, fdm_machine, fdm_enumerate, fdm_print */
#ifndef EXADL_FCDENSENET_FD_MODEL_H
#define EXADL_FCDENSENET_FD_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "benchmarks/networks/fcdensenet/plan.h"
#include "benchmarks/train/network.h"

#define FDM_MAX 64

typedef struct {
    char name[24];        /* data, 2x1:h, 2x1:hs, 1x2:h, ... (--spatial:--spatial-plan) */
    int ok;               /* 0: the configuration refuses it, or it does not fit (why) */
    char why[200];
    int64_t flops;        /* executed per rank per step */
    int64_t halo_bytes, halo_msgs, shuffle_bytes, shuffle_msgs, allreduce_bytes, allreduce_msgs;
    int64_t mem_bytes;    /* network buffers per rank */
    /* with measured kernel times (fd_convtime.h, fdc_current()): the step's
     * convolutions and its other timed kernels (fd_kerntime.h: transposed
     * convolutions, pooling, bias, ReLU, the loss, add, copy, zero, copy3d,
     * Adam) at this machine's measured times, and their FLOPs (the rest of
     * flops, of kernels not timed, is charged at F); conv_s and other_s -1
     * without */
    double conv_s, other_s;
    int64_t conv_flops, other_flops;
    double step_s;        /* predicted; -1 without a machine */
} fdm_plan;

typedef struct {
    double flops, latency_s, bytes_per_s; /* one rank; 0: not given */
    double memory_bytes;                  /* one rank's; 0: no limit */
} fdm_machine;

/* The candidates for p's split and batch; returns how many (0 when p is
 * not split).  net: the FC-DenseNet as the runtime's network (its dry steps
 * count the FLOPs); elem_bytes: bytes per activation element on the wire. */
int fdm_enumerate(const network_t *net, const plan_t *p, int batch, int elem_bytes,
                  const fdm_machine *m, fdm_plan *out);

/* The index of the fastest candidate that fits, -1 when none or no machine. */
int fdm_choose(const fdm_plan *c, int n);

/* The candidates' table and the choice (--describe). */
void fdm_print(const network_t *net, const plan_t *p, int batch, FILE *f);

#endif
