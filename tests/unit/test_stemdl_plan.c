/* Per-level plans of the FC-DenseNet's split and the plan model (fd_split.h,
 * fd_model.h, docs/spatial.md): levels and layer levels of a plan, the
 * shuffle bytes and messages counted by hand for the tiny preset, the
 * memory a network allocates through its kernel set (measured by a counting
 * allocator) against the prediction and falling with the split, and the
 * model's candidates, refusals and choice. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "benchmarks/networks/fcdensenet/config.h"
#include "benchmarks/networks/fcdensenet/fd_model.h"
#include "benchmarks/networks/fcdensenet/fd_split.h"
#include "benchmarks/networks/fcdensenet/net.h"
#include "benchmarks/networks/fcdensenet/plan.h"
#include "benchmarks/networks/fcdensenet/stemdl_network.h"
#include "benchmarks/networks/fcdensenet/validate.h"
#include "tests/unit/tap.h"

static char err[512];

static cfg_t tiny(const char *spatial, const char *plan, const char *batch)
{
    cfg_t c;
    T_ASSERT(cfg_preset(&c, "tiny") == 0, "no tiny preset");
    T_ASSERT(cfg_set(&c, "spatial", spatial, err, sizeof err) == 0, "spatial %s: %s", spatial, err);
    T_ASSERT(cfg_set(&c, "spatial_plan", plan, err, sizeof err) == 0, "plan %s: %s", plan, err);
    T_ASSERT(cfg_set(&c, "batch", batch, err, sizeof err) == 0, "batch %s: %s", batch, err);
    T_ASSERT(cfg_validate(&c, err, sizeof err) == 0, "%s %s batch %s: %s", spatial, plan, batch, err);
    return c;
}

static int layer_index(const plan_t *p, const char *name)
{
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->layers[i].name, name)) return i;
    T_ASSERT(0, "no layer %s", name);
}

static void test_levels(void)
{
    const char *plans[] = {"h", "hs", "hhs", "hss", "hhhh"};
    int want[] = {3, 1, 2, 1, 3};
    for (int i = 0; i < 4; i++) {
        cfg_t c = tiny("2", plans[i], "4");
        T_ASSERT(fd_plan_level(&c) == want[i], "plan %s: level %d, not %d", plans[i],
                 fd_plan_level(&c), want[i]);
    }
    cfg_t c = tiny("1", "h", "4");
    T_ASSERT(fd_plan_level(&c) == 3, "unsplit: every level 'split'");
    plan_t p;
    plan_build(&p, &c);
    /* tiny: levels 0 (16 rows), 1 (8), 2 (4, the bottleneck) */
    const char *names[] = {"conv_init", "down0.l0", "td0", "down1.l1", "td1", "bottleneck.l1",
                           "tu0", "up0.l0", "tu1", "up1.l0", "conv_fin"};
    int lv[] = {0, 0, 0, 1, 1, 2, 1, 1, 0, 0, 0};
    for (size_t i = 0; i < sizeof lv / sizeof *lv; i++)
        T_ASSERT(fd_layer_level(&p, layer_index(&p, names[i])) == lv[i], "%s at level %d, not %d",
                 names[i], fd_layer_level(&p, layer_index(&p, names[i])), lv[i]);
    plan_free(&p);
}

static void test_shuffle_bytes(void)
{
    /* into level K: transition down K-1's pooled maps; out of it: the new
     * maps the transition up reads; tiles of level K's rows / S; every rank
     * sends S - 1 of its S blocks of b/S samples; forward and backward:
     *   hs,  S 2, b 4: (9 + 2 x 5) x (4 x 8) x 2 x 1 x 2 x 4 = 9728
     *   hhs, S 2, b 4: (12 + 2 x 5) x (2 x 4) x 2 x 1 x 2 x 4 = 2816
     *   hs,  S 4, b 4: 19 x (2 x 8) x 1 x 3 x 2 x 4 = 7296 */
    struct { const char *s, *plan; int64_t bytes, halo_msgs, shuffle_msgs; } want[] = {
        {"2", "h", 0, 34, 0},   {"2", "hs", 9728, 10, 4}, {"2", "hhs", 2816, 26, 4},
        {"4", "hs", 7296, 10, 12},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        cfg_t c = tiny(want[i].s, want[i].plan, "4");
        plan_t p;
        plan_build(&p, &c);
        int64_t b = fd_split_shuffle_bytes(&p, 4, 4);
        fd_rank_counts rc;
        fd_split_rank_counts(&p, 4, 4, 0, &rc);
        int64_t hm = rc.halo_msgs, sm = rc.shuffle_msgs;
        T_ASSERT(rc.shuffle_bytes == b, "rank counts' shuffle bytes %lld", (long long)rc.shuffle_bytes);
        T_ASSERT(b == want[i].bytes, "%s %s: %lld shuffle bytes, not %lld", want[i].s, want[i].plan,
                 (long long)b, (long long)want[i].bytes);
        /* halo exchanges of a middle rank: conv_init, then per split block
         * forward and backward one per layer (down0 1, down1 2, bottleneck 2,
         * up0 2, up1 1), 2 messages each */
        T_ASSERT(hm == want[i].halo_msgs && sm == want[i].shuffle_msgs,
                 "%s %s: %lld halo and %lld shuffle messages", want[i].s, want[i].plan,
                 (long long)hm, (long long)sm);
        plan_free(&p);
    }
    /* whole-sample levels exchange no halos: hs keeps conv_init (192), down0
     * (512) and up1 (1216) of the 3632 per sample the unit test of the H
     * split counts */
    cfg_t c = tiny("2", "hs", "4");
    plan_t p;
    plan_build(&p, &c);
    T_ASSERT(fd_split_halo_bytes(&p, 1) == 192 + 512 + 1216, "hs halo bytes %lld",
             (long long)fd_split_halo_bytes(&p, 1));
    plan_free(&p);
    /* 2x2, a middle rank: per channel rows over the padded width (tile + 2)
     * to 2 neighbours, columns over the own rows to 2; level 0 tiles 8 x 8:
     * 2 x 10 + 2 x 8 = 36; level 1 (4 x 4): 12 + 8 = 20; level 2 (2 x 2): 8 + 4
     * = 12.  conv_init 36 x 6 = 216 (forward only); down0 2 x 36 x 8 = 576;
     * down1 2 x 20 x 14 = 560; bottleneck 2 x 12 x 17 = 408; up0 2 x 20 x 31 =
     * 1240; up1 2 x 36 x 19 = 1368 */
    c = tiny("2x2", "h", "4");
    plan_build(&p, &c);
    T_ASSERT(fd_split_halo_bytes(&p, 1) == 216 + 576 + 560 + 408 + 1240 + 1368,
             "2x2 halo bytes %lld, not 4368", (long long)fd_split_halo_bytes(&p, 1));
    /* 1x2 is 2x1 turned: the tiny images are square */
    plan_free(&p);
    c = tiny("1x2", "h", "4");
    plan_build(&p, &c);
    T_ASSERT(fd_split_halo_bytes(&p, 1) == 3632, "1x2 halo bytes %lld, not 3632",
             (long long)fd_split_halo_bytes(&p, 1));
    plan_free(&p);
}

/* ---- memory: the kernel set's allocations, counted ------------------------- */

static kern_ops counting;
static struct { void *p; size_t n; } live[256];
static size_t live_bytes, high_water;

static void *count_alloc(void *ctx, size_t bytes)
{
    void *p = kern_ref_ops()->alloc(ctx, bytes);
    for (int i = 0; p && i < 256; i++)
        if (!live[i].p) {
            live[i].p = p, live[i].n = bytes;
            live_bytes += bytes;
            if (live_bytes > high_water) high_water = live_bytes;
            return p;
        }
    T_ASSERT(0, "more than 256 live allocations");
}

static void count_release(void *ctx, void *p)
{
    for (int i = 0; i < 256; i++)
        if (live[i].p == p) {
            live_bytes -= live[i].n;
            live[i].p = NULL;
        }
    kern_ref_ops()->release(ctx, p);
}

/* The high-water of the set's memory while a network of this plan lives. */
static size_t measured(const char *s, const char *plan, size_t *predicted)
{
    cfg_t c = tiny(s, plan, "4");
    plan_t p;
    plan_build(&p, &c);
    counting = *kern_ref_ops();
    counting.alloc = count_alloc;
    counting.release = count_release;
    live_bytes = high_water = 0;
    net_t *n = net_create(&p, &counting, NULL, 4, 0, err, sizeof err);
    T_ASSERT(n, "%s %s: %s", s, plan, err);
    *predicted = net_bytes_needed(&p, &counting, 4);
    T_ASSERT(net_bytes(n) == *predicted, "%s %s: the instance counts %zu, the plan %zu", s, plan,
             net_bytes(n), *predicted);
    net_free(n);
    T_ASSERT(live_bytes == 0, "%s %s: %zu bytes not released", s, plan, live_bytes);
    plan_free(&p);
    return high_water;
}

static void test_memory(void)
{
    const char *cases[][2] = {{"1", "h"}, {"2", "h"},   {"2", "hs"},
                              {"2", "hhs"}, {"4", "h"}, {"4", "hs"}, {"2x2", "h"}, {"2x2", "hs"}};
    size_t m[8];
    for (int i = 0; i < 8; i++) {
        size_t pred;
        m[i] = measured(cases[i][0], cases[i][1], &pred);
        T_ASSERT(m[i] == pred, "--spatial %s --spatial-plan %s: %zu bytes allocated, %zu predicted",
                 cases[i][0], cases[i][1], m[i], pred);
        printf("# --spatial %s --spatial-plan %-3s: %zu bytes per rank (batch 4, fp32)\n",
               cases[i][0], cases[i][1], m[i]);
    }
    T_ASSERT(m[4] < m[1] && m[1] < m[0], "plan h does not fall: %zu %zu %zu", m[0], m[1], m[4]);
    T_ASSERT(m[5] < m[2] && m[2] < m[0], "plan hs does not fall: %zu %zu %zu", m[0], m[2], m[5]);
    T_ASSERT(m[6] < m[1] && m[7] < m[2], "2x2 holds no less than 2x1: %zu %zu, %zu %zu", m[6], m[1],
             m[7], m[2]);
}

static void test_model(void)
{
    cfg_t c = tiny("2", "h", "4");
    plan_t p;
    plan_build(&p, &c);
    fdm_plan cand[FDM_MAX];
    fdm_machine m = {1e9, 1e-5, 1e9, 0};
    int n = fdm_enumerate(&stemdl_network, &p, 4, 4, &m, cand);
    const char *names[] = {"data", "2x1:h", "2x1:hs", "2x1:hhs", "1x2:h", "1x2:hs", "1x2:hhs"};
    T_ASSERT(n == 7, "%d candidates, not 7", n);
    for (int i = 0; i < n; i++) {
        T_ASSERT(!strcmp(cand[i].name, names[i]) && cand[i].ok, "candidate %d: %s (%s)", i,
                 cand[i].name, cand[i].why);
        double msgs = (double)(cand[i].halo_msgs + cand[i].shuffle_msgs + cand[i].allreduce_msgs);
        double bytes = (double)(cand[i].halo_bytes + cand[i].shuffle_bytes + cand[i].allreduce_bytes);
        double t = (double)cand[i].flops / 1e9 + msgs * 1e-5 + bytes / 1e9;
        T_ASSERT(cand[i].step_s > 0 && cand[i].step_s == t, "%s: %g s, not %g", names[i],
                 cand[i].step_s, t);
    }
    /* the split runs the k x k convolutions over padded tiles: more FLOPs
     * than whole samples; fewer the more levels hold whole samples */
    T_ASSERT(cand[0].flops < cand[2].flops && cand[2].flops < cand[3].flops &&
                 cand[3].flops < cand[1].flops,
             "flops data %lld, hs %lld, hhs %lld, h %lld", (long long)cand[0].flops,
             (long long)cand[2].flops, (long long)cand[3].flops, (long long)cand[1].flops);
    /* the ring allreduce of 7060 fp32 gradients over 2 ranks: 2 x 1 x 14120 */
    T_ASSERT(cand[1].allreduce_bytes == 28240 && cand[1].allreduce_msgs == 2, "allreduce %lld",
             (long long)cand[1].allreduce_bytes);
    T_ASSERT(fdm_choose(cand, n) == 0, "chose %d, not data (fewest FLOPs, no halos)",
             fdm_choose(cand, n));
    /* a rank of 700000 bytes: data (567456 bytes per rank) and every split
     * plan of 2 ranks (795812 to 802980) against it: data alone fits */
    fdm_machine small = {1e9, 1e-5, 1e9, 7e5};
    n = fdm_enumerate(&stemdl_network, &p, 4, 4, &small, cand);
    T_ASSERT(cand[0].ok && !cand[1].ok && strstr(cand[1].why, "does not fit: 799908 bytes"),
             "memory limit: data ok %d, 2x1:h ok %d (%s)", cand[0].ok, cand[1].ok, cand[1].why);
    T_ASSERT(fdm_choose(cand, n) == 0, "chose %d under the memory limit", fdm_choose(cand, n));
    small.memory_bytes = 5e5;
    n = fdm_enumerate(&stemdl_network, &p, 4, 4, &small, cand);
    T_ASSERT(fdm_choose(cand, n) == -1, "chose %d though nothing fits", fdm_choose(cand, n));
    fdm_machine none = {0, 0, 0, 0};
    n = fdm_enumerate(&stemdl_network, &p, 4, 4, &none, cand);
    T_ASSERT(fdm_choose(cand, n) == -1, "a choice without a machine");
    plan_free(&p);
    /* 1x2 is 2x1 turned (square images) */
    T_ASSERT(cand[4].flops == cand[1].flops && cand[4].halo_bytes == cand[1].halo_bytes,
             "1x2 and 2x1 differ");
    plan_free(&p);
    /* batch 2 over 4 ranks: no whole samples to hand out; grids 4x1, 2x2,
     * 1x4 with plan h are left, 2x2 computes more padded rows and columns */
    c = tiny("4", "h", "2");
    plan_build(&p, &c);
    n = fdm_enumerate(&stemdl_network, &p, 2, 4, &m, cand);
    T_ASSERT(n == 10, "batch 2 over 4 ranks: %d candidates, not 10", n);
    for (int i = 0; i < n; i++) {
        int want = i == 1 || i == 4 || i == 7;
        T_ASSERT(cand[i].ok == want, "%s: ok %d (%s)", cand[i].name, cand[i].ok, cand[i].why);
    }
    T_ASSERT(!strcmp(cand[4].name, "2x2:h") && cand[4].flops > cand[1].flops, "2x2:h %s %lld",
             cand[4].name, (long long)cand[4].flops);
    T_ASSERT(strstr(cand[2].why, "--batch 2 does not give the 4 ranks"), "hs: %s", cand[2].why);
    T_ASSERT(fdm_choose(cand, n) == 1, "chose %d, not 4x1:h", fdm_choose(cand, n));
    plan_free(&p);
}

int main(void)
{
    T_RUN(test_levels);
    T_RUN(test_shuffle_bytes);
    T_RUN(test_memory);
    T_RUN(test_model);
    T_DONE();
}
