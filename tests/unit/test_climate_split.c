/* The climate network's split geometry (benchmarks/networks/deepcam/
 * cl_split.c, docs/spatial.md "The climate network"), on the tiny preset:
 *  - halos per layer kind: 3x3 stride 1 (1 row), 3x3 stride 2 (2: rounded
 *    up to the stride), rate-2 depthwise (2), 1x1 strided or not (0), the
 *    transposed convolutions (1), an atrous rate as large as the map (0);
 *  - a halo deeper than the tile gathers (conv3.dw at 64 rows over 4 ranks);
 *  - the image-pool branch's 1x1 maps are whole, the rest tiled;
 *  - splits whose maps do not divide are refused naming the layer;
 *  - the halo bytes: every halo layer's fill, refill and fold (conv1, on
 *    the input, no fold), from the layer shapes;
 *  - the network's buffers per rank fall with N;
 *  - W and H x W grids (1x2, 2x2): halos along W from the widths, along
 *    both axes for 2x2, a width that does not divide refused naming the
 *    layer and its width, the halo bytes with the corners (the H messages
 *    over the padded width), and "N" parsed as N x 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/networks/deepcam/cl_net.h"
#include "benchmarks/networks/deepcam/cl_split.h"
#include "tests/unit/tap.h"

static cl_plan P;

static int op_named(const cl_plan *p, const char *name)
{
    for (int i = 0; i < p->nop; i++)
        if (!strcmp(p->op[i].name, name)) return i;
    return -1;
}

static void build_grid(int height, int width, const char *spatial)
{
    cl_cfg c;
    if (cl_cfg_preset(&c, "tiny")) exit(1);
    c.height = height, c.width = width;
    snprintf(c.spatial, sizeof c.spatial, "%s", spatial);
    cl_plan_free(&P);
    cl_plan_build(&P, &c);
}

static void build(int height, int spatial)
{
    char t[16];
    snprintf(t, sizeof t, "%d", spatial);
    build_grid(height, 48, t);
}

/* grid N x 1 */
static const int *g1(int N)
{
    static int s[2];
    s[0] = N, s[1] = 1;
    return s;
}

static void expect_halo(const char *name, int N, int want)
{
    int i = op_named(&P, name);
    T_ASSERT(i >= 0, "no layer %s", name);
    int a = cl_split_halo(&P, i, g1(N), 0);
    T_ASSERT(a == want, "%s at %d ranks: halo %d, want %d", name, N, a, want);
    T_ASSERT(cl_split_halo(&P, i, g1(N), 1) == 0, "%s at %dx1: a halo along W", name, N);
}

static void test_halos(void)
{
    build(32, 2);
    expect_halo("conv1", 2, 2);            /* 3x3 stride 2 */
    expect_halo("conv2", 2, 1);            /* 3x3 */
    expect_halo("block1.skip", 2, 0);      /* 1x1 stride 2 */
    expect_halo("block1.sep0.pw", 2, 0);   /* 1x1 */
    expect_halo("block1.down.dw", 2, 2);   /* depthwise 3x3 stride 2 */
    expect_halo("deconv1a", 2, 1);         /* transposed */
    expect_halo("aspp2", 2, 0);            /* rate 6 on a map of 2 rows */
    expect_halo("conv3.dw", 2, 0);         /* rate 2 on 2 rows */
    expect_halo("conv2", 1, 0);            /* no split */
    build(128, 2);
    expect_halo("conv3.dw", 2, 2);         /* rate 2 on 8 rows */
    expect_halo("aspp2", 2, 6);            /* rate 6 on 8 rows */
    expect_halo("aspp4", 2, 0);            /* rate 18 on 8 rows */
    T_ASSERT(!cl_split_gathers(&P, op_named(&P, "conv3.dw"), g1(2)), "conv3.dw gathers at 2x1");
    T_ASSERT(cl_split_gathers(&P, op_named(&P, "aspp2"), g1(2)), "aspp2 (halo 6, tile 4) does not gather");
}

static void test_gather_and_whole(void)
{
    build(64, 4);
    char err[300];
    T_ASSERT(cl_split_check(&P, g1(4), "4", err, sizeof err) == 0, "64 rows over 4 refused: %s", err);
    T_ASSERT(cl_split_gathers(&P, op_named(&P, "conv3.dw"), g1(4)), "conv3.dw (halo 2, tile 1) does not gather");
    T_ASSERT(!cl_split_gathers(&P, op_named(&P, "conv2"), g1(4)), "conv2 gathers");
    char *whole = calloc((size_t)P.nt, 1);
    cl_split_whole(&P, whole);
    int pool = op_named(&P, "aspp_pool"), bc = op_named(&P, "aspp_pool.bcast");
    T_ASSERT(pool >= 0 && bc >= 0, "no image pool");
    T_ASSERT(whole[P.op[pool].out] && whole[P.op[bc].in], "the pooled maps are not whole");
    T_ASSERT(!whole[P.op[pool].in] && !whole[P.input] && !whole[P.logits],
             "a tiled map is marked whole");
    int n = 0;
    for (int t = 0; t < P.nt; t++) n += whole[t];
    T_ASSERT(n == 4, "%d whole tensors, want the 4 of the pool branch", n);
    free(whole);
}

static void test_refusals(void)
{
    char err[300];
    build(32, 4);
    T_ASSERT(cl_split_check(&P, g1(4), "4", err, sizeof err) == -1 &&
                 strstr(err, "block3.skip's height 2 does not split into 4"),
             "32 rows over 4: '%s'", err);
    build(32, 3);
    T_ASSERT(cl_split_check(&P, g1(3), "3", err, sizeof err) == -1 &&
                 strstr(err, "the input's height 32 does not split into 3"),
             "32 rows over 3: '%s'", err);
}

static void test_bytes(void)
{
    build(32, 2);
    /* every halo layer from its input's shape: one neighbour each in a group
     * of 2, a rows x channels x width x batch fp32 per exchange; fill,
     * refill and fold (no fold for the input's layer) */
    int64_t want = 0, msgs = 0, m;
    for (int i = 0; i < P.nop; i++) {
        int a = cl_split_halo(&P, i, g1(2), 0);
        if (!a) continue;
        const cl_tensor *x = &P.t[P.op[i].in];
        int x3 = P.op[i].in == P.input ? 2 : 3;
        want += (int64_t)4 * P.cfg.run.batch * x->c * a * x->w * x3;
        msgs += x3;
    }
    int64_t got = cl_split_halo_bytes(&P, g1(2), P.cfg.run.batch, 4, &m);
    T_ASSERT(got == want && m == msgs && got > 0, "halo bytes %lld (%lld messages), want %lld (%lld)",
             (long long)got, (long long)m, (long long)want, (long long)msgs);
    T_ASSERT(cl_split_halo_bytes(&P, g1(1), 2, 4, NULL) == 0, "an unsplit plan sends halo bytes");
}

static void test_memory(void)
{
    size_t b[3];
    int Ns[3] = {1, 2, 4};
    for (int k = 0; k < 3; k++) {
        build(64, Ns[k]);
        b[k] = cl_net_bytes_needed(&P, kern_ref_ops(), 2);
    }
    printf("# tiny at 64 rows, batch 2: network bytes per rank %zu (1), %zu (2x1), %zu (4x1)\n",
           b[0], b[1], b[2]);
    T_ASSERT(b[1] < b[0] && b[2] < b[1], "bytes per rank do not fall: %zu %zu %zu", b[0], b[1],
             b[2]);
}

/* 1x2 and 2x2 on tiny at 32 x 32 (its 48 columns have 3 at the smallest
 * maps): halos along W from the widths */
static void test_grids(void)
{
    int s[2];
    T_ASSERT(cl_cfg_spatial("3", s) == 0 && s[0] == 3 && s[1] == 1, "'3' is not 3x1");
    T_ASSERT(cl_cfg_spatial("2x4", s) == 0 && s[0] == 2 && s[1] == 4, "'2x4' is not 2x4");
    const char *bad[] = {"", "x2", "2x", "0x2", "2x2x2", "2y2", "4097", "12345x1", "-2"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
        T_ASSERT(cl_cfg_spatial(bad[k], s) == -1, "'%s' accepted", bad[k]);
    build_grid(32, 32, "1x2");
    int w2[2] = {1, 2}, g22[2] = {2, 2};
    char err[300];
    T_ASSERT(cl_split_check(&P, w2, "1x2", err, sizeof err) == 0, "1x2 refused: %s", err);
    int conv2 = op_named(&P, "conv2"), c1 = op_named(&P, "conv1"), dc = op_named(&P, "deconv1a");
    T_ASSERT(cl_split_halo(&P, conv2, w2, 1) == 1 && cl_split_halo(&P, conv2, w2, 0) == 0,
             "conv2 at 1x2: halo %d rows %d columns", cl_split_halo(&P, conv2, w2, 0),
             cl_split_halo(&P, conv2, w2, 1));
    T_ASSERT(cl_split_halo(&P, c1, w2, 1) == 2 && cl_split_halo(&P, dc, w2, 1) == 1,
             "conv1 / deconv1a at 1x2: %d / %d columns", cl_split_halo(&P, c1, w2, 1),
             cl_split_halo(&P, dc, w2, 1));
    T_ASSERT(cl_split_halo(&P, conv2, g22, 0) == 1 && cl_split_halo(&P, conv2, g22, 1) == 1,
             "conv2 at 2x2: not 1 row and 1 column");
    /* the bytes: along W th rows x aw columns, along H ah rows x the padded
     * width tw + 2 aw (the corners); one neighbour per axis split 2 ways */
    int64_t want = 0, msgs = 0, m;
    for (int i = 0; i < P.nop; i++) {
        int ah = cl_split_halo(&P, i, g22, 0), aw = cl_split_halo(&P, i, g22, 1);
        if (!ah && !aw) continue;
        T_ASSERT(!cl_split_gathers(&P, i, g22), "%s gathers at 2x2 on 32 x 32", P.op[i].name);
        const cl_tensor *x = &P.t[P.op[i].in];
        int x3 = P.op[i].in == P.input ? 2 : 3, th = x->h / 2, tw = x->w / 2;
        want += (int64_t)4 * P.cfg.run.batch * x->c * x3 *
                ((int64_t)th * aw + (int64_t)ah * (tw + 2 * aw));
        msgs += ((aw > 0) + (ah > 0)) * x3;
    }
    int64_t got = cl_split_halo_bytes(&P, g22, P.cfg.run.batch, 4, &m);
    T_ASSERT(got == want && m == msgs && got > 0, "2x2 halo bytes %lld (%lld messages), want %lld (%lld)",
             (long long)got, (long long)m, (long long)want, (long long)msgs);
    /* a width that does not divide: 48 over 5 at the input, over 4 at the 6-wide level */
    build_grid(32, 48, "1x5");
    int w5[2] = {1, 5};
    T_ASSERT(cl_split_check(&P, w5, "1x5", err, sizeof err) == -1 &&
                 strstr(err, "--spatial 1x5: layer the input's width 48 does not split into 5"),
             "48 columns over 5: '%s'", err);
    build_grid(32, 48, "1x4");
    int w4[2] = {1, 4};
    T_ASSERT(cl_split_check(&P, w4, "1x4", err, sizeof err) == -1 &&
                 strstr(err, "block2.skip's width 6 does not split into 4"),
             "48 columns over 4: '%s'", err);
    /* the buffers per rank fall from 1x1 to 1x2 to 2x2 */
    size_t b[3];
    const char *grids[3] = {"1", "1x2", "2x2"};
    for (int k = 0; k < 3; k++) {
        build_grid(32, 32, grids[k]);
        b[k] = cl_net_bytes_needed(&P, kern_ref_ops(), 2);
    }
    T_ASSERT(b[1] < b[0] && b[2] < b[1], "bytes per rank do not fall: %zu %zu %zu", b[0], b[1],
             b[2]);
}

int main(void)
{
    T_RUN(test_halos);
    T_RUN(test_gather_and_whole);
    T_RUN(test_refusals);
    T_RUN(test_bytes);
    T_RUN(test_memory);
    T_RUN(test_grids);
    cl_plan_free(&P);
    T_DONE();
}
