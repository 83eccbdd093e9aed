/* exadl model: predict step time and efficiency at any GPU count (docs/model.md). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cmd_model_dp.h"
#include "harness/cli/cmd_model_mpar.h"
#include "harness/cli/cmd_model_spatial.h"
#include "harness/cli/cmd_model_stemdl.h"
#include "harness/cli/cmds.h"
#include "harness/util/util.h"

/* The command line (help, options, their ranges) and the hand-over to the
 * spatial and model-parallel models live here; what the data-parallel model
 * does with the options (inputs, prediction, files) is cmd_model_dp.c. */

static const char help_model[] =
    "usage: exadl model RUN [options]\n"
    "       exadl model --network PRESET --gpu-flops RATE --machine FILE [options]\n"
    "\n"
    "Predict the data-parallel step time and efficiency at any GPU count for each\n"
    "gradient-reduction mode (coordinator or bit vector; no, layer or N grouping), from\n"
    "a single-rank step (its time and when each gradient is made), an interconnect\n"
    "(alpha, beta, gamma within and between nodes) and the engine's cycle and fusion.\n"
    "Formulas: docs/model.md.\n"
    "\n"
    "  RUN                 a run folder: the workload from the smallest scale of its stemdl\n"
    "                      records, the network fitted to its allreduce sweep, negotiation\n"
    "                      fitted to its orchestration benchmark\n"
    "  --from RUN          as RUN; beside --network: only the run's measured straggler spread\n"
    "                      (per-rank compute times) and coordinator cost per request\n"
    "  --base BENCH        the stemdl benchmark of RUN to take the workload from\n"
    "  --network PRESET    the workload from `stemdl --describe --preset PRESET` and\n"
    "  --network-config F  (or --config F), or from saved output: --describe-file F\n"
    "  --gpu-flops RATE    per-GPU FLOP rate for --network (e.g. 55.8e12)\n"
    "  --flops KIND        what RATE counts: convention (3 x forward conv, default) or executed\n"
    "  --batch N           samples per GPU (default 1)\n"
    "  --grad-bytes B      bytes per gradient element for --network (default 2: fp16)\n"
    "  --machine FILE      network and negotiation constants (reference/machines/*.yaml)\n"
    "  --scales LIST       GPU counts, e.g. 1,6,96,6000,27600 (default: powers of 2 up to\n"
    "                      the machine, and its size; or up to 16 and the run's scales)\n"
    "  --mode LIST         coordinator+none,bitvector+layer,bitvector+4,... or all (default:\n"
    "                      both orchestrations x none, layer and --groups N)\n"
    "  --groups N          N of the N-groups mode of `all` (default 4)\n"
    "  --cycle-ms X        engine cycle (default: the base record's, else 1)\n"
    "  --fusion-bytes B    largest fused reduction (default: the record's, else 8 MiB)\n"
    "  --jitter-cv X       step-time variation of one rank (std/mean): the step waits for\n"
    "                      the slowest of p (default: measured in RUN, else 0)\n"
    "  --calibrate-from RUN  the orchestration cycle's latencies scaled to fit RUN's\n"
    "                      orchestration benchmark (simulated or measured); without it the\n"
    "                      cycle comes from the collectives on the machine file's latencies\n"
    "  --coord-request-s X rank 0's cost per tensor request in coordinator mode (default:\n"
    "                      the machine file's, else 0)\n"
    "  --allreduce ALG     auto, ring, tree or rd (default: the machine file's, else auto;\n"
    "                      ring where the constants were fitted to the ring model)\n"
    "  --reference FILE    evaluate a reference file's checks of model_efficiency (where\n"
    "                      mode, scale) and model_speedup (where grouping, scale); exit 1\n"
    "                      when one fails (reference/summit-2019-model.yaml: the Summit check)\n"
    "  --out DIR           where model.yaml and plots go (default RUN/model, or\n"
    "                      results/model-<time>-<network>/)\n"
    "  --quiet             no table on stdout\n"
    "  --spatial           CosmoFlow's spatial-parallelism model instead (exadl model RUN\n"
    "                      --spatial --help); STEMDL's plan model: exadl model --spatial\n"
    "                      --stemdl [...] -- STEMDL-OPTIONS (--spatial --stemdl --help)\n"
    "  --model-parallel    modelpar's model-parallel model (taken by itself where RUN has\n"
    "                      modelpar records and no stemdl ones; exadl model --model-parallel\n"
    "                      --help)\n"
    "\n"
    "Writes DIR/model.yaml and DIR/model_efficiency.{png,svg,dat,gp}.  Efficiency is against\n"
    "the smallest scale predicted (give 1 for one GPU, 6 for one Summit node).  Exit status\n"
    "0; 1 when a reference check failed; 2 for bad usage or input (one line naming\n"
    "FILE:LINE:COL where a file is at fault).\n";

/* every option of `exadl model` (--spatial's own: cmd_model_spatial.c) */
static const cli_opt_t model_opts[] = {
    {"--base", 1},       {"--network", 1},   {"--network-config", 1}, {"--config", 1},
    {"--describe-file", 1}, {"--machine", 1}, {"--scales", 1},        {"--mode", 1},
    {"--out", 1},        {"--from", 1},      {"--quiet", 0},          {"--reference", 1},
    {"--gpu-flops", 1},  {"--cycle-ms", 1},  {"--fusion-bytes", 1},   {"--grad-bytes", 1},
    {"--jitter-cv", 1},  {"--coord-request-s", 1}, {"--batch", 1},    {"--groups", 1},
    {"--flops", 1},      {"--allreduce", 1}, {"--calibrate-from", 1}, {NULL, 0}};

static int parse_args(int argc, char **argv, mopts_t *o)
{
    *o = (mopts_t){.convention = 1, .batch = 1, .groups = 4, .grad_bytes = 2, .rate = NAN,
                   .cycle_ms = NAN, .fusion = NAN, .jitter = NAN, .creq = NAN};
    for (int i = 0; i < argc; i++) {
        const char *v;
        int which_opt = cli_option("model", argc, argv, &i, model_opts, &v);
        if (which_opt == CLI_BAD) return 2;
        const char *k = which_opt >= 0 ? model_opts[which_opt].name : argv[i];
        double x;
        long long n;
        const char *const strs[] = {"--base", "--network", "--network-config", "--config",
                                    "--describe-file", "--machine", "--scales", "--mode", "--out",
                                    "--from", "--calibrate-from", NULL};
        const char **sdst[] = {&o->base, &o->preset, &o->config, &o->config, &o->dfile,
                               &o->machine, &o->scales, &o->modes, &o->out, &o->from,
                               &o->calib};
        int si = -1;
        for (int j = 0; strs[j]; j++)
            if (!strcmp(k, strs[j])) si = j;
        if (si >= 0) {
            *sdst[si] = v;
            continue;
        }
        if (!strcmp(k, "--quiet")) { o->quiet = 1; continue; }
        if (!strcmp(k, "--reference")) {
            if (o->nrefs == 16) return usage_error("model", "at most 16 --reference files");
            o->refs[o->nrefs++] = v;
            continue;
        }
        /* ranges that keep every prediction finite (1e308 once gave inf and
         * NaN in model.yaml): absurd values are refused, naming the range */
        static const struct { const char *name; double lo, hi; } nums[] = {
            {"--gpu-flops", 1, 1e21},      {"--cycle-ms", 1e-6, 1e6},  {"--fusion-bytes", 1, 1e15},
            {"--grad-bytes", 0.125, 64},   {"--jitter-cv", 0, 10},     {"--coord-request-s", 0, 10},
            {NULL, 0, 0}};
        int which = -1;
        for (int j = 0; nums[j].name; j++)
            if (!strcmp(k, nums[j].name)) which = j;
        if (which >= 0) {
            if (opt_parse_double(v, &x) || !isfinite(x))
                return usage_error("model", "%s: '%s' is not a number", k, v);
            if (x < nums[which].lo || x > nums[which].hi)
                return usage_error("model", "%s: %g is out of range (allowed %g to %g)", k, x,
                                   nums[which].lo, nums[which].hi);
            double *dst[] = {&o->rate,       &o->cycle_ms, &o->fusion,
                             &o->grad_bytes, &o->jitter,   &o->creq};
            *dst[which] = x;
        } else if (!strcmp(k, "--batch") || !strcmp(k, "--groups")) {
            if (opt_parse_int(v, &n) || n < 1 || n > 1000000)
                return usage_error("model", "%s: '%s' is not a whole number from 1", k, v);
            *(k[2] == 'b' ? &o->batch : &o->groups) = (int)n;
        } else if (!strcmp(k, "--flops")) {
            if (strcmp(v, "convention") && strcmp(v, "executed"))
                return usage_error("model", "--flops: '%s' (use convention or executed)", v);
            o->convention = !strcmp(v, "convention");
        } else if (!strcmp(k, "--allreduce")) {
            if (ar_algo_parse(v, &o->algo))
                return usage_error("model", "--allreduce: '%s' (use auto, ring, tree or rd)", v);
            o->have_algo = 1;
        } else if (!o->run) {
            o->run = k;
        } else {
            return usage_error("model", "more than one run given ('%s')", k);
        }
    }
    int net = (o->preset != NULL) + (o->config != NULL) + (o->dfile != NULL);
    /* --from RUN: alone, the run is the whole input (as RUN); beside --network,
     * only what it measured that carries over (straggler spread, request cost) */
    if (o->from && o->run) return usage_error("model", "give RUN or --from RUN, not both");
    if (o->from && !net) o->run = o->from, o->from = NULL;
    if (net > 1)
        return usage_error("model", "give one of --network, --network-config, --describe-file");
    if (!net && !o->run)
        return usage_error("model",
                           "give a run folder, or --network PRESET with --gpu-flops (see --help)");
    if (net && o->run) return usage_error("model", "give a run folder or --network, not both");
    if (net && !(o->rate > 0)) return usage_error("model", "--network needs --gpu-flops RATE > 0");
    if (net && !o->machine) return usage_error("model", "--network needs --machine FILE");
    if (!(o->grad_bytes > 0)) return usage_error("model", "--grad-bytes must be above 0");
    return 0;
}

static int cmd_model(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--spatial")) {
            /* STEMDL's plan model: everything after -- is stemdl's */
            for (int j = 0; j < argc && strcmp(argv[j], "--"); j++)
                if (!strcmp(argv[j], "--stemdl")) {
                    int h = 0;
                    for (int q = 0; q < argc && strcmp(argv[q], "--"); q++)
                        h |= !strcmp(argv[q], "--help") || !strcmp(argv[q], "-h");
                    if (h) return fputs(help_model_stemdl, stdout), 0;
                    return model_stemdl_main(argc, argv);
                }
            if (wants_help(argc, argv)) return fputs(help_model_spatial, stdout), 0;
            return model_spatial_main(argc, argv);
        } else if (!strcmp(argv[i], "--model-parallel")) {
            if (wants_help(argc, argv)) return fputs(help_model_mpar, stdout), 0;
            return model_mpar_main(argc, argv);
        }
    /* a run of modelpar alone: the model-parallel model (cmd_model_mpar.c),
     * whose own options (--nodes, --model-ranks, ...) the table below lacks */
    const char *run = NULL;
    for (int i = 0; i < argc && !run; i++) {
        int valued = model_mpar_valued(argv[i]);
        for (const cli_opt_t *c = model_opts; c->name && !valued; c++)
            valued = !strcmp(argv[i], c->name) && c->takes_value;
        if (valued) i++;
        else if (argv[i][0] != '-') run = argv[i];
    }
    if (run) {
        arena_t *a = ar_new();
        int mp = model_mpar_wanted(a, run);
        ar_free(a);
        if (mp) {
            if (wants_help(argc, argv)) return fputs(help_model_mpar, stdout), 0;
            return model_mpar_main(argc, argv);
        }
    }
    if (wants_help(argc, argv)) return fputs(help_model, stdout), 0;
    mopts_t o;
    int rc = parse_args(argc, argv, &o);
    if (rc) return rc;
    arena_t *a = ar_new();
    rc = model_dp_run(a, &o, argc, argv);
    ar_free(a);
    return rc;
}

const command_t command_model = {
    .name = "model",
    .run = cmd_model,
    .help = help_model,
    .synopsis = "model RUN|--network P",
    .summary = "predict step time and efficiency at any GPU count",
};