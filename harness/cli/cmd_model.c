/* exadl model: predict step time and efficiency at any GPU count (docs/model.md). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/blocks/gradient_reduction/blk_gradient_reduction.h"
#include "harness/cli/cmd_model_mpar.h"
#include "harness/cli/cmd_model_spatial.h"
#include "harness/cli/cmds.h"
#include "harness/model/model_calib.h"
#include "harness/model/model_measured.h"
#include "harness/model/model_out.h"
#include "harness/proc/ask.h"
#include "harness/run/rundir.h"
#include "harness/util/safefile.h"
#include "harness/workloads/workload.h"

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
    "                      --spatial --help)\n"
    "  --model-parallel    modelpar's model-parallel model (taken by itself where RUN has\n"
    "                      modelpar records and no stemdl ones; exadl model --model-parallel\n"
    "                      --help)\n"
    "\n"
    "Writes DIR/model.yaml and DIR/model_efficiency.{png,svg,dat,gp}.  Efficiency is against\n"
    "the smallest scale predicted (give 1 for one GPU, 6 for one Summit node).  Exit status\n"
    "0; 1 when a reference check failed; 2 for bad usage or input (one line naming\n"
    "FILE:LINE:COL where a file is at fault).\n";

typedef struct {
    const char *run, *from, *base, *preset, *config, *dfile, *machine, *scales, *modes, *out;
    const char *calib; /* --calibrate-from RUN */
    const char *refs[16];
    int nrefs;
    double rate, cycle_ms, fusion, jitter, creq;
    int convention, batch, groups, quiet, have_algo;
    double grad_bytes;
    ar_algo_t algo;
} mopts_t;

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

/* The straggler spread and the coordinator's cost per request: the machine
 * file's figures, replaced by the run's measurements (RUN or --from RUN) where
 * the file has none or marks them fit: true (docs/model.md "Measured inputs"). */
static int measured_inputs(arena_t *a, const mopts_t *o, const mfile_t *mf, const outcome_t *oc,
                           size_t no, minputs_t *in, char *err, size_t errlen)
{
    if (mf && mf->straggler_cv.given) {
        in->w.jitter_cv = mf->straggler_cv.value;
        in->jitter_source = ar_printf(a, "machine file %s, straggler_cv: %s", mf->name,
                                      mfig_origin(a, &mf->straggler_cv));
    }
    if (mf && mf->coord_per_request.given)
        in->request_source = ar_printf(a, "machine file %s, coordinator_per_request_s: %s",
                                       mf->name, mfig_origin(a, &mf->coord_per_request));
    if (o->from) {
        if (!(no = model_load_run(a, o->from, (outcome_t **)&oc, err, errlen))) return -1;
    }
    if (!oc) return 0;
    straggler_t st;
    const char *src;
    int file_cv = mf && mf->straggler_cv.given && !mf->straggler_cv.fit;
    if (!file_cv && model_straggler_from_run(a, oc, no, o->from ? NULL : in->base_bench, &st, &src) == 0) {
        in->w.jitter_cv = st.cv;
        in->jitter_source = src;
    }
    double req;
    int file_req = mf && mf->coord_per_request.given && !mf->coord_per_request.fit;
    if (!file_req && model_request_cost_from_run(a, oc, no, &req, &src) == 0) {
        in->neg.coord_per_request_s = req;
        in->request_source = src;
    }
    return 0;
}

static int parse_scales(arena_t *a, const char *text, int **out, size_t *n)
{
    *out = ar_alloc(a, (strlen(text) / 2 + 2) * sizeof **out);
    *n = 0;
    char *s = ar_strdup(a, text), *save = NULL;
    for (char *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long long v;
        if (opt_parse_int(t, &v) || v < 1 || v > 100000000) return -1;
        (*out)[(*n)++] = (int)v;
    }
    return *n ? 0 : -1;
}

static int cmp_int(const void *x, const void *y) { return *(const int *)x - *(const int *)y; }

static void default_scales(arena_t *a, const mfile_t *mf, const outcome_t *o, size_t no,
                           int **out, size_t *n)
{
    int max = mf ? (int)(mf->nodes.value * mf->ranks_per_node.value) : 16;
    *out = ar_alloc(a, (64 + no) * sizeof **out);
    *n = 0;
    for (long long p = 1; p < max && *n < 40; p *= 2) (*out)[(*n)++] = (int)p;
    (*out)[(*n)++] = max;
    for (size_t i = 0; i < no; i++) {
        int dup = 0;
        for (size_t k = 0; k < *n; k++) dup |= (*out)[k] == o[i].scale;
        if (!dup && o[i].status == LS_OK && o[i].rec && rec_gr(o[i].rec))
            (*out)[(*n)++] = o[i].scale;
    }
    qsort(*out, *n, sizeof **out, cmp_int);
}

static char *describe_text(arena_t *a, const mopts_t *o, char *err, size_t errlen)
{
    if (o->dfile) {
        size_t len;
        char *t = fileio_read(o->dfile, &len, 16 << 20, err, errlen);
        if (!t) return NULL;
        char *r = ar_strdup(a, t);
        free(t);
        return r;
    }
    const workload_t *w = workload_describer(NULL);
    if (!w) {
        snprintf(err, errlen, "no workload can describe a network: give --describe-file");
        return NULL;
    }
    char *prog = path_join(a, exadl_bindir(), w->program);
    char *argv[] = {prog, (char *)w->describe, o->preset ? "--preset" : "--config",
                    (char *)(o->preset ? o->preset : o->config), NULL};
    char why[512];
    int code;
    char *t = ask_program(argv, NULL, 0, 60, &code, why, sizeof why);
    if (!t && code == 2) {
        /* the program refused the network: its own words ("stemdl: error:
         * unknown preset 'gb9999' (choose gb2019, ...)") without its prefix */
        const char *said = strstr(why, ": error: ");
        snprintf(err, errlen, "%s %s: %s", o->preset ? "--network" : "--network-config",
                 o->preset ? o->preset : o->config, said ? said + 9 : why);
        return NULL;
    }
    if (!t) {
        snprintf(err, errlen, "%s %s failed: %s", prog, w->describe, why);
        return NULL;
    }
    char *r = ar_strdup(a, t);
    free(t);
    return r;
}

static int run_model(arena_t *a, const mopts_t *o, int argc, char **argv)
{
    char err[1024];
    minputs_t in;
    memset(&in, 0, sizeof in);
    in.fit_rms_rel = NAN;
    mfile_t *mf = NULL;
    if (o->machine) {
        mf = ar_alloc(a, sizeof *mf);
        if (mfile_load(a, o->machine, mf, err, sizeof err)) return usage_error("model", "%s", err);
    }
    outcome_t *oc = NULL;
    size_t no = 0;
    const char *what;
    if (o->run) {
        if (!(no = model_load_run(a, o->run, &oc, err, sizeof err)) ||
            model_work_from_run(a, oc, no, o->base, &in, err, sizeof err) ||
            model_net_from_run(a, oc, no, mf, &in, err, sizeof err))
            return usage_error("model", "%s", err);
        what = path_basename(o->run);
    } else {
        what = o->preset ? o->preset : path_basename(o->config ? o->config : o->dfile);
        char *text = describe_text(a, o, err, sizeof err);
        if (!text || model_work_from_describe(a, text, what, o->rate, o->convention, o->batch,
                                              o->grad_bytes, &in, err, sizeof err))
            return usage_error("model", "%s", err);
        if (model_net_from_run(a, NULL, 0, mf, &in, err, sizeof err))
            return usage_error("model", "%s", err);
    }
    if (o->have_algo) in.net.algo = o->algo;
    if (measured_inputs(a, o, mf, oc, no, &in, err, sizeof err)) return usage_error("model", "%s", err);
    if (isfinite(o->jitter)) in.w.jitter_cv = o->jitter, in.jitter_source = "--jitter-cv";
    if (o->calib) { /* the collectives' latencies fitted to the run's orchestration benchmark */
        outcome_t *co = NULL;
        size_t nc = model_load_run(a, o->calib, &co, err, sizeof err);
        const char *src;
        if (!nc) return usage_error("model", "--calibrate-from: %s", err);
        if (model_calibrate_from_run(a, co, nc, &in.net, &in.neg, &src, &in.calib_detail))
            return usage_error("model", "--calibrate-from %s: %s", o->calib, src);
        in.neg_source = ar_printf(a, "%s: %s", o->calib, src);
        /* the fitted cycle already holds rank 0's per-request work */
        in.neg.coord_per_request_s = 0, in.request_source = NULL;
    }
    if (isfinite(o->creq)) in.neg.coord_per_request_s = o->creq, in.request_source = "--coord-request-s";
    double cycle = isfinite(o->cycle_ms) ? o->cycle_ms * 1e-3
                   : in.have_mode        ? in.mode.cycle_s
                                         : 1e-3;
    double fusion = isfinite(o->fusion) ? o->fusion : in.have_mode ? in.mode.fusion_bytes : 8 << 20;
    if (!(fusion > 0)) return usage_error("model", "--fusion-bytes must be above 0");
    mmode_t modes[64];
    size_t nm = 0;
    if (!o->modes || !strcmp(o->modes, "all")) {
        nm = model_modes_all(modes, o->groups, fusion, cycle);
    } else {
        char *s = ar_strdup(a, o->modes), *save = NULL;
        for (char *t = strtok_r(s, ",", &save); t && nm < 64; t = strtok_r(NULL, ",", &save)) {
            if (model_mode_parse(t, &modes[nm]))
                return usage_error("model", "--mode: '%s' (use ORCH+GROUPING: coordinator or "
                                   "bitvector, + none, layer or a count)", t);
            modes[nm].fusion_bytes = fusion, modes[nm].cycle_s = cycle;
            nm++;
        }
    }
    int *scales;
    size_t ns;
    if (o->scales) {
        if (parse_scales(a, o->scales, &scales, &ns))
            return usage_error("model", "--scales: '%s' is not a list of GPU counts", o->scales);
    } else {
        default_scales(a, mf, oc, no, &scales, &ns);
    }
    reference_t *refs = ar_alloc(a, (size_t)(o->nrefs + 1) * sizeof *refs);
    for (int i = 0; i < o->nrefs; i++)
        if (reference_load(a, o->refs[i], &refs[i], err, sizeof err))
            return usage_error("model", "%s", err);
    mpred_t p;
    if (model_compute(a, &in, modes, nm, scales, ns, &p, err, sizeof err))
        return usage_error("model", "%s", err);
    checks_t ck = {0};
    mtable_t t = {0};
    model_metrics(a, &p, &t);
    for (int i = 0; i < o->nrefs; i++) reference_evaluate(a, &refs[i], &t, NULL, &ck);
    const char *out = o->out;
    if (!out && o->run) {
        /* RUN/model of a folder from anywhere: no link in it is followed, and
         * the folder's writer lock is held (safefile.h) */
        const char *rd = path_is_dir(o->run) ? o->run : path_dirname(a, o->run);
        out = path_join(a, rd, "model");
        if (sf_check_rundir(rd, err, sizeof err) ||
            sf_lock_dir(rd, "exadl model", err, sizeof err) || sf_mkdir(out, err, sizeof err))
            return usage_error("model", "%s", err);
    }
    if (!out) {
        char stamp[32];
        utc_stamp(stamp, sizeof stamp);
        out = path_join(a, path_join(a, exadl_root(), "results"),
                        ar_printf(a, "model-%s-%s", stamp, sanitize_name(a, what)));
    }
    if (mkdir(out, 0755) && !path_is_dir(out)) {
        char *parent = path_dirname(a, out);
        if (!path_is_dir(parent)) mkdir(parent, 0755);
        if (mkdir(out, 0755) && !path_is_dir(out)) {
            fprintf(stderr, "exadl model: error: cannot create %s\n", out);
            return 1;
        }
    }
    sb_t cmd = {0};
    sb_puts(&cmd, "exadl model");
    for (int i = 0; i < argc; i++) sb_printf(&cmd, " %s", shell_quote(a, argv[i]));
    const char *command = ar_strdup(a, sb_str(&cmd));
    sb_free(&cmd);
    if (!o->quiet) {
        printf("exadl model: %s%s%s\n", what, mf ? " on " : "", mf ? mf->name : "");
        model_print(stdout, &p);
    }
    if (ck.n) {
        printf("\n");
        checks_print(stdout, &ck);
    }
    if (model_write_yaml(path_join(a, out, "model.yaml"), &p, command, &ck, err, sizeof err)) {
        fprintf(stderr, "exadl model: error: %s\n", err);
        return 1;
    }
    plots_t pl = {0};
    model_plot(a, out, &p, "model_efficiency",
               ar_printf(a, "model: %s%s%s, efficiency per mode", what, mf ? " on " : "",
                         mf ? mf->name : ""), &pl);
    plots_draw(a, out, &pl);
    if (!o->quiet) {
        printf("\nwritten: %s/model.yaml, %s/model_efficiency.{png,svg,dat,gp}\n", out, out);
        if (pl.note) printf("plots: %s\n", pl.note);
    }
    int pass, fail, na;
    checks_count(&ck, &pass, &fail, &na);
    return fail ? 1 : 0;
}

static int cmd_model(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--spatial")) {
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
    rc = run_model(a, &o, argc, argv);
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
