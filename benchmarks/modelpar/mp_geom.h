/* mp_geom: the layers of the locally connected autoencoder and their
 * partition over the tiles of a model group, with every count the
 * benchmark states (parameters, FLOPs, bytes) in exact integers
 * (benchmarks/common/count.h).  The instance (mp_net) allocates and
 * exchanges exactly what these formulas say; tests/it/modelpar.sh counts
 * them again by another route.
 *
 * Layer l maps ci channels to co channels at every one of the size x size
 * positions; position (y, x) has its own weights [co][kernel][kernel][ci]
 * (untied) and biases [co], over the input window centred on it ('same'
 * padding: zeros outside the image).  A rank's shard is, per layer, the
 * weights then the biases of the positions of its tile, row-major.
 *
 * defines: mp_layer, mp_geom, mp_geom_make, mp_geom_flops, mp_geom_halo_bytes,
 *          mp_geom_tp_bytes, mp_geom_bytes, mp_geom_rank_bytes, mp_lc_id, MP_LAYERS */
#ifndef MODELPAR_MP_GEOM_H
#define MODELPAR_MP_GEOM_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/modelpar/mp_config.h"

#define MP_LAYERS 3

typedef struct {
    char name[8];       /* "lc1" */
    int ci, co, pad;    /* pad = (kernel - 1) / 2: the halo width */
    int in;             /* ci * kernel * kernel: a position's receptive field */
    int64_t off_w, off_b; /* floats from the start of the rank's shard */
    int64_t params_rank;  /* tile * co * (in + 1) */
    int64_t params_total; /* positions * co * (in + 1) */
} mp_layer;

typedef struct {
    mp_cfg cfg;
    mp_layer layer[MP_LAYERS];
    int64_t positions;  /* size * size */
    int M, gy, gx;      /* model ranks and their grid of tiles */
    int th, tw;         /* a tile's rows and columns of positions */
    int64_t tile;       /* th * tw */
    int ranks, groups;  /* ranks of the job; model groups (data-parallel replicas) */
    int shard, ty, tx;  /* this rank: its place in its group and its tile */
    int64_t params_total, params_rank;
    /* the tensor-parallel dense pair (cfg.dense = D > 0) after lc2, per position
     * with weights shared by all positions (a transformer's MLP over positions
     * as tokens): tp1 [D][hidden2] split by rows (column-parallel: D/M hidden
     * units a rank), tp2 [hidden2][D] split by columns (row-parallel); no
     * biases.  A rank's slices follow its layers in its shard. */
    int dslice;                 /* D / M */
    int64_t off_tp1, off_tp2;   /* floats from the start of the shard */
    int64_t tp_params_rank;     /* 2 * dslice * hidden2 */
} mp_geom;

/* Parameter layer ids in forward order (network.h): lc1, lc2, then tp1 and
 * tp2 when there is a dense pair, then lc3. */
static inline int mp_lc_id(const mp_geom *g, int l) { return l < 2 ? l : (g->dslice ? 4 : 2); }

/* The layers and the partition of c over `ranks` ranks, for `rank`.  0, or
 * -1 with one line in err: more model ranks than positions, a grid that
 * does not multiply to the model ranks or does not divide the positions,
 * tiles narrower than the halo, ranks that do not form model groups. */
int mp_geom_make(mp_geom *g, const mp_cfg *c, int ranks, int rank, char *err, size_t errlen);

/* FLOPs one rank executes in forward and backward (no optimizer) at batch n,
 * as the counted kernels add them; whole: the whole model on one rank. */
int64_t mp_geom_flops(const mp_geom *g, int64_t n, int whole);

/* Tensor-parallel bytes a rank sends per step at batch n (forward and
 * backward: two allgathers and two reduce-scatters of the pair's input and
 * output, (M-1)/M of the whole each, the ring's count). */
int64_t mp_geom_tp_bytes(const mp_geom *g, int64_t n);

/* Halo bytes (fp32) sent per step at batch n, forward and backward: by this
 * rank (rank_bytes) and by all ranks of a model group (returned). */
int64_t mp_geom_halo_bytes(const mp_geom *g, int64_t n, int64_t *rank_bytes);

/* Bytes the instance allocates on this rank at batch n (weights, gradients,
 * activations with halos, gradients of activations, patches, staging). */
int64_t mp_geom_bytes(const mp_geom *g, int64_t n);
/* The memory high-water mark of a rank the formula predicts: its buffers,
 * the optimizer's state and the one fp32 copy of its shard the runtime
 * makes (first weights, the end-of-run identity hash). */
int64_t mp_geom_rank_bytes(const mp_geom *g, int64_t n);
/* The staging buffer of one halo message, in floats (max over layers). */
int64_t mp_geom_stage_floats(const mp_geom *g, int64_t n);

#endif
