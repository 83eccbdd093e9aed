/* The scaling model's arithmetic (harness/model/model.c, model_fit.c) on cases
 * worked out by hand in the comments; docs/model.md has the formulas. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/model/model.h"
#include "harness/model/model_orch.h"
#include "tests/unit/tap.h"

#define NEAR(x, y, rel) (fabs((double)(x) - (double)(y)) <= (rel) * fabs((double)(y)) + 1e-15)

static void test_flat_costs(void)
{
    mlink_t l = {1e-6, 1e-9, 1e-10};
    /* p = 4, n = 1e6: ring 2*3*1e-6 + 2*(3/4)*1e6*1e-9 + (3/4)*1e6*1e-10
     *                     = 6e-6 + 1.5e-3 + 7.5e-5 = 1.581e-3
     * tree (lg 4 = 2): 4e-6 + 1.5e-3 + 7.5e-5 = 1.579e-3
     * rd: 2 * (1e-6 + 1e-3 + 1e-4) = 2.202e-3 */
    T_ASSERT(NEAR(model_ring(1e6, 4, &l), 1.581e-3, 1e-12), "ring %g", model_ring(1e6, 4, &l));
    T_ASSERT(NEAR(model_tree(1e6, 4, &l), 1.579e-3, 1e-12), "tree %g", model_tree(1e6, 4, &l));
    T_ASSERT(NEAR(model_rd(1e6, 4, &l), 2.202e-3, 1e-12), "rd %g", model_rd(1e6, 4, &l));
    /* p = 5: lg = 3, so tree latency 6 a, rd 3 (a + n b + n g) */
    T_ASSERT(NEAR(model_tree(0, 5, &l), 6e-6, 1e-12), "tree p=5 %g", model_tree(0, 5, &l));
    T_ASSERT(NEAR(model_ring(0, 5, &l), 8e-6, 1e-12), "ring p=5 latency 2*4*a");
    T_ASSERT(model_ring(1e6, 1, &l) == 0 && model_tree(1e6, 1, &l) == 0 && model_rd(1e6, 1, &l) == 0,
             "one rank costs nothing");
    ar_algo_t u;
    /* 8 bytes at p = 4: ring 6e-6+, tree 4e-6+, rd 2*(1e-6 + 8e-9 + 8e-10) = 2.0176e-6 */
    double c = model_allreduce_flat(8, 4, &l, AR_AUTO, &u);
    T_ASSERT(u == AR_RD && NEAR(c, 2.0176e-6, 1e-9), "auto small: %s %g", ar_algo_name(u), c);
    c = model_allreduce_flat(1e6, 4, &l, AR_AUTO, &u);
    T_ASSERT(u == AR_TREE && NEAR(c, 1.579e-3, 1e-12), "auto large: %s", ar_algo_name(u));
    c = model_allreduce_flat(1e6, 4, &l, AR_RING, &u);
    T_ASSERT(u == AR_RING && NEAR(c, 1.581e-3, 1e-12), "forced ring");
    T_ASSERT(model_lg(1) == 0 && model_lg(2) == 1 && model_lg(3) == 2 && model_lg(1024) == 10 &&
                 model_lg(1025) == 11 && model_lg(27600) == 15, "ceil(log2 p)");
}

static void test_hierarchical(void)
{
    mnet_t net = {.ranks_per_node = 2, .hierarchical = 1, .intra = {1e-6, 1e-10, 0},
                  .inter = {5e-6, 1e-9, 0}, .algo = AR_RING};
    /* p = 8, g = 2, m = 4, n = 1e6:
     *   reduce-scatter in the node: 1e-6 + 0.5*1e6*1e-10 = 5.1e-5
     *   between nodes, ring of 5e5 bytes over 4 with beta 2e-9:
     *       2*3*5e-6 + 2*(3/4)*5e5*2e-9 = 3e-5 + 1.5e-3 = 1.53e-3
     *   allgather in the node: 5.1e-5          total 1.632e-3 */
    double c = model_allreduce(1e6, 8, &net, NULL);
    T_ASSERT(NEAR(c, 1.632e-3, 1e-12), "hierarchical %g", c);
    /* flat over the inter link: 2*7*5e-6 + 2*(7/8)*1e6*1e-9 = 7e-5 + 1.75e-3 */
    net.hierarchical = 0;
    c = model_allreduce(1e6, 8, &net, NULL);
    T_ASSERT(NEAR(c, 1.82e-3, 1e-12), "flat across nodes %g", c);
    /* within one node (p <= g): intra ring 2e-6 + 1e6*1e-10 = 1.02e-4 */
    c = model_allreduce(1e6, 2, &net, NULL);
    T_ASSERT(NEAR(c, 1.02e-4, 1e-12), "within a node %g", c);
}

static void test_negotiation_growth(void)
{
    mnet_t net = {.intra = {1e-6, 0, 0}, .inter = {1e-6, 0, 0}};
    mneg_t neg = {.coord_base_s = 1e-6, .coord_per_rank_s = 2e-6, .bv_base_s = 1e-6,
                  .bv_per_level_s = 1e-6};
    /* coordinator: 1e-6 + 2e-6 (p-1); bit vector: 1e-6 + 1e-6 lg p */
    T_ASSERT(NEAR(model_negotiation(&neg, &net, MO_COORDINATOR, 2, 0), 3e-6, 1e-12), "c p=2");
    T_ASSERT(NEAR(model_negotiation(&neg, &net, MO_COORDINATOR, 1000, 0), 1.999e-3, 1e-12), "c 1000");
    T_ASSERT(NEAR(model_negotiation(&neg, &net, MO_BITVECTOR, 1000, 0), 1.1e-5, 1e-12), "bv 1000");
    T_ASSERT(model_negotiation(&neg, &net, MO_COORDINATOR, 1, 5) == 0, "one rank: no negotiation");
    /* growth: coordinator x ~500 from 2 to 1000 ranks, bit vector x 5.5 */
    double gc = model_negotiation(&neg, &net, MO_COORDINATOR, 1000, 0) /
                model_negotiation(&neg, &net, MO_COORDINATOR, 2, 0);
    double gb = model_negotiation(&neg, &net, MO_BITVECTOR, 1000, 0) /
                model_negotiation(&neg, &net, MO_BITVECTOR, 2, 0);
    T_ASSERT(NEAR(gc, 1.999e-3 / 3e-6, 1e-9) && NEAR(gb, 5.5, 1e-12), "growth %g %g", gc, gb);
    /* from the collectives, a = 1e-6 everywhere, p = 4 (two tree levels): coordinator
     * gather 2a + bcast 2a (no requests: no gatherv); bit vector 2 rounds = 2a; 3
     * requests per rank: gatherv a + 1e-6 x 4 ranks x 3 of request cost: +13e-6 */
    neg = (mneg_t){.from_latency = 1};
    T_ASSERT(NEAR(model_negotiation(&neg, &net, MO_COORDINATOR, 4, 0), 4e-6, 1e-12), "latency c");
    T_ASSERT(NEAR(model_negotiation(&neg, &net, MO_BITVECTOR, 4, 0), 2e-6, 1e-12), "latency bv");
    neg.coord_per_request_s = 1e-6;
    T_ASSERT(NEAR(model_negotiation(&neg, &net, MO_COORDINATOR, 4, 3), 1.7e-5, 1e-12), "requests");
    T_ASSERT(NEAR(model_negotiation(&neg, &net, MO_BITVECTOR, 4, 3), 2e-6, 1e-12),
             "the bit vector sends no requests");
}

/* The orchestration cycle from its collectives on Summit's latencies (6 ranks per
 * node, 2 us within a node, 1 us between; no bandwidth term): a level pairing
 * ranks 1, 2 or 4 apart may stay in the node (2 us), one 8 or more apart crosses
 * (1 us).  1,024 ranks: 10 levels, 3 of them mixed: a tree 3 x 2 + 7 x 1 = 13 us;
 * coordinator gather 13 + gatherv (k = 1) 1 + bcast 13 = 27 us, bit vector 10
 * rounds 13 us: 2.08x (SMPI, docs/simulate.md: 26.3 and 13.0 us).  6,144: 13
 * levels, a tree 16 us; k = 27: 16 + 1 + 16 = 33 us (bytes free here); the bit
 * vector 12 rounds (3 x 2 + 9 x 1) + 2 extra steps of 2 us = 19 us (SMPI 18.0). */
static void test_orchestration_algorithms(void)
{
    mnet_t net = {.ranks_per_node = 6, .intra = {2e-6, 0, 0}, .inter = {1e-6, 0, 0}};
    morch_parts_t c, b;
    double tc = morch_cycle(&net, 1, 8, MO_COORDINATOR, 1024, 1, &c);
    double tb = morch_cycle(&net, 1, 8, MO_BITVECTOR, 1024, 1, &b);
    T_ASSERT(c.levels == 10 && c.mixed_levels == 3, "levels %d %d", c.levels, c.mixed_levels);
    T_ASSERT(NEAR(c.gather_s, 13e-6, 1e-12) && NEAR(c.gatherv_s, 1e-6, 1e-12) &&
             NEAR(c.bcast_s, 13e-6, 1e-12), "coordinator parts %g %g %g", c.gather_s,
             c.gatherv_s, c.bcast_s);
    T_ASSERT(NEAR(tc, 27e-6, 1e-12) && NEAR(tb, 13e-6, 1e-12), "1024: %g %g", tc, tb);
    T_ASSERT(b.rounds == 10 && b.extra_steps == 0, "rounds %d+%d", b.rounds, b.extra_steps);
    tc = morch_cycle(&net, 1, 8, MO_COORDINATOR, 6144, 27, NULL);
    tb = morch_cycle(&net, 1, 8, MO_BITVECTOR, 6144, 27, &b);
    T_ASSERT(NEAR(tc, 33e-6, 1e-12) && NEAR(tb, 19e-6, 1e-12), "6144: %g %g", tc, tb);
    T_ASSERT(b.rounds == 12 && b.extra_steps == 2, "rounds %d+%d", b.rounds, b.extra_steps);
    /* no requests (an idle cycle): no gatherv; the latency scale multiplies all */
    tc = morch_cycle(&net, 2, 8, MO_COORDINATOR, 1024, 0, NULL);
    T_ASSERT(NEAR(tc, 52e-6, 1e-12), "idle, scaled %g", tc);
    T_ASSERT(morch_cycle(&net, 1, 8, MO_BITVECTOR, 1, 0, NULL) == 0, "one rank");
    /* bandwidth: 6,144 ranks send 27 requests (108 B) to rank 0 at 25 GB/s: 26.5 us */
    net.inter.beta_s = 1 / 25e9;
    morch_cycle(&net, 1, 8, MO_COORDINATOR, 6144, 27, &c);
    T_ASSERT(NEAR(c.gatherv_s, 1e-6 + 6143 * 108 / 25e9, 1e-12), "gatherv bytes %g", c.gatherv_s);
    T_ASSERT(NEAR(morch_bv_bytes(27), 8, 0) && NEAR(morch_bv_bytes(63), 16, 0), "bit vector words");
}

/* three layers A, B, C of 100, 200, 300 bytes, made at 10, 20, 30 ms of a
 * 50 ms step; p = 2 on a ring with 2a = 1 ms and b = 1e-5 s/B, so a reduction
 * of n bytes costs 1 ms + n * 0.01 ms: A 2 ms, B 3 ms, C 4 ms */
static mtensor_t three[3] = {{"A.w", "A", 100, 0.010}, {"B.w", "B", 200, 0.020},
                             {"C.w", "C", 300, 0.030}};
static const mwork_t work3 = {three, 3, 0.050, 0.030, 0};
static const mnet_t net3 = {.intra = {0.0005, 1e-5, 0}, .inter = {0.0005, 1e-5, 0}, .algo = AR_RING};

static void test_overlap_three_groups(void)
{
    mneg_t neg = {.bv_base_s = 0.0005, .coord_base_s = 0.003};
    mmode_t m = {MO_BITVECTOR, MG_LAYER, 0, 1000, 0.004};
    int scratch[3];
    mgtime_t gt[3];
    mresult_t r;
    /* bit vector, cycle 4 ms, negotiation 0.5 ms: cycles at 0, 4, 8 idle; at 12 A
     * (12.5 -> 14.5); 16 idle; at 20 B (20.5 -> 23.5); 24, 28 idle; at 32 C (32.5 ->
     * 36.5).  Exposed 36.5 - 30 = 6.5 ms; 9 cycles, 4.5 ms negotiation, 9 ms comm;
     * step 56.5 ms, efficiency 50 / 56.5 */
    T_ASSERT(model_predict(&work3, &m, &net3, &neg, 2, scratch, gt, &r) == 0, "predict");
    T_ASSERT(r.ngroups == 3 && r.cycles == 9 && r.reductions == 3, "groups %d cycles %d red %d",
             r.ngroups, r.cycles, r.reductions);
    T_ASSERT(NEAR(r.exposed_s, 0.0065, 1e-9) && NEAR(r.negotiation_s, 0.0045, 1e-9) &&
                 NEAR(r.comm_s, 0.009, 1e-9), "exposed %g negotiation %g comm %g", r.exposed_s,
             r.negotiation_s, r.comm_s);
    T_ASSERT(NEAR(r.step_s, 0.0565, 1e-9) && NEAR(r.efficiency, 0.05 / 0.0565, 1e-9), "step %g eff %g",
             r.step_s, r.efficiency);
    double want[3][3] = {{0.010, 0.0125, 0.0145}, {0.020, 0.0205, 0.0235}, {0.030, 0.0325, 0.0365}};
    for (int k = 0; k < 3; k++)
        T_ASSERT(NEAR(gt[k].ready_s, want[k][0], 1e-9) && NEAR(gt[k].start_s, want[k][1], 1e-9) &&
                     NEAR(gt[k].end_s, want[k][2], 1e-9),
                 "group %d: [%g %g %g]", k, gt[k].ready_s, gt[k].start_s, gt[k].end_s);
    /* coordinator, 3 ms per cycle: 0, 4, 8 idle; at 12 A (15 -> 17); 17 idle (next at 21);
     * at 21 B (24 -> 27); 27 idle; at 31 C (34 -> 38): exposed 8 ms, 8 cycles, 24 ms */
    m.orch = MO_COORDINATOR;
    T_ASSERT(model_predict(&work3, &m, &net3, &neg, 2, scratch, gt, &r) == 0, "predict");
    T_ASSERT(NEAR(r.exposed_s, 0.008, 1e-9) && r.cycles == 8 && NEAR(r.negotiation_s, 0.024, 1e-9),
             "coordinator: exposed %g cycles %d negotiation %g", r.exposed_s, r.cycles,
             r.negotiation_s);
    /* one rank: nothing to reduce, the step is the measured one */
    T_ASSERT(model_predict(&work3, &m, &net3, &neg, 1, scratch, NULL, &r) == 0 &&
                 r.step_s == 0.050 && r.efficiency == 1 && r.exposed_s == 0, "p = 1");
}

static void test_fusion(void)
{
    mneg_t neg = {.bv_base_s = 0.0005};
    mmode_t m = {MO_BITVECTOR, MG_LAYER, 0, 1000, 0.040};
    int scratch[3];
    mgtime_t gt[3];
    mresult_t r;
    /* cycle 40 ms: at 0 idle, at 40 all three ready: one fused reduction of 600 B,
     * 40.5 -> 47.5 (1 + 6 ms): exposed 17.5 ms */
    T_ASSERT(model_predict(&work3, &m, &net3, &neg, 2, scratch, gt, &r) == 0, "predict");
    T_ASSERT(r.reductions == 1 && r.cycles == 2 && NEAR(r.exposed_s, 0.0175, 1e-9),
             "fused: %d reductions, %d cycles, exposed %g", r.reductions, r.cycles, r.exposed_s);
    for (int k = 0; k < 3; k++)
        T_ASSERT(NEAR(gt[k].start_s, 0.0405, 1e-9) && NEAR(gt[k].end_s, 0.0475, 1e-9), "group %d", k);
    /* fusion 250 B: A alone (40.5 -> 42.5), B (-> 45.5), C (-> 49.5): exposed 19.5 ms */
    m.fusion_bytes = 250;
    T_ASSERT(model_predict(&work3, &m, &net3, &neg, 2, scratch, gt, &r) == 0, "predict");
    T_ASSERT(r.reductions == 3 && NEAR(r.exposed_s, 0.0195, 1e-9) && NEAR(gt[1].start_s, 0.0425, 1e-9) &&
                 NEAR(gt[2].end_s, 0.0495, 1e-9),
             "unfused: %d reductions, exposed %g", r.reductions, r.exposed_s);
}

static void test_groups(void)
{
    mtensor_t t[5] = {{"a.b", "a", 10, 0}, {"a.w", "a", 10, 0}, {"b.w", "b", 10, 0},
                      {"c.w", "c", 10, 0}, {"d.w", "d", 60, 0}};
    mwork_t w = {t, 5, 1, 0, 0};
    int g[5];
    mmode_t m = {MO_BITVECTOR, MG_COUNT, 2, 1e9, 0};
    /* 100 bytes in 2 groups: the first closes at 50 bytes or when the one tensor left
     * must start the last group: 10+10+10+10 (40 < 50) then d alone */
    T_ASSERT(model_groups(&w, &m, g) == 2 && g[0] == 0 && g[3] == 0 && g[4] == 1, "by bytes");
    t[0].bytes = 60, t[4].bytes = 10; /* 60 first: it closes group 0 at once */
    T_ASSERT(model_groups(&w, &m, g) == 2 && g[0] == 0 && g[1] == 1 && g[4] == 1, "by bytes 2");
    m.grouping = MG_LAYER;
    T_ASSERT(model_groups(&w, &m, g) == 4 && g[0] == 0 && g[1] == 0 && g[2] == 1 && g[4] == 3, "layer");
    m.grouping = MG_NONE;
    T_ASSERT(model_groups(&w, &m, g) == 5 && g[4] == 4, "none");
    m.grouping = MG_COUNT, m.groups = 9;
    T_ASSERT(model_groups(&w, &m, g) == 5, "more groups than tensors: one each");
}

static void test_stragglers(void)
{
    T_ASSERT(model_max_normal(1) == 0, "z(1)");
    T_ASSERT(NEAR(model_max_normal(2), 0.5641896, 1e-6), "z(2) = 1/sqrt(pi)");
    T_ASSERT(NEAR(model_max_normal(3), 0.8462844, 1e-6), "z(3) = 3/(2 sqrt(pi))");
    /* E[max of 1000 normals] = 3.2414 (tables); Blom's approximation within 0.02 */
    T_ASSERT(fabs(model_max_normal(1000) - 3.2414) < 0.02, "z(1000) %g", model_max_normal(1000));
    T_ASSERT(model_max_normal(27600) > model_max_normal(6000), "grows with p");
    mwork_t w = work3;
    w.jitter_cv = 0.1;
    mneg_t neg = {.bv_base_s = 0.0005};
    mmode_t m = {MO_BITVECTOR, MG_LAYER, 0, 1000, 0.004};
    int scratch[3];
    mresult_t r;
    /* 56.5 ms as above plus 50 ms * 0.1 * 0.5642 = 2.821 ms */
    T_ASSERT(model_predict(&w, &m, &net3, &neg, 2, scratch, NULL, &r) == 0, "predict");
    T_ASSERT(NEAR(r.straggler_s, 0.05 * 0.1 / sqrt(M_PI), 1e-9) &&
                 NEAR(r.step_s, 0.0565 + 0.05 * 0.1 / sqrt(M_PI), 1e-9),
             "straggler %g step %g", r.straggler_s, r.step_s);
}

static void test_fits(void)
{
    /* times from a = 2e-6, b = 1e-9 on the ring model at p = 2 and 4 */
    double bytes[8], t[8];
    int p[8];
    for (int i = 0; i < 8; i++) {
        p[i] = i < 4 ? 2 : 4;
        bytes[i] = pow(16, i % 4) * 64;
        t[i] = 2.0 * (p[i] - 1) * 2e-6 + 2.0 * (p[i] - 1) / p[i] * bytes[i] * 1e-9;
    }
    mlink_t l;
    double rms;
    T_ASSERT(model_fit_ring(bytes, p, t, 8, &l, &rms) == 0, "fit");
    T_ASSERT(NEAR(l.alpha_s, 2e-6, 1e-6) && NEAR(l.beta_s, 1e-9, 1e-6) && rms < 1e-9,
             "a %g b %g rms %g", l.alpha_s, l.beta_s, rms);
    int one[1] = {1};
    T_ASSERT(model_fit_ring(bytes, one, t, 1, &l, NULL) == -1, "one rank rows cannot fit");
    double x[3] = {0, 1, 2}, y[3] = {1, 3, 5}, c0, c1;
    T_ASSERT(model_fit_line(x, y, 3, &c0, &c1) == 0 && NEAR(c0, 1, 1e-12) && NEAR(c1, 2, 1e-12),
             "line %g %g", c0, c1);
    double yd[3] = {5, 3, 1}; /* falling: a negative slope is clamped to 0, mean kept */
    T_ASSERT(model_fit_line(x, yd, 3, &c0, &c1) == 0 && c1 == 0 && NEAR(c0, 3, 1e-12),
             "clamped %g %g", c0, c1);
    double x1[2] = {2, 2}, y1[2] = {4, 6}; /* one x: through the origin */
    T_ASSERT(model_fit_line(x1, y1, 2, &c0, &c1) == 0 && c0 == 0 && NEAR(c1, 2.5, 1e-12), "one x");
}

static void test_modes(void)
{
    mmode_t m;
    char buf[64];
    T_ASSERT(model_mode_parse("bitvector+layer", &m) == 0 && m.orch == MO_BITVECTOR &&
                 m.grouping == MG_LAYER, "bitvector+layer");
    T_ASSERT(model_mode_parse("coordinator+7", &m) == 0 && m.orch == MO_COORDINATOR &&
                 m.grouping == MG_COUNT && m.groups == 7 &&
                 !strcmp(model_mode_name(&m, buf, sizeof buf), "coordinator+7"), "coordinator+7");
    T_ASSERT(model_mode_parse("bitvector+", &m) && model_mode_parse("foo+none", &m) &&
                 model_mode_parse("bitvector", &m) && model_mode_parse("bitvector+0", &m),
             "bad modes refused");
    mneg_t neg = {0};
    mmode_t bad = {MO_BITVECTOR, MG_LAYER, 0, 0, 0.001}; /* fusion 0 */
    int scratch[3];
    mresult_t r;
    T_ASSERT(model_predict(&work3, &bad, &net3, &neg, 2, scratch, NULL, &r) == -1, "fusion 0");
    mwork_t empty = {NULL, 0, 1, 0, 0};
    bad.fusion_bytes = 1;
    T_ASSERT(model_predict(&empty, &bad, &net3, &neg, 2, scratch, NULL, &r) == -1, "no tensors");
}

int main(void)
{
    T_RUN(test_flat_costs);
    T_RUN(test_hierarchical);
    T_RUN(test_negotiation_growth);
    T_RUN(test_orchestration_algorithms);
    T_RUN(test_overlap_three_groups);
    T_RUN(test_fusion);
    T_RUN(test_groups);
    T_RUN(test_stragglers);
    T_RUN(test_fits);
    T_RUN(test_modes);
    T_DONE();
}
