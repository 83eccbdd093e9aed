/* The FC-DenseNet's H split as numbers (fd_split.h, docs/spatial.md): the
 * --spatial values parsed, the splits each layer allows or refuses (one
 * line naming the layer), and the halo bytes of a middle rank, counted by
 * hand for the tiny preset. */
#include <stdio.h>
#include <string.h>

#include "benchmarks/networks/fcdensenet/config.h"
#include "benchmarks/networks/fcdensenet/fd_split.h"
#include "benchmarks/networks/fcdensenet/plan.h"
#include "benchmarks/networks/fcdensenet/validate.h"
#include "tests/unit/tap.h"

static char err[512];

static cfg_t tiny(const char *spatial)
{
    cfg_t c;
    T_ASSERT(cfg_preset(&c, "tiny") == 0, "no tiny preset");
    T_ASSERT(cfg_set(&c, "spatial", spatial, err, sizeof err) == 0, "spatial %s: %s", spatial, err);
    return c;
}

static void test_parse(void)
{
    int s[2];
    T_ASSERT(cfg_parse_spatial("4", s) == 0 && s[0] == 4 && s[1] == 1, "4 is 4x1");
    T_ASSERT(cfg_parse_spatial("2x3", s) == 0 && s[0] == 2 && s[1] == 3, "2x3");
    const char *bad[] = {"", "0", "x", "2x", "2x2x2", "-1", "1.5", "auto", "99999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        T_ASSERT(cfg_parse_spatial(bad[i], s) != 0, "'%s' accepted", bad[i]);
    cfg_t c;
    T_ASSERT(cfg_preset(&c, "tiny") == 0, "no tiny preset");
    T_ASSERT(strcmp(c.spatial, "1x1") == 0 && fd_split_of(&c) == 1, "the default splits nothing");
    T_ASSERT(cfg_set(&c, "spatial", "0", err, sizeof err) == -1, "spatial 0 accepted");
}

static void expect_refused(const char *spatial, const char *k, const char *want)
{
    cfg_t c = tiny(spatial);
    if (k) T_ASSERT(cfg_set(&c, "k", k, err, sizeof err) == 0, "k %s: %s", k, err);
    T_ASSERT(cfg_validate(&c, err, sizeof err) == -1, "--spatial %s accepted", spatial);
    T_ASSERT(strstr(err, want) && !strchr(err, '\n'), "--spatial %s: '%s' lacks '%s'", spatial, err,
             want);
}

static void test_check(void)
{
    const char *good[] = {"1", "2", "2x1", "4x1", "1x2", "2x2", "1x4"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        cfg_t c = tiny(good[i]);
        T_ASSERT(cfg_validate(&c, err, sizeof err) == 0, "--spatial %s: %s", good[i], err);
    }
    /* heights 16, 8, 4 at the three levels */
    expect_refused("3", NULL, "layer conv_init's height 16 does not split into 3 equal tiles");
    expect_refused("8", NULL, "layer bottleneck.l0's height 4 does not split into 8 equal tiles");
    expect_refused("16", NULL, "layer down1.l0's height 8 does not split into 16 equal tiles");
    expect_refused("1x3", NULL, "layer conv_init's width 16 does not split into 3 equal tiles");
    expect_refused("1x8", NULL, "layer bottleneck.l0's width 4 does not split into 8 equal tiles");
    /* 5x5 kernels: a halo of 2 rows, tiles of 1 row at the bottleneck */
    expect_refused("4", "5", "layer bottleneck.l0's tiles of 1 rows are thinner than its halo of 2");
    /* Lion's compressed exchange votes on each rank's signs: a split rank's
     * gradient is only a part */
    cfg_t c = tiny("2");
    T_ASSERT(cfg_set(&c, "optimizer", "lion", err, sizeof err) == 0, "lion: %s", err);
    T_ASSERT(cfg_set(&c, "exchange", "1bit", err, sizeof err) == 0, "1bit: %s", err);
    T_ASSERT(cfg_validate(&c, err, sizeof err) == -1 && strstr(err, "--exchange 1bit"),
             "--spatial 2 with --exchange 1bit: '%s'", err);
    T_ASSERT(cfg_set(&c, "exchange", "grad", err, sizeof err) == 0, "grad: %s", err);
    T_ASSERT(cfg_validate(&c, err, sizeof err) == 0, "--spatial 2, lion, grad: %s", err);
}

static void test_halo_bytes(void)
{
    cfg_t c = tiny("2");
    plan_t p;
    plan_build(&p, &c);
    /* per channel, 2 x halo rows x width to the two neighbours; forward the
     * block's input maps and every layer's new maps but the last, backward
     * the same again; conv_init's input forward only:
     *   conv_init 2*1*16*6 = 192; down0 (c0 8, 1 layer, w 16) 2*2*16*8 = 512;
     *   down1 (9 + 5, w 8) 2*2*8*14 = 448; bottleneck (12 + 5, w 4) 2*2*4*17 = 272;
     *   up0 (7 + 19 + 5, w 8) 2*2*8*31 = 992; up1 (6 + 13, w 16) 2*2*16*19 = 1216 */
    T_ASSERT(fd_split_halo_bytes(&p, 4) == 4 * 3632, "halo bytes %lld, not %d",
             (long long)fd_split_halo_bytes(&p, 4), 4 * 3632);
    plan_free(&p);
    c = tiny("1");
    plan_build(&p, &c);
    T_ASSERT(fd_split_halo_bytes(&p, 4) == 0, "an unsplit network exchanges nothing");
    plan_free(&p);
}

int main(void)
{
    T_RUN(test_parse);
    T_RUN(test_check);
    T_RUN(test_halo_bytes);
    T_DONE();
}
