/* The compute skeleton's device model (benchmarks/skeleton/skel.h): the
 * trace from stemdl's dry pass and the straggler factors. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "benchmarks/skeleton/skel.h"
#include "benchmarks/networks/fcdensenet/config.h"
#include "benchmarks/networks/fcdensenet/plan.h"
#include "benchmarks/networks/fcdensenet/stemdl_network.h"
#include "benchmarks/train/train.h"
#include "tests/unit/tap.h"

static void trace_of(const char *preset, int batch, double rate, int basis, skel_trace *t, plan_t *p)
{
    cfg_t c;
    T_ASSERT(cfg_preset(&c, preset) == 0, "preset %s", preset);
    c.run.batch = batch;
    plan_build(p, &c);
    char err[256];
    T_ASSERT(skel_trace_build(&stemdl_network, p, batch, rate, basis, t, err, sizeof err) == 0, "%s", err);
}

/* convention basis: forward + backward take batch x 3 x forward conv FLOPs
 * at the rate (exadl model's T(1)), every layer's gradient once, in
 * backward's order of time, inside backward */
static void test_convention_time_and_events(void)
{
    skel_trace t;
    plan_t p;
    trace_of("small", 3, 1e12, SKEL_BASIS_CONVENTION, &t, &p);
    double want = 3.0 * (double)t.convention_flops_sample / 1e12, got = t.fwd_s + t.bwd_s;
    T_ASSERT(fabs(got - want) <= 1e-12 * want, "forward + backward %.15g s, want %.15g s", got, want);
    T_ASSERT(t.convention_flops_sample == 3 * t.fwd_conv_flops_sample, "convention %lld, forward conv %lld",
             (long long)t.convention_flops_sample, (long long)t.fwd_conv_flops_sample);
    T_ASSERT(t.nevents == t.layers, "%d gradient events for %d layers", t.nevents, t.layers);
    int seen[1024] = {0};
    T_ASSERT(t.layers < 1024, "%d layers", t.layers);
    for (int i = 0; i < t.nevents; i++) {
        T_ASSERT(t.event_layer[i] >= 0 && t.event_layer[i] < t.layers && !seen[t.event_layer[i]]++,
                 "event %d: layer %d twice or out of range", i, t.event_layer[i]);
        T_ASSERT(t.event_s[i] > 0 && t.event_s[i] <= t.bwd_s * (1 + 1e-12), "event %d at %g s, backward %g s", i,
                 t.event_s[i], t.bwd_s);
        T_ASSERT(i == 0 || t.event_s[i] >= t.event_s[i - 1], "event %d before event %d", i, i - 1);
    }
    /* backward executes about twice forward's convolutions */
    T_ASSERT(t.bwd_s > 1.5 * t.fwd_s && t.bwd_s < 2.5 * t.fwd_s, "forward %g s, backward %g s", t.fwd_s, t.bwd_s);
    T_ASSERT(t.opt_flops > 0 && t.opt_s > 0, "optimizer %lld FLOPs", (long long)t.opt_flops);
    int64_t step = train_dry_flops(&stemdl_network, &p, 3, NULL);
    T_ASSERT(t.fwd_flops + t.bwd_flops + t.opt_flops == step, "trace %lld FLOPs, a dry step %lld",
             (long long)(t.fwd_flops + t.bwd_flops + t.opt_flops), (long long)step);
    skel_trace_free(&t);
    plan_free(&p);
}

/* executed basis: each kernel's own FLOPs at the rate */
static void test_executed_basis(void)
{
    skel_trace t;
    plan_t p;
    trace_of("tiny", 2, 5e9, SKEL_BASIS_EXECUTED, &t, &p);
    T_ASSERT(fabs(t.fwd_s - (double)t.fwd_flops / 5e9) <= 1e-15 + 1e-12 * t.fwd_s, "forward %g s", t.fwd_s);
    T_ASSERT(fabs(t.bwd_s - (double)t.bwd_flops / 5e9) <= 1e-15 + 1e-12 * t.bwd_s, "backward %g s", t.bwd_s);
    skel_trace_free(&t);
    plan_free(&p);
    char err[256];
    cfg_t c;
    T_ASSERT(cfg_preset(&c, "tiny") == 0, "tiny");
    plan_build(&p, &c);
    T_ASSERT(skel_trace_build(&stemdl_network, &p, 1, 0, SKEL_BASIS_EXECUTED, &t, err, sizeof err) == -1,
             "a rate of 0 was accepted");
    skel_trace_free(&t);
    plan_free(&p);
}

/* stragglers: 1 + cv z, reproducible, mean 1 and spread cv */
static void test_speed_factors(void)
{
    T_ASSERT(skel_speed(0, 1, 5, 7) == 1.0, "cv 0 must give 1");
    T_ASSERT(skel_speed(0.05, 1, 5, 7) == skel_speed(0.05, 1, 5, 7), "not reproducible");
    enum { N = 20000 };
    double s = 0, s2 = 0;
    int differ = 0;
    for (int r = 0; r < N; r++) {
        double f = skel_speed(0.05, 42, r, 3);
        s += f, s2 += f * f;
        differ += f != skel_speed(0.05, 42, r, 4);
    }
    double mean = s / N, sd = sqrt(s2 / N - mean * mean);
    T_ASSERT(fabs(mean - 1) < 0.002 && fabs(sd - 0.05) < 0.0025, "mean %.5f sd %.5f", mean, sd);
    T_ASSERT(differ > N / 2, "steps give the same factors (%d of %d differ)", differ, N);
    T_ASSERT(skel_speed(0.5, 1, 0, 0) >= 0.5, "below the floor");
}

int main(void)
{
    T_RUN(test_convention_time_and_events);
    T_RUN(test_executed_basis);
    T_RUN(test_speed_factors);
    T_DONE();
}
