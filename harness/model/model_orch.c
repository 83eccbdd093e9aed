/* The orchestration cycle from its collectives (model_orch.h).  Which
 * algorithm: Open MPI's coll/tuned fixed decision rules for the sizes the
 * orchestration sends (8-byte headers, requests of 4 bytes per tensor, a bit
 * vector of one or a few words): ompi_coll_tuned_gather_intra_dec_fixed
 * (coll_tuned_decision_fixed.c) takes the binomial gather
 * (ompi_coll_base_gather_intra_binomial, coll_base_gather.c) for small blocks;
 * ompi_coll_tuned_bcast_intra_dec_fixed the binomial broadcast
 * (ompi_coll_base_bcast_intra_binomial, coll_base_bcast.c) for small messages;
 * ompi_coll_tuned_allreduce_intra_dec_fixed recursive doubling
 * (ompi_coll_base_allreduce_intra_recursivedoubling, coll_base_allreduce.c)
 * for small messages, with its pre- and post-step for non-powers of two;
 * Gatherv has no tuned decision and is linear
 * (ompi_coll_base_gatherv_intra_basic_linear, coll_base_gatherv.c), which
 * skips ranks with a count of 0.  The SMPI runs (docs/simulate.md) name the
 * same algorithms. */
#include "harness/model/model_orch.h"

#include <math.h>

double morch_bv_bytes(int ntensors)
{
    int words = (ntensors + 2 + 63) / 64;
    return 8.0 * (words > 0 ? words : 1);
}

/* the levels of a tree or butterfly over p ranks that pair ranks within one
 * node and the next (2^j < g); the rest cross nodes */
static int mixed_levels(const mnet_t *net, int levels, int p)
{
    int g = net->ranks_per_node;
    if (g <= 0 || p <= g) return levels;
    int m = model_lg(g);
    return m < levels ? m : levels;
}

/* latency and seconds per byte of a level: one node, mixed, across nodes */
static void level_cost(const mnet_t *net, int p, int mixed, double s, double *a, double *b)
{
    int g = net->ranks_per_node;
    if (g <= 0 || p <= g) {
        *a = s * net->intra.alpha_s, *b = net->intra.beta_s;
    } else if (mixed) {
        *a = s * fmax(net->intra.alpha_s, net->inter.alpha_s);
        *b = fmax(net->intra.beta_s, net->inter.beta_s);
    } else {
        *a = s * net->inter.alpha_s, *b = net->inter.beta_s;
    }
}

/* levels binomial levels, each moving bytes_per_level bytes: the header's way
 * down (broadcast) or up (gather, whose bytes are added by the caller) */
static double tree_s(const mnet_t *net, int p, int levels, int mixed, double s,
                     double bytes_per_level)
{
    double t = 0, a, b;
    for (int j = 0; j < levels; j++) {
        level_cost(net, p, j < mixed, s, &a, &b);
        t += a + bytes_per_level * b;
    }
    return t;
}

double morch_cycle(const mnet_t *net, double lat_scale, double bv_bytes, morch_t o, int p,
                   double k, morch_parts_t *parts)
{
    morch_parts_t z = {0};
    if (!parts) parts = &z;
    *parts = z;
    if (p <= 1) return 0;
    double s = lat_scale > 0 ? lat_scale : 1, a, b;
    int L = model_lg(p), mix = mixed_levels(net, L, p);
    parts->levels = L, parts->mixed_levels = mix;
    if (o == MO_BITVECTOR) {
        double n = bv_bytes > 0 ? bv_bytes : 8;
        int r = 0;
        while ((2LL << r) <= p) r++;
        int mr = mixed_levels(net, r, p);
        parts->rounds = r, parts->extra_steps = (1LL << r) == p ? 0 : 2;
        double t = 0;
        for (int j = 0; j < r; j++) {
            level_cost(net, p, j < mr, s, &a, &b);
            double gm = j < mr || net->ranks_per_node <= 0 || p <= net->ranks_per_node
                            ? net->intra.gamma_s : net->inter.gamma_s;
            t += a + n * b + n * gm;
        }
        /* the extra ranks hand their vector to a neighbour and get the result
         * back: two steps between ranks r and r+1 (one node, or mixed) */
        level_cost(net, p, 1, s, &a, &b);
        t += parts->extra_steps * (a + n * b);
        return parts->allreduce_s = t;
    }
    /* coordinator: the binomial gather carries subtrees that double each
     * level, (p - 1) headers of 8 bytes into rank 0 in all */
    level_cost(net, p, 0, s, &a, &b);
    parts->gather_s = tree_s(net, p, L, mix, s, 0) + 8.0 * (p - 1) * b;
    /* Gatherv: ranks with requests send them straight to rank 0; the messages
     * arrive together, their bytes share rank 0's link */
    if (k > 0) parts->gatherv_s = a + 4.0 * k * (p - 1) * b;
    /* the header (8 bytes) down the tree, the list (4 k bytes) behind it */
    parts->bcast_s = tree_s(net, p, L, mix, s, 8.0 + 4.0 * k);
    return parts->gather_s + parts->gatherv_s + parts->bcast_s;
}

/* model.h's negotiation: the collectives' model (from_latency), else the
 * fitted or given constants */
double model_negotiation(const mneg_t *neg, const mnet_t *net, morch_t o, int p, int k)
{
    if (p <= 1) return 0;
    int lg = model_lg(p);
    double req = o == MO_COORDINATOR ? neg->coord_per_request_s * p * k : 0;
    if (neg->from_latency)
        return morch_cycle(net, neg->lat_scale, neg->bv_bytes, o, p, k, NULL) + req;
    if (o == MO_COORDINATOR)
        return neg->coord_base_s + neg->coord_per_rank_s * (p - 1) + neg->coord_per_level_s * lg +
               req;
    return neg->bv_base_s + neg->bv_per_level_s * lg;
}

void morch_print(FILE *f, const mnet_t *net, const mneg_t *neg, int ntensors, const int *scales,
                 size_t ns)
{
    double bv = neg->bv_bytes > 0 ? neg->bv_bytes : morch_bv_bytes(ntensors);
    fprintf(f, "orchestration: one cycle from its collectives (Open MPI's algorithms for these "
               "sizes), latencies x %.3g, one request per rank:\n",
            neg->lat_scale > 0 ? neg->lat_scale : 1);
    fprintf(f, "%9s %8s %12s %12s %12s %14s %16s %8s\n", "scale", "levels", "gather_us",
            "gatherv_us", "bcast_us", "coordinator_us", "bitvector_us", "ratio");
    for (size_t i = 0; i < ns; i++) {
        morch_parts_t c, b;
        double tc = morch_cycle(net, neg->lat_scale, bv, MO_COORDINATOR, scales[i], 1, &c);
        double tb = morch_cycle(net, neg->lat_scale, bv, MO_BITVECTOR, scales[i], 1, &b);
        if (scales[i] < 2) continue;
        char rounds[32];
        snprintf(rounds, sizeof rounds, "%.2f (%d+%d)", tb * 1e6, b.rounds, b.extra_steps);
        fprintf(f, "%9d %8d %12.2f %12.2f %12.2f %14.2f %16s %8.3f\n", scales[i], c.levels,
                c.gather_s * 1e6, c.gatherv_s * 1e6, c.bcast_s * 1e6, tc * 1e6, rounds,
                tb > 0 ? tc / tb : NAN);
    }
    fprintf(f, "  (coordinator: binomial gather + linear gatherv + binomial bcast; bit vector: "
               "recursive-doubling allreduce, rounds + extra steps)\n\n");
}
