/* exadl model, the data-parallel model (docs/model.md): its inputs (a run, a
 * --describe, a machine file, measured spreads), the prediction, model.yaml,
 * the plots and the reference checks.  cmd_model.c parses the options. */
#define _GNU_SOURCE
#include "harness/cli/cmd_model_dp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/blocks/gradient_reduction/blk_gradient_reduction.h"
#include "harness/cli/cmds.h"
#include "harness/model/model_calib.h"
#include "harness/model/model_measured.h"
#include "harness/model/model_out.h"
#include "harness/proc/ask.h"
#include "harness/run/rundir.h"
#include "harness/util/safefile.h"
#include "harness/workloads/workload.h"

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

int model_dp_parse_scales(arena_t *a, const char *text, int **out, size_t *n)
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

int model_dp_run(arena_t *a, const mopts_t *o, int argc, char **argv)
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
        if (model_dp_parse_scales(a, o->scales, &scales, &ns))
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
