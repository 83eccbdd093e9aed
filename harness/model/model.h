/* model: the data-parallel scaling model of docs/model.md.  From a single-rank
 * step (its time, and when backward makes each gradient tensor), a network (the
 * alpha-beta-gamma cost of an allreduce within and between nodes) and the
 * gradient-reduction engine's settings (orchestration, grouping, fusion, cycle
 * time), it replays the engine's cycles at p ranks: each cycle costs one
 * negotiation, releases the groups whose tensors are all ready, and reduces them
 * one fused buffer after another; what ends after backward is exposed and adds
 * to the step.  Pure arithmetic: no I/O, no allocation the caller does not see. */
#ifndef EXADL_HARNESS_MODEL_H
#define EXADL_HARNESS_MODEL_H

#include <stddef.h>

/* One level of the network: alpha seconds per message (latency), beta seconds
 * per byte (1 / bandwidth), gamma seconds per byte reduced (the sum's cost). */
typedef struct {
    double alpha_s, beta_s, gamma_s;
} mlink_t;

typedef enum { AR_AUTO = 0, AR_RING, AR_TREE, AR_RD } ar_algo_t;
const char *ar_algo_name(ar_algo_t a);
/* "auto", "ring", "tree", "rd": 0, or -1 when unknown. */
int ar_algo_parse(const char *s, ar_algo_t *out);

/* Flat allreduce of n bytes over p ranks (docs/model.md "Formulas"):
 *   ring          2(p-1) a + 2 (p-1)/p n b + (p-1)/p n g
 *   tree          2 lg p a + 2 (p-1)/p n b + (p-1)/p n g   (Rabenseifner)
 *   rd            lg p (a + n b + n g)                      (recursive doubling)
 * lg p = ceil(log2 p).  0 for p <= 1. */
double model_ring(double n, int p, const mlink_t *l);
double model_tree(double n, int p, const mlink_t *l);
double model_rd(double n, int p, const mlink_t *l);
/* AR_AUTO takes the cheapest of the three, as a tuned library would; *used
 * (may be NULL) says which. */
double model_allreduce_flat(double n, int p, const mlink_t *l, ar_algo_t algo, ar_algo_t *used);

typedef struct {
    int ranks_per_node;   /* 0: every rank on one node */
    int hierarchical; /* across nodes: reduce-scatter in the node, allreduce between, allgather */
    mlink_t intra;        /* within a node (per rank) */
    mlink_t inter;        /* between nodes: beta per byte of the node's injection bandwidth */
    ar_algo_t algo;
} mnet_t;

/* Allreduce of n bytes over p ranks.  Within one node: flat on intra.  Across
 * nodes, flat: the algorithm over p ranks on inter.  Hierarchical (g ranks per
 * node, m = ceil(p/g) nodes):
 *   (g-1) a_i + (g-1)/g n b_i + (g-1)/g n g_i          reduce-scatter in the node
 * + AR(n/g over m nodes; a_e, g b_e, g_e)               g shards share the node's injection
 * + (g-1) a_i + (g-1)/g n b_i                           allgather in the node */
double model_allreduce(double n, int p, const mnet_t *net, ar_algo_t *used);

typedef enum { MO_COORDINATOR = 0, MO_BITVECTOR = 1 } morch_t;
typedef enum { MG_NONE = 0, MG_LAYER = 1, MG_COUNT = 2 } mgroup_t;

/* Cost of one orchestration cycle at p ranks (0 at p = 1: one rank needs none).
 * from_latency (the default: no negotiation constants given or fitted): from
 * the collectives the cycle runs, by the algorithms Open MPI picks for their
 * sizes, on the network's latencies times lat_scale (model_orch.h):
 *   coordinator  binomial gather + linear gatherv of k requests + binomial bcast
 *   bit vector   recursive-doubling allreduce of bv_bytes
 * Otherwise the fitted or given constants:
 *   coordinator  c0 + c_rank (p-1) + c_level lg p
 *   bit vector   b0 + b_level lg p
 * k: tensors that became ready since the previous cycle (each rank sends rank
 * 0 one request per tensor); c_req p k is added in coordinator mode either way
 * (rank 0's software cost per request). */
typedef struct {
    int from_latency;
    double coord_base_s, coord_per_rank_s, coord_per_level_s;
    double coord_per_request_s; /* applies with from_latency too (0 unless given) */
    double bv_base_s, bv_per_level_s;
    double lat_scale;           /* from_latency: latencies x this (0 or 1: as given) */
    double bv_bytes;            /* from_latency: the bit vector's bytes (0: one word) */
} mneg_t;
double model_negotiation(const mneg_t *neg, const mnet_t *net, morch_t o, int p, int k);

/* One gradient tensor, in backward order. */
typedef struct {
    const char *name;
    const char *layer;  /* layer grouping puts consecutive tensors of one layer together */
    double bytes;
    double ready_s;     /* when backward made it, from the step's start (one rank) */
} mtensor_t;

typedef struct {
    mtensor_t *t;
    size_t nt;
    double step_s;          /* the single-rank step: compute with nothing to reduce */
    double backward_end_s;  /* the last gradient is made */
    double jitter_cv;       /* step-time variation of one rank (std / mean; 0: none) */
} mwork_t;

/* E[max of p independent standard normals]: exact for p <= 3 (0, 1/sqrt(pi),
 * 3/(2 sqrt(pi))), else Blom's Phi^-1((p - 0.375) / (p + 0.25)).  A step of p
 * ranks waits for the slowest: compute T(1) (1 + cv z(p)). */
double model_max_normal(int p);

typedef struct {
    morch_t orch;
    mgroup_t grouping;
    int groups;             /* MG_COUNT */
    double fusion_bytes;    /* largest fused reduction */
    double cycle_s;         /* a cycle starts at most this often */
} mmode_t;
/* "coordinator+none", "bitvector+layer", "bitvector+4": 0, or -1. */
int model_mode_parse(const char *s, mmode_t *m);
/* The same text for m (buf of at least 40 bytes). */
const char *model_mode_name(const mmode_t *m, char *buf, size_t len);

/* Groups of the workload's tensors as the engine forms them (gsync.c):
 * none = one per tensor, layer = consecutive tensors of one layer, count = N
 * contiguous groups of about equal bytes.  group_of has nt entries.  Returns
 * the number of groups. */
int model_groups(const mwork_t *w, const mmode_t *m, int *group_of);

typedef struct {
    double ready_s, start_s, end_s;
} mgtime_t;

typedef struct {
    int p;
    double step_s;          /* T(p) = T(1) (1 + cv z(p)) + exposed */
    double straggler_s;     /* T(1) cv z(p): waiting for the slowest rank */
    double efficiency;      /* T(1) / T(p): weak scaling, fixed batch per rank */
    double efficiency_no_straggler; /* the same without the straggler term (model_compute) */
    double exposed_s;       /* reductions ending after backward */
    double negotiation_s;   /* all cycles of the step */
    double comm_s;          /* all reductions of the step */
    double end_s;           /* the last reduction ends, from the step's start */
    int cycles, reductions, ngroups;
    int by_algo[4];         /* reductions by the algorithm used (index ar_algo_t) */
} mresult_t;

/* Replay the engine at p ranks.  gt (may be NULL) gets one entry per group.
 * group_of: nt ints of scratch.  Returns 0, or -1 when the inputs cannot give a
 * step (no tensors, negative sizes, a cycle that never advances). */
int model_predict(const mwork_t *w, const mmode_t *m, const mnet_t *net, const mneg_t *neg,
                  int p, int *group_of, mgtime_t *gt, mresult_t *r);

/* ---- fits (model_fit.c) ---------------------------------------------------- */
/* alpha and beta of the ring model from allreduce times: row i moved bytes[i]
 * over p[i] ranks in time_s[i].  Least squares on relative error (each row
 * divided by its time, so that 4 B and 16 MiB count alike); gamma is folded
 * into beta.  A negative coefficient is set to 0 and the other refitted.
 * Returns 0, or -1 when fewer than one usable row (p >= 2, time > 0). */
int model_fit_ring(const double *bytes, const int *p, const double *time_s, size_t n,
                   mlink_t *out, double *rms_rel);
/* y = c0 + c1 x by ordinary least squares; one distinct x gives c0 = 0 and
 * the line through the origin.  Negative coefficients are clamped as above. */
int model_fit_line(const double *x, const double *y, size_t n, double *c0, double *c1);
/* ceil(log2 p), 0 for p <= 1. */
int model_lg(int p);

#endif
