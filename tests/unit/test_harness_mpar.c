/* The model-parallel step model's arithmetic (harness/model/mpar.c) on cases
 * worked by hand: the grid it picks, the bytes of each exchange (the tiny
 * preset's halo and tensor-parallel bytes are those modelpar's records
 * count, tests/it/modelpar.sh), each term of a prediction on a given
 * network, and the configurations it refuses.  The model against a real
 * run: tests/it/modelpar_harness.sh. */
#include <math.h>
#include <stdio.h>

#include "harness/model/mpar.h"
#include "tests/unit/tap.h"

/* tiny: 8 x 8 positions, 1 channel, hidden 4 and 4, kernel 3 (halo 1),
 * 14,400 parameters (14,464 with a dense pair of 8) */
static mpw_t tiny(int dense)
{
    mpw_t w = {.size = 8,
               .channels = 1,
               .hidden1 = 4,
               .hidden2 = 4,
               .kernel = 3,
               .dense = dense,
               .params = dense ? 14464 : 14400,
               .base_M = 1,
               .base_batch = 2,
               .compute_s = 0.8,
               .opt_s = 0.2,
               .other_s = 0.05};
    return w;
}

static void near(double got, double want, const char *what)
{
    T_ASSERT(fabs(got - want) <= 1e-12 * fmax(1, fabs(want)), "%s: %.17g, want %.17g", what, got,
             want);
}

static void test_auto_grid(void)
{
    int gy, gx;
    T_ASSERT(mpar_auto_grid(4, 8, &gy, &gx) == 0 && gy == 2 && gx == 2, "4 on 8: %dx%d", gy, gx);
    T_ASSERT(mpar_auto_grid(8, 32, &gy, &gx) == 0 && gy == 2 && gx == 4, "8 on 32: %dx%d", gy, gx);
    T_ASSERT(mpar_auto_grid(64, 128, &gy, &gx) == 0 && gy == 8 && gx == 8, "64 on 128: %dx%d", gy,
             gx);
    T_ASSERT(mpar_auto_grid(7, 8, &gy, &gx) == -1, "7 tiles cannot divide 8 x 8");
}

/* the records' bytes: halo 2048 (1x2), 5120 (2x2), 6144 (1x4), 1024 (1x2,
 * batch 1); tp 4096 (1x2, dense 8), 6144 (2x2); allreduce 2 (R-1)/R x 4 x
 * the shard: 28,800 at 2 replicas of 2 */
static void test_bytes_as_the_records_count(void)
{
    mpw_t w = tiny(0), wd = tiny(8);
    const struct {
        mpc_t c;
        const mpw_t *w;
        double halo, tp, ar;
    } k[] = {{{2, 1, 2, 1, 2, 0}, &w, 2048, 0, 0},     {{4, 2, 2, 1, 2, 0}, &w, 5120, 0, 0},
             {{4, 1, 4, 1, 2, 0}, &w, 6144, 0, 0},     {{2, 1, 2, 2, 1, 0}, &w, 1024, 0, 28800},
             {{2, 1, 2, 1, 2, 0}, &wd, 2048, 4096, 0}, {{4, 2, 2, 1, 2, 0}, &wd, 5120, 6144, 0}};
    for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
        mpb_t b;
        mpar_bytes(k[i].w, &k[i].c, &b);
        T_ASSERT(b.halo_group == k[i].halo && b.tp_rank == k[i].tp && b.allreduce_rank == k[i].ar,
                 "case %zu: halo %.0f tp %.0f allreduce %.0f, want %.0f %.0f %.0f", i, b.halo_group,
                 b.tp_rank, b.allreduce_rank, k[i].halo, k[i].tp, k[i].ar);
    }
}

/* 4x4 tiles of 2 x 2 positions (M = 16), batch 2, dense 8 (8 / 16: refused)
 * and dense 16 on 2 nodes of 8 ranks: worked by hand */
static void test_terms_by_hand(void)
{
    mpw_t w = tiny(16);
    w.params = 14400 + 2 * 16 * 4;
    mnet_t net = {.ranks_per_node = 8,
                  .intra = {1e-6, 1e-9, 0},
                  .inter = {1e-5, 1e-8, 1e-10},
                  .algo = AR_RING};
    mpc_t c = {16, 4, 4, 2, 2, 0.003};
    mpp_t p;
    T_ASSERT(mpar_predict(&w, &c, &net, NULL, &p) == 0, "16 ranks on 8 x 8 fit");
    /* interior tile: 2 column and 2 row neighbours; p 1, th = tw = 2, n 2,
     * layers 2 and 3 read 4 channels: col 1*2*4*2 = 16, row 1*(2+2)*4*2 = 32
     * floats; per layer 2 (2*16 + 2*32) x 4 = 768 bytes; two layers 1536 */
    near(p.b.halo_rank_max, 1536, "halo bytes, busiest rank");
    near(p.b.halo_msgs_rank, 16, "halo messages");
    near(p.b.tp_rank, 4.0 * 15 * 4 * 2 * 4 * 4, "tp bytes");
    T_ASSERT(p.inter, "16 model ranks on nodes of 8 cross nodes");
    near(p.compute_s, 0.8 / 16 * 2 / 2, "compute");
    near(p.opt_s, 0.2 / 16, "optimizer");
    near(p.halo_s, 16 * 1e-5 + 1536 * 1e-8, "halo time");
    near(p.tp_s, 4 * 15 * 1e-5 + p.b.tp_rank * 1e-8 + 2.0 * 15 / 16 * 64 * 2 * 4 * 4 * 1e-10,
         "tp time");
    /* 2 replicas of a shard, one a node: the ring between nodes, plus one cycle */
    double shard = 4.0 * w.params / 16;
    near(p.b.allreduce_rank, shard, "allreduce bytes (2 (R-1)/R = 1)");
    near(p.allreduce_s, 2 * 1e-5 + shard * 1e-8 + 0.5 * shard * 1e-10 + 0.003, "allreduce time");
    near(p.step_s, p.compute_s + p.halo_s + p.tp_s + p.allreduce_s + p.opt_s + 0.05, "step");
    near(p.samples_per_s, 2 * 2 / p.step_s, "samples/s");
    /* an allreduce link of its own */
    mnet_t ar = {.intra = {0, 2e-9, 0}, .inter = {0, 2e-9, 0}, .algo = AR_RING};
    T_ASSERT(mpar_predict(&w, &c, &net, &ar, &p) == 0, "fits");
    near(p.allreduce_s, shard * 2e-9 + 0.003, "allreduce time on its own link");
}

static void test_refused(void)
{
    mpw_t w = tiny(8);
    mnet_t net = {0};
    mpp_t p;
    mpc_t bad[] = {{3, 1, 3, 1, 2, 0},   /* 3 does not divide 8 */
                   {4, 1, 2, 1, 2, 0},   /* 2 tiles, not 4 */
                   {16, 4, 4, 1, 2, 0},  /* dense 8 over 16 ranks */
                   {64, 8, 8, 1, 2, 0}}; /* tiles of 1 position, the halo fits: dense 8 over 64 */
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        T_ASSERT(mpar_predict(&w, &bad[i], &net, NULL, &p) == -1, "case %zu accepted", i);
    w.dense = 0, w.kernel = 7; /* halo 3 wider than tiles of 2 */
    mpc_t thin = {16, 4, 4, 1, 2, 0};
    T_ASSERT(mpar_predict(&w, &thin, &net, NULL, &p) == -1, "tiles thinner than the halo accepted");
}

int main(void)
{
    T_RUN(test_auto_grid);
    T_RUN(test_bytes_as_the_records_count);
    T_RUN(test_terms_by_hand);
    T_RUN(test_refused);
    T_DONE();
}
