/* STEMDL configurations at and past the limits (issue 12, D6 and D7): counts
 * that would overflow 64 bits and layer counts that would make --describe run
 * for minutes are refused with one clear line; the largest accepted network
 * describes (plan, dry step, layer table) in well under a second. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "benchmarks/common/timer.h"
#include "benchmarks/networks/fcdensenet/config.h"
#include "benchmarks/networks/fcdensenet/plan.h"
#include "benchmarks/networks/fcdensenet/stemdl_network.h"
#include "benchmarks/networks/fcdensenet/validate.h"
#include "benchmarks/train/train.h"
#include "tests/unit/tap.h"

static char tmpdir[200];
static char err[1024];

#define T_HAS(s, sub) T_ASSERT(strstr((s), (sub)) != NULL, "message '%s' lacks '%s'", (s), (sub))

static cfg_t tiny(void)
{
    cfg_t c;
    T_ASSERT(cfg_preset(&c, "tiny") == 0, "no preset tiny");
    return c;
}

/* text as a config file over tiny, then the whole-configuration check:
 * returns what failed first (-1 load, -2 validate) or 0 */
static int load(const char *text, cfg_t *c)
{
    char path[300];
    snprintf(path, sizeof path, "%s/limits.yaml", tmpdir);
    FILE *f = fopen(path, "w");
    T_ASSERT(f && fputs(text, f) >= 0 && fclose(f) == 0, "cannot write %s", path);
    *c = tiny();
    err[0] = 0;
    if (cfg_load_yaml(c, path, err, sizeof err)) return -1;
    if (cfg_validate(c, err, sizeof err)) return -2;
    return 0;
}

/* D6: growth 1e9 used to give negative weight and FLOP counts */
static void test_overflow_refused(void)
{
    cfg_t c;
    T_ASSERT(load("growth: 1000000000\n", &c) == -1, "growth 1e9 accepted");
    T_HAS(err, "limits.yaml:1:9: growth must be between 1 and 1048576");
    /* every value in range, the products not: refused by the count check */
    T_ASSERT(load("c_in: 1048576\nf0: 1048576\nk0: 99\ngrowth: 1048576\nk: 99\n", &c) == -2,
             "a network whose FLOPs overflow was accepted");
    T_HAS(err, "network too large: the weight or FLOP count of layer down0.l0");
    T_HAS(err, "does not fit a 64-bit integer");
    /* a network that fits, run for more steps than its summed FLOPs can count */
    T_ASSERT(load("c_in: 104857\nf0: 104857\nk0: 9\nsteps: 16000000\n", &c) == -2,
             "steps x FLOPs per step overflow accepted");
    T_HAS(err, "the FLOPs of 16000000 steps at batch 1 do not fit a 64-bit count");
    /* the same network for fewer steps is fine, and its counts are positive */
    T_ASSERT(load("c_in: 104857\nf0: 104857\nk0: 9\nsteps: 10\n", &c) == 0, "refused: %s", err);
    plan_t p;
    plan_build(&p, &c);
    T_ASSERT(p.fwd_conv_flops > 0 && p.params > 0, "counts %lld %lld", (long long)p.fwd_conv_flops,
             (long long)p.params);
    plan_free(&p);
    /* a list entry past the limit */
    T_ASSERT(load("td: [9, 2000000000]\n", &c) == -1, "td 2e9 accepted");
    T_HAS(err, "limits.yaml:1:");
}

/* D7: a huge layer count used to make --describe quadratic (minutes): it is
 * refused by the range checks, before any plan is built (what the messages
 * say; a refusal has no time bound here, which a loaded machine would break) */
static void test_layers_refused(void)
{
    cfg_t c;
    double t0 = timer_now_s();
    T_ASSERT(load("bottleneck: 1000000\n", &c) == -1, "bottleneck 1e6 accepted");
    T_HAS(err, "bottleneck must be between 1 and 1000");
    T_ASSERT(load("up: [2, 1000000]\n", &c) == -1, "up 1e6 accepted");
    T_HAS(err, "limits.yaml:1:");
    /* every block within its limit, the whole network past it */
    T_ASSERT(load("down: [500, 500]\nup: [2, 1]\n", &c) == -2, "1000+ layers accepted");
    T_HAS(err, "the network has 1011 layers; at most 1000 are allowed");
    printf("# refusing took %.3f s\n", timer_now_s() - t0);
}

/* this process's CPU time in seconds: what other jobs on the machine do not
 * stretch (wall time would grow with the load beside the test) */
static double cpu_s(void)
{
    struct timespec ts;
    T_ASSERT(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0, "clock_gettime");
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* the largest accepted layer count: plan, dry step and layer table take well
 * under a second of CPU (D7 took minutes); the bound is on CPU time, 5 s, so
 * that a loaded machine or the sanitizer build does not trip it */
static void test_largest_describes_fast(void)
{
    cfg_t c;
    /* tiny: 2 + 2 x 2 levels + down 1+2 + up 2+1 = 12 layers besides the bottleneck */
    T_ASSERT(load("bottleneck: 988\n", &c) == 0, "1000 layers refused: %s", err);
    double t0 = cpu_s();
    plan_t p;
    plan_build(&p, &c);
    T_ASSERT(p.n == CFG_MAX_LAYERS, "%d layers", p.n);
    int64_t exec = train_dry_flops(&stemdl_network, &p, c.run.batch, NULL);
    FILE *f = fopen("/dev/null", "w");
    T_ASSERT(f != NULL, "/dev/null");
    stemdl_network.describe(&p, f, exec, c.run.batch);
    fclose(f);
    double dt = cpu_s() - t0;
    T_ASSERT(exec > p.fwd_conv_flops, "executed %lld, forward %lld", (long long)exec,
             (long long)p.fwd_conv_flops);
    plan_free(&p);
    printf("# the largest accepted network (%d layers) described in %.3f s of CPU\n", CFG_MAX_LAYERS, dt);
    T_ASSERT(dt < 5.0, "describing %d layers took %.2f s of CPU", CFG_MAX_LAYERS, dt);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/exadl-limits-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) return perror("mkdtemp"), 1;
    T_RUN(test_overflow_refused);
    T_RUN(test_layers_refused);
    T_RUN(test_largest_describes_fast);
    char path[300];
    snprintf(path, sizeof path, "%s/limits.yaml", tmpdir);
    unlink(path);
    rmdir(tmpdir);
    T_DONE();
}
