/* Machine files of the scaling model (harness/model/model_machine.c): a good file
 * read into the model's network; bad ones refused with FILE:LINE:COL; the
 * shipped reference/machines files parse and name a source or an assumption
 * for every figure; the describe-mode workload worked by hand. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/model/model_input.h"
#include "harness/suite/suite.h"
#include "tests/unit/tap.h"

#define NEAR(x, y) (fabs((double)(x) - (double)(y)) <= 1e-9 * fabs((double)(y)) + 1e-18)

static char tmpdir[256];

static const char *write_tmp(const char *name, const char *text)
{
    static char path[512];
    if (!tmpdir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(tmpdir, sizeof tmpdir, "%s/exadl-mm-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(tmpdir)) T_SKIP("cannot make a temporary folder");
    }
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (!f) T_SKIP("cannot write %s", path);
    fputs(text, f);
    fclose(f);
    return path;
}

static const char good[] =
    "exadl_machine: 1\n"
    "name: two-level\n"
    "sources:\n"
    "  spec: \"Vendor sheet, 2024\"\n"
    "nodes: {value: 8, source: spec}\n"
    "ranks_per_node: 4\n"
    "hierarchical: true\n"
    "allreduce: ring\n"
    "intra_node:\n"
    "  latency_s: {value: 2.0e-6, assumption: \"a guess\"}\n"
    "  bandwidth_Bps: {value: 100.0e9, source: spec}\n"
    "  reduce_Bps: 1.0e12\n"
    "inter_node:\n"
    "  latency_s: {value: 4.0e-6, source: spec, fit: true}\n"
    "  bandwidth_Bps: 10.0e9\n"
    "  topology: fat tree\n";

static void test_good(void)
{
    arena_t *a = ar_new();
    mfile_t m;
    char err[512];
    int rc = mfile_load(a, write_tmp("good.yaml", good), &m, err, sizeof err);
    T_ASSERT(rc == 0, "good file refused: %s", err);
    T_ASSERT(!strcmp(m.name, "two-level") && m.hierarchical && m.algo == AR_RING &&
                 !strcmp(m.topology, "fat tree"), "scalars");
    T_ASSERT(m.nodes.value == 8 && !strcmp(m.nodes.source, "Vendor sheet, 2024 (spec)"),
             "named source resolved: %s", m.nodes.source ? m.nodes.source : "(none)");
    T_ASSERT(m.inter_latency.fit && !m.intra_latency.fit && m.intra_latency.assumption, "fit flags");
    mnet_t net;
    mneg_t neg;
    mfile_net(&m, &net, &neg);
    T_ASSERT(net.ranks_per_node == 4 && net.hierarchical && NEAR(net.intra.alpha_s, 2e-6) &&
                 NEAR(net.intra.beta_s, 1e-11) && NEAR(net.intra.gamma_s, 1e-12) &&
                 NEAR(net.inter.alpha_s, 4e-6) && NEAR(net.inter.beta_s, 1e-10),
             "network");
    /* no reduce_Bps between nodes: the intra one; no negotiation block: latencies */
    T_ASSERT(NEAR(net.inter.gamma_s, 1e-12) && neg.from_latency, "defaults");
    const char *origin = mfig_origin(a, &m.ranks_per_node);
    T_ASSERT(!strcmp(origin, "no source given"), "plain number: %s", origin);
    ar_free(a);
}

/* each bad file: the error must name the file, the line and the column */
static void test_bad(void)
{
    static const struct {
        const char *text, *want, *pos;
    } bad[] = {
        {"exadl_machine: 2\nnodes: 1\nranks_per_node: 1\n", "format 2", ":1:16:"},
        {"nodes: 1\n", "not a machine file", ":1:1:"},
        {"exadl_machine: 1\nnodes: 1\nranks_per_node: 2\nintra_node:\n  latency_s: 1e-6\n"
         "  bandwith_Bps: 1e9\n", "did you mean 'bandwidth_Bps'", ":6:3:"},
        {"exadl_machine: 1\nnodes: 1\nranks_per_node: 2\nintra_node:\n  latency_s: 1e-6\n"
         "  bandwidth_Bps: -5\n", "out of range", ":6:18:"},
        {"exadl_machine: 1\nnodes: 1\nranks_per_node: 2\nintra_node:\n  latency_s: {source: x}\n"
         "  bandwidth_Bps: 1e9\n", "needs value", ":5:14:"},
        {"exadl_machine: 1\nnodes: 2\nranks_per_node: 2\nintra_node: {latency_s: 1e-6, "
         "bandwidth_Bps: 1e9}\n", "inter_node", ":1:1:"},
        {"exadl_machine: 1\nnodes: 1\nranks_per_node: 2.5\nintra_node: {latency_s: 1e-6, "
         "bandwidth_Bps: 1e9}\n", "whole numbers", ":2:8:"},
        {"exadl_machine: 1\nnodes: 1\nranks_per_node: 1\nallreduce: butterfly\n"
         "intra_node: {latency_s: 1e-6, bandwidth_Bps: 1e9}\n", "butterfly", ":4:12:"},
        {"exadl_machine: 1\nnodes: 1\nranks_per_node: 1\nintra_node: {latency_s: 1e-6, "
         "bandwidth_Bps: {value: 1e9, fit: maybe}}\n", "", ":4:"},
        {"exadl_machine: 1\nnodes: [1\n", "", ":3:"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        arena_t *a = ar_new();
        mfile_t m;
        char err[512] = "";
        char name[32];
        snprintf(name, sizeof name, "bad%zu.yaml", i);
        const char *p = write_tmp(name, bad[i].text);
        int rc = mfile_load(a, p, &m, err, sizeof err);
        int ok = rc == -1 && strstr(err, name) && strstr(err, bad[i].want) && strstr(err, bad[i].pos);
        ar_free(a);
        T_ASSERT(ok, "bad file %zu: rc %d, message '%s' (want '%s' at %s)", i, rc, err, bad[i].want,
                 bad[i].pos);
    }
}

static void test_shipped(void)
{
    const char *root = getenv("EXADL_ROOT");
    const char *files[] = {"summit.yaml", "dev-2core.yaml"};
    for (int f = 0; f < 2; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/reference/machines/%s", root ? root : ".", files[f]);
        if (access(path, R_OK)) T_SKIP("%s not found (set EXADL_ROOT)", path);
        arena_t *a = ar_new();
        mfile_t m;
        char err[512];
        int rc = mfile_load(a, path, &m, err, sizeof err);
        const mfig_t *figs[32];
        const char *unsourced = NULL;
        if (rc == 0) {
            mfile_figures(&m, figs);
            for (size_t i = 0; figs[i]; i++)
                if (!figs[i]->source && !figs[i]->assumption) unsourced = figs[i]->key;
        }
        int summit = f == 0 && rc == 0 && m.nodes.value == 4608 && m.ranks_per_node.value == 6 &&
                     m.hierarchical && NEAR(m.inter_bandwidth.value, 25e9);
        ar_free(a);
        T_ASSERT(rc == 0, "%s: %s", files[f], err);
        T_ASSERT(!unsourced, "%s: %s has neither source nor assumption", files[f], unsourced);
        T_ASSERT(f || summit, "summit.yaml: 4,608 nodes x 6, hierarchical, 2 x 12.5 GB/s");
    }
}

/* a three-layer network as `stemdl --describe` prints it: forward FLOPs 10, 20,
 * 30 (sum 60); executed conv work: forward 60 + backward 2*30 + 2*20 + 10 (the
 * first layer has no data gradient) = 170 units.  At 170 FLOP/s with the
 * executed count (batch 1, 170 FLOPs per sample) the step is 1 s, a unit 1/170 s:
 * forward ends at 60/170; l2 ready at 120/170, l1 at 160/170, l0 at 170/170. */
static const char describe3[] =
    "# STEMDL FC-DenseNet test\n"
    "layer            type     k          input CxHxW         output CxHxW        weights   fwd_flops/sample\n"
    "l0               conv     3              2x4x4                4x4x4             72                 10\n"
    "l1               conv     3              4x4x4                4x4x4            144                 20\n"
    "l2               conv     1              4x4x4                1x4x4              4                 30\n"
    "\n"
    "layers                         3\n"
    "conv_weights                   220\n"
    "biases                         5\n"
    "parameters                     225\n"
    "forward_conv_flops_per_sample  60  (60 FLOP)\n"
    "convention_flops_per_sample    180  (180 FLOP, 3 x forward)\n"
    "executed_flops_per_sample      170  (170 FLOP, every kernel of a step at batch 1)\n";

static void test_describe(void)
{
    arena_t *a = ar_new();
    minputs_t in;
    memset(&in, 0, sizeof in);
    char err[512];
    int rc = model_work_from_describe(a, describe3, "test3", 170, 0, 1, 2, &in, err, sizeof err);
    T_ASSERT(rc == 0, "describe: %s", err);
    /* backward order: l2.b (4 outputs + 1... the first and last layer carry biases:
     * l2 has 1 output, l0 has 4: 5 = biases), l2.w, l1.w, l0.b, l0.w */
    T_ASSERT(in.w.nt == 5 && !strcmp(in.w.t[0].name, "l2.b") && !strcmp(in.w.t[1].name, "l2.w") &&
                 !strcmp(in.w.t[2].name, "l1.w") && !strcmp(in.w.t[3].name, "l0.b"),
             "tensors %zu", in.w.nt);
    T_ASSERT(NEAR(in.w.step_s, 1.0) && NEAR(in.w.t[1].ready_s, 120.0 / 170) &&
                 NEAR(in.w.t[2].ready_s, 160.0 / 170) && NEAR(in.w.t[4].ready_s, 1.0) &&
                 NEAR(in.w.backward_end_s, 1.0),
             "times: step %g, ready %g %g %g", in.w.step_s, in.w.t[1].ready_s, in.w.t[2].ready_s,
             in.w.t[4].ready_s);
    T_ASSERT(in.w.t[1].bytes == 8 && in.w.t[0].bytes == 2 && in.w.t[4].bytes == 144, "2 bytes per weight");
    /* the convention count: 180 FLOPs at 90 FLOP/s: a 2 s step, same shares */
    rc = model_work_from_describe(a, describe3, "test3", 90, 1, 1, 4, &in, err, sizeof err);
    T_ASSERT(rc == 0 && NEAR(in.w.step_s, 2.0) && NEAR(in.w.t[2].ready_s, 320.0 / 170) &&
                 in.w.t[4].bytes == 288, "convention");
    T_ASSERT(model_work_from_describe(a, "no table here", "x", 1, 1, 1, 2, &in, err, sizeof err) == -1 &&
                 strstr(err, "no layer table"), "garbage refused: %s", err);
    ar_free(a);
}

/* the suite's model: key (harness/suite/suite.c) */
static void test_suite_model_key(void)
{
    machine_t mach = {.cores = 2};
    char err[512];
    const char *root = getenv("EXADL_ROOT");
    const char *dir = root ? root : ".";
    static const char head[] = "name: t\nlauncher: local\nscales: [1]\n";
    static const char benches[] = "benchmarks:\n  - {name: a, program: /bin/true}\n";
    char text[1024];
    arena_t *a = ar_new();
    suite_t s;
    snprintf(text, sizeof text, "%smodel:\n  machine: reference/machines/dev-2core.yaml\n"
             "  base: a\n  scales: [1, 2, 4]\n%s", head, benches);
    int rc = suite_load_text(a, text, strlen(text), "m.yaml", dir, &mach, &s, err, sizeof err);
    int ok = rc == 0 && s.model && s.model_machine && strstr(s.model_machine, "dev-2core.yaml") &&
             !strcmp(s.model_base, "a") && s.nmodel_scales == 3 && s.model_scales[2] == 4;
    snprintf(text, sizeof text, "%smodel: null\n%s", head, benches);
    int rc2 = suite_load_text(a, text, strlen(text), "m.yaml", dir, &mach, &s, err, sizeof err);
    int ok2 = rc2 == 0 && s.model && !s.model_machine && !s.model_base;
    ar_free(a);
    if (access("reference/machines/dev-2core.yaml", R_OK) && !root) T_SKIP("run from the project root");
    T_ASSERT(ok, "model: {machine, base, scales} read (rc %d: %s)", rc, rc ? err : "");
    T_ASSERT(ok2, "model: null enables the model with defaults (rc %d)", rc2);
    static const struct {
        const char *model, *want;
    } bad[] = {
        {"model:\n  sacles: [1]\n", "m.yaml:5:3: unknown key 'sacles'"},
        {"model:\n  base: nobody\n", "m.yaml:5:9: model.base: no benchmark is named 'nobody'"},
        {"model:\n  machine: no/such.yaml\n", "m.yaml:5:12: machine file 'no/such.yaml' not found"},
        {"model: [1]\n", "m.yaml:4:8:"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        a = ar_new();
        snprintf(text, sizeof text, "%s%s%s", head, bad[i].model, benches);
        err[0] = 0;
        rc = suite_load_text(a, text, strlen(text), "m.yaml", dir, &mach, &s, err, sizeof err);
        ar_free(a);
        T_ASSERT(rc == -1 && strstr(err, bad[i].want), "bad model key %zu: '%s' (want '%s')", i, err,
                 bad[i].want);
    }
}

int main(void)
{
    T_RUN(test_good);
    T_RUN(test_bad);
    T_RUN(test_shipped);
    T_RUN(test_describe);
    T_RUN(test_suite_model_key);
    if (tmpdir[0]) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    }
    T_DONE();
}
