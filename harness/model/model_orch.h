/* model_orch: one orchestration cycle's cost from the collectives it runs
 * (benchmarks/common/mpi/orch.c), costed by the algorithms Open MPI's tuned
 * component picks for the sizes involved (docs/model.md "Orchestration"):
 *
 *   coordinator  Gather of a 2-int header (binomial tree), Gatherv of each
 *                rank's k new requests (linear: rank 0 receives from every
 *                rank with requests; ranks with none send nothing), Bcast of
 *                the 2-int decision header (binomial tree) and of the list,
 *                which follows the header down the same tree;
 *   bit vector   Allreduce(BAND) of the bit vector, a few 8-byte words
 *                (recursive doubling; two extra steps folding the ranks
 *                beyond the largest power of two in and out).
 *
 * A tree or butterfly level whose partner is 2^j ranks away costs the
 * intra-node latency when p fits one node; with g ranks per node, levels with
 * 2^j < g pair ranks of the same node and of the next one (the round waits for
 * the slower: max of both latencies), levels with 2^j >= g cross nodes.  All
 * latencies are multiplied by lat_scale (1, or fitted to a run's orchestration
 * benchmark by --calibrate-from).  The coordinator's three collectives are one
 * after another on the critical path (leaves to rank 0 and back); the two
 * broadcasts overlap (the list is sent right behind the header). */
#ifndef EXADL_HARNESS_MODEL_ORCH_H
#define EXADL_HARNESS_MODEL_ORCH_H

#include <stdio.h>

#include "harness/model/model.h"

typedef struct {
    double gather_s, gatherv_s, bcast_s; /* coordinator's parts */
    double allreduce_s;                  /* the bit vector's */
    int levels;        /* tree levels, ceil(log2 p) */
    int mixed_levels;  /* of them, pairing ranks within and across nodes */
    int rounds;        /* recursive doubling rounds: floor(log2 p) */
    int extra_steps;   /* 2 when p is not a power of two, else 0 */
} morch_parts_t;

/* Bytes of the bit vector for T tensors: T bits plus 2 flag bits, in 8-byte
 * words (orch.c). */
double morch_bv_bytes(int ntensors);

/* One cycle at p ranks, k requests per rank (the coordinator's Gatherv, 4
 * bytes each; as many tensors released, listed in the broadcast).  bv_bytes:
 * the bit vector's size (0: one word).  parts may be NULL.  0 for p <= 1. */
double morch_cycle(const mnet_t *net, double lat_scale, double bv_bytes, morch_t o, int p,
                   double k, morch_parts_t *parts);

/* The table of one cycle's parts at each scale (exadl model's output). */
void morch_print(FILE *f, const mnet_t *net, const mneg_t *neg, int ntensors, const int *scales,
                 size_t ns);

#endif
