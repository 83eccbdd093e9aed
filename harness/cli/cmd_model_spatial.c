/* exadl model --spatial: the spatial-parallelism model of CosmoFlow
 * (harness/model/spatial.h, docs/cosmoflow.md "The model") learnt from a
 * run: the step time and the best layout (split x groups) for each rank
 * count at a sample size and global batch, and the run's measured points
 * beside their predictions. */
#define _GNU_SOURCE
#include "harness/cli/cmd_model_spatial.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "benchmarks/common/opt.h"
#include "benchmarks/common/record/record.h"
#include "benchmarks/common/stats.h"
#include "harness/blocks/spatial/blk_spatial.h"
#include "harness/blocks/training/blk_training.h"
#include "harness/cli/cmds.h"
#include "harness/model/spatial_input.h"
#include "harness/util/safefile.h"

const char help_model_spatial[] =
    "usage: exadl model RUN --spatial [--base BENCH] [--machine FILE] [--scales LIST]\n"
    "                   [--size D] [--global-batch N] [--out DIR] [--quiet]\n"
    "\n"
    "The spatial-parallelism model of CosmoFlow (docs/cosmoflow.md \"The model\"): per-rank\n"
    "compute from the run's one-rank cosmoflow record (each conv block's time scaled by the\n"
    "rank's share of the voxels), halo bytes / bandwidth + a latency per message for every\n"
    "exchange, the feature gather and the gradient allreduce from the run's allreduce sweep\n"
    "(or --machine).  For each rank count it predicts the step of every layout (groups x\n"
    "Sd x Sh x Sw) that fits and prints the fastest; then the run's cosmoflow points beside\n"
    "their predictions.  A run of the 3D U-Net (cosmoflow --network unet3d) gets the\n"
    "U-Net's terms: split along D only, a padded plane per exchange of every 3^3 layer\n"
    "(encoder and decoder), batch norm's sums, no gather (docs/spatial.md).\n"
    "\n"
    "  --base BENCH        the cosmoflow entry whose 1-rank launch gives the workload\n"
    "  --machine FILE      link constants (reference/machines/*.yaml) instead of the sweep\n"
    "  --scales LIST       rank counts (default 1, 2, 4, ..., 64)\n"
    "  --size D            predict samples of D^3 (default the base's; a multiple of D/units)\n"
    "  --global-batch N    samples per step over all ranks (default the base's batch)\n"
    "  --out DIR           where spatial_model.yaml goes (default RUN/model)\n";

typedef struct {
    const char *run, *base, *machine, *scales, *out;
    int size, global_batch, quiet;
} sopts_t;

static int parse(int argc, char **argv, sopts_t *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long long n;
        if (!strcmp(k, "--spatial")) continue;
        if (!strcmp(k, "--quiet")) { o->quiet = 1; continue; }
        const char **dst = !strcmp(k, "--base") ? &o->base : !strcmp(k, "--machine") ? &o->machine
                           : !strcmp(k, "--scales") ? &o->scales : !strcmp(k, "--out") ? &o->out : NULL;
        if (dst || !strcmp(k, "--size") || !strcmp(k, "--global-batch")) {
            if (!v) return usage_error("model", "%s needs a value", k);
            i++;
            if (dst) {
                *dst = v;
                continue;
            }
            if (opt_parse_int(v, &n) || n < 1 || n > 1 << 20)
                return usage_error("model", "%s: '%s' is not a whole number from 1", k, v);
            *(k[2] == 's' ? &o->size : &o->global_batch) = (int)n;
        } else if (k[0] == '-') {
            return usage_error("model", "--spatial: unknown option '%s' (see exadl model --help)", k);
        } else if (!o->run) {
            o->run = k;
        } else {
            return usage_error("model", "more than one run given ('%s')", k);
        }
    }
    if (!o->run) return usage_error("model", "--spatial needs a run folder");
    return 0;
}

/* The workload at another sample size (msp_resize): LBANN's rule where the
 * base is one of its networks (`blocks 0`, or the cosmo128/256/512 presets,
 * which resolve it), else the same blocks with fc1 growing. */
static int resize(msw_t *w, const record_t *base, int size, char *err, size_t errlen)
{
    const char *pre = record_config(base, "preset"), *bl = record_config(base, "blocks");
    const char *f = record_config(base, "filters"), *cap = record_config(base, "filter_cap");
    const char *k = record_config(base, "kernel"), *d1 = record_config(base, "dense1");
    msp_rule r = {
        .lbann = (bl && !strcmp(bl, "0")) ||
                 (pre && (!strcmp(pre, "cosmo128") || !strcmp(pre, "cosmo256") ||
                          !strcmp(pre, "cosmo512"))),
        .filters = f ? atoi(f) : 0,
        .cap = cap ? atoi(cap) : 0,
        .kernel = k ? atoi(k) : 3,
        .dense1 = d1 ? atof(d1) : 0,
    };
    return msp_resize(w, (int)rec_spatial(base)->size, size, &r, err, errlen);
}

static void pline(FILE *f, const msp_t *p, double eff)
{
    fprintf(f, "%6d  %2dx%2dx%-2d x %-4d %6d  %10.4g %10.4g %8.3f %10.4g %10.4g %10.4g %10.4g\n",
            p->ranks, p->split[0], p->split[1], p->split[2], p->groups, p->batch, p->step_s,
            p->samples_per_s, eff, p->compute_s, p->halo_s, p->gather_s, p->allreduce_s);
}

static void ylay(rec_t *w, const msp_t *p)
{
    rec_kv_int(w, "ranks", p->ranks);
    rec_key(w, "split");
    rec_flow_seq_begin(w);
    for (int a = 0; a < 3; a++) rec_int(w, p->split[a]);
    rec_seq_end(w);
    rec_kv_int(w, "groups", p->groups);
    rec_kv_int(w, "batch_per_group", p->batch);
    rec_kv_double(w, "step_s", p->step_s);
    rec_kv_double(w, "samples_per_s", p->samples_per_s);
    rec_kv_double(w, "compute_s", p->compute_s);
    rec_kv_double(w, "halo_s", p->halo_s);
    rec_kv_double(w, "halo_bytes_rank0", p->halo_bytes);
    rec_kv_double(w, "halo_messages_rank0", p->halo_msgs);
    rec_kv_double(w, "sync_s", p->sync_s);
    rec_kv_double(w, "gather_s", p->gather_s);
    rec_kv_double(w, "allreduce_s", p->allreduce_s);
}

static int run(arena_t *a, const sopts_t *o)
{
    char err[1024];
    outcome_t *oc;
    size_t no = model_load_run(a, o->run, &oc, err, sizeof err);
    if (!no) return usage_error("model", "%s", err);
    mfile_t *mf = NULL;
    if (o->machine) {
        mf = ar_alloc(a, sizeof *mf);
        if (mfile_load(a, o->machine, mf, err, sizeof err)) return usage_error("model", "%s", err);
    }
    mspin_t in;
    if (msp_inputs_from_run(a, oc, no, o->base, mf, &in, err, sizeof err))
        return usage_error("model", "%s: %s", o->run, err);
    const char *bs = record_config(in.base, "batch");
    int size = o->size ? o->size : (int)rec_spatial(in.base)->size;
    int gb = o->global_batch ? o->global_batch : (bs && atoi(bs) > 0 ? atoi(bs) : 1);
    if (resize(&in.w, in.base, size, err, sizeof err)) return usage_error("model", "%s", err);
    int scales[64];
    size_t ns = 0;
    if (o->scales) {
        char *s = ar_strdup(a, o->scales), *save = NULL;
        for (char *t = strtok_r(s, ",", &save); t && ns < 64; t = strtok_r(NULL, ",", &save)) {
            long long v;
            if (opt_parse_int(t, &v) || v < 1 || v > 1 << 20)
                return usage_error("model", "--scales: '%s' is not a list of rank counts", o->scales);
            scales[ns++] = (int)v;
        }
    } else {
        for (int p = 1; p <= 64; p *= 2) scales[ns++] = p;
    }
    const char *out = o->out ? o->out : path_join(a, path_is_dir(o->run) ? o->run : path_dirname(a, o->run), "model");
    if (!o->out) { /* RUN/model: as cmd_model.c, no link followed, the folder's lock held */
        const char *rd = path_dirname(a, out);
        if (sf_check_rundir(rd, err, sizeof err) ||
            sf_lock_dir(rd, "exadl model --spatial", err, sizeof err) ||
            sf_mkdir(out, err, sizeof err))
            return usage_error("model", "%s", err);
    }
    if (mkdir(out, 0755) && !path_is_dir(out)) {
        fprintf(stderr, "exadl model: error: cannot create %s\n", out);
        return 1;
    }
    const char *yp = path_join(a, out, "spatial_model.yaml");
    rec_t *w = rec_open(yp, err, sizeof err);
    if (!w) return usage_error("model", "%s", err);
    rec_map_begin(w);
    rec_kv_str(w, "model", "spatial (docs/cosmoflow.md)");
    rec_kv_str(w, "workload", in.work_source);
    rec_kv_str(w, "links", in.net_source);
    /* the per-message and per-byte costs the halo and sync terms use */
    rec_kv_double(w, "alpha_s", in.net.intra.alpha_s);
    rec_kv_double(w, "beta_s_per_byte", in.net.intra.beta_s);
    rec_kv_str(w, "network", in.w.dplanes ? "unet3d" : "cosmoflow");
    rec_kv_int(w, "size", size);
    rec_kv_int(w, "global_batch", gb);
    if (!o->quiet) {
        printf("exadl model --spatial: %s, samples of %d^3, %d per step\n", o->run, size, gb);
        printf("  workload: %s\n  links: %s\n\n", in.work_source, in.net_source);
        printf("%6s  %-16s %6s  %10s %10s %8s %10s %10s %10s %10s\n", "ranks", "best layout",
               "batch", "step s", "samples/s", "eff", "compute s", "halo s", "gather s",
               "allred. s");
    }
    rec_key(w, "best");
    rec_seq_begin(w);
    double t1 = NAN;
    for (size_t i = 0; i < ns; i++) {
        msp_t p;
        if (msp_best(&in.w, scales[i], gb, &in.net, &p)) {
            if (!o->quiet) printf("%6d  no layout fits (units %d per axis)\n", scales[i], in.w.units);
            continue;
        }
        if (scales[i] == 1) t1 = p.step_s;
        double eff = isfinite(t1) ? t1 / (scales[i] * p.step_s) : NAN;
        if (!o->quiet) pline(stdout, &p, eff);
        rec_map_begin(w);
        ylay(w, &p);
        rec_kv_double(w, "efficiency", eff);
        rec_map_end(w);
    }
    rec_seq_end(w);
    /* the run's own points beside their predictions */
    if (!o->quiet) printf("\nmeasured points of the run (median step, all launches of a scale pooled)\n");
    rec_key(w, "validation");
    rec_seq_begin(w);
    for (size_t i = 0; i < no; i++) {
        const record_t *r = oc[i].rec;
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= !strcmp(oc[j].bench, oc[i].bench) && oc[j].scale == oc[i].scale;
        const spinfo_t *sp = r ? rec_spatial(r) : NULL;
        if (seen || oc[i].status != LS_OK || !sp || !rec_training(r)->nstep) continue;
        if (sp->size != (long long)size) continue;
        size_t tot = 0, k = 0;
        for (size_t j = i; j < no; j++)
            if (!strcmp(oc[j].bench, oc[i].bench) && oc[j].scale == oc[i].scale && oc[j].rec)
                tot += rec_training(oc[j].rec)->nstep;
        double *s = ar_alloc(a, (tot + 1) * sizeof *s);
        for (size_t j = i; j < no; j++)
            if (!strcmp(oc[j].bench, oc[i].bench) && oc[j].scale == oc[i].scale && oc[j].rec) {
                const trinfo_t *tr = rec_training(oc[j].rec);
                for (size_t q = 0; q < tr->nstep; q++) s[k++] = tr->step_s[q];
            }
        double med = stats_median(s, k);
        const char *b = record_config(r, "batch");
        int split[3] = {(int)sp->split[0], (int)sp->split[1], (int)sp->split[2]};
        msp_t p;
        if (msp_predict(&in.w, split, (int)sp->groups, b ? atoi(b) : 1, &in.net, &p)) continue;
        if (!o->quiet)
            printf("  %-16s %3d ranks  %lldx%lldx%lld x %lld  measured %.4g s  predicted %.4g s  "
                   "(%.3f)\n",
                   oc[i].bench, oc[i].scale, sp->split[0], sp->split[1], sp->split[2], sp->groups, med,
                   p.step_s, p.step_s / med);
        rec_map_begin(w);
        rec_kv_str(w, "bench", oc[i].bench);
        ylay(w, &p);
        rec_kv_double(w, "measured_step_s", med);
        rec_kv_double(w, "predicted_over_measured", p.step_s / med);
        rec_map_end(w);
    }
    rec_seq_end(w);
    rec_map_end(w);
    if (rec_close(w, err, sizeof err)) {
        fprintf(stderr, "exadl model: error: %s\n", err);
        return 1;
    }
    if (!o->quiet) printf("\nwritten: %s\n", yp);
    return 0;
}

int model_spatial_main(int argc, char **argv)
{
    sopts_t o;
    int rc = parse(argc, argv, &o);
    if (rc) return rc;
    arena_t *a = ar_new();
    rc = run(a, &o);
    ar_free(a);
    return rc;
}
