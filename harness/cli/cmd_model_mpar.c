/* exadl model RUN on a run of modelpar (or --model-parallel): the
 * model-parallel step model (harness/model/mpar.h, docs/model.md "Model
 * parallelism") learnt from the run: the step at N nodes of a machine, and
 * the run's measured points beside their predictions. */
#define _GNU_SOURCE
#include "harness/cli/cmd_model_mpar.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "benchmarks/common/opt.h"
#include "benchmarks/common/record/record.h"
#include "harness/blocks/model_parallel/blk_model_parallel.h"
#include "harness/cli/cmds.h"
#include "harness/model/mpar_input.h"
#include "harness/util/safefile.h"

const char help_model_mpar[] =
    "usage: exadl model RUN [--model-parallel] [--machine FILE] [--nodes N]\n"
    "                   [--ranks-per-node G] [--model-ranks M] [--grid GYxGX] [--batch n]\n"
    "                   [--out DIR] [--quiet]\n"
    "\n"
    "The model-parallel model of modelpar (docs/model.md \"Model parallelism\"), taken when\n"
    "RUN holds modelpar records and no stemdl records (or with --model-parallel): compute\n"
    "from the run's base launch (the fewest model ranks, no replicas) scaled by M_base / M,\n"
    "the halo exchange, the dense pair's allgathers and reduce-scatters and the replicas'\n"
    "allreduce costed by their bytes on the links of --machine (else the run's allreduce\n"
    "sweep, else the run's own exchanges).  It predicts a step at N nodes (default 98, the\n"
    "YFCC100M run's) and then the run's points beside their predictions.\n"
    "\n"
    "  --machine FILE      link constants and ranks per node (reference/machines/*.yaml)\n"
    "  --nodes N           nodes of the prediction (default 98)\n"
    "  --ranks-per-node G  (default the machine file's, else 1)\n"
    "  --model-ranks M     ranks of a model group (default the run's largest); the\n"
    "                      N x G ranks form floor(N G / M) replicas\n"
    "  --grid GYxGX        tiles of a model group (default the most square that divides)\n"
    "  --batch n           samples per model group per step (default the base's)\n"
    "  --out DIR           where modelpar_model.yaml goes (default RUN/model)\n"
    "\n"
    "Exit status 0; 2 for bad usage or input.\n";

typedef struct {
    const char *run, *machine, *out, *grid;
    int nodes, rpn, M, batch, quiet;
} popts_t;

static int parse(int argc, char **argv, popts_t *o)
{
    memset(o, 0, sizeof *o);
    o->nodes = 98;
    for (int i = 0; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(k, "--model-parallel")) continue;
        if (!strcmp(k, "--quiet")) {
            o->quiet = 1;
            continue;
        }
        const char **dst = !strcmp(k, "--machine") ? &o->machine
                           : !strcmp(k, "--out")   ? &o->out
                           : !strcmp(k, "--grid")  ? &o->grid
                                                   : NULL;
        int *num = !strcmp(k, "--nodes")            ? &o->nodes
                   : !strcmp(k, "--ranks-per-node") ? &o->rpn
                   : !strcmp(k, "--model-ranks")    ? &o->M
                   : !strcmp(k, "--batch")          ? &o->batch
                                                    : NULL;
        if (dst || num) {
            if (!v) return usage_error("model", "%s needs a value", k);
            i++;
            long long n;
            if (dst)
                *dst = v;
            else if (opt_parse_int(v, &n) || n < 1 || n > 1 << 24)
                return usage_error("model", "%s: '%s' is not a whole number from 1", k, v);
            else
                *num = (int)n;
        } else if (k[0] == '-') {
            return usage_error("model",
                               "unknown option '%s' for a modelpar run (exadl model "
                               "--model-parallel --help)",
                               k);
        } else if (!o->run) {
            o->run = k;
        } else {
            return usage_error("model", "more than one run given ('%s')", k);
        }
    }
    if (!o->run) return usage_error("model", "--model-parallel needs a run folder");
    return 0;
}

static void pline(FILE *f, const mpp_t *p)
{
    fprintf(
        f,
        "%6d  %4d %3dx%-3d x %-5d %5d  %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g\n",
        p->ranks, p->c.M, p->c.gy, p->c.gx, p->c.replicas, p->c.batch, p->step_s, p->samples_per_s,
        p->compute_s, p->halo_s, p->tp_s, p->allreduce_s, p->opt_s, p->other_s);
}

static void ypred(rec_t *w, const mpp_t *p)
{
    rec_kv_int(w, "ranks", p->ranks);
    rec_kv_int(w, "model_ranks", p->c.M);
    rec_key(w, "grid");
    rec_flow_seq_begin(w);
    rec_int(w, p->c.gy);
    rec_int(w, p->c.gx);
    rec_seq_end(w);
    rec_kv_int(w, "replicas", p->c.replicas);
    rec_kv_int(w, "batch_per_group", p->c.batch);
    rec_kv_str(w, "links", p->inter ? "between nodes" : "within a node");
    rec_kv_double(w, "step_s", p->step_s);
    rec_kv_double(w, "samples_per_s", p->samples_per_s);
    rec_kv_double(w, "compute_s", p->compute_s);
    rec_kv_double(w, "halo_s", p->halo_s);
    rec_kv_double(w, "tp_s", p->tp_s);
    rec_kv_double(w, "allreduce_s", p->allreduce_s);
    rec_kv_double(w, "engine_cycle_s", p->c.replicas > 1 ? p->c.cycle_s : 0);
    rec_kv_double(w, "optimizer_s", p->opt_s);
    rec_kv_double(w, "other_s", p->other_s);
    rec_kv_double(w, "halo_bytes_group", p->b.halo_group);
    rec_kv_double(w, "halo_bytes_rank_max", p->b.halo_rank_max);
    rec_kv_double(w, "halo_messages_rank", p->b.halo_msgs_rank);
    rec_kv_double(w, "tp_bytes_rank", p->b.tp_rank);
    rec_kv_double(w, "allreduce_bytes_rank", p->b.allreduce_rank);
}

/* the target: N nodes x G ranks as floor(N G / M) model groups of M */
static int target(const popts_t *o, const mpin_t *in, const mfile_t *mf, mpc_t *c, int *ranks,
                  char *err, size_t errlen)
{
    int rpn = o->rpn ? o->rpn : mf && mf->ranks_per_node.given ? (int)mf->ranks_per_node.value : 1;
    *ranks = o->nodes * rpn;
    int M = o->M;
    if (!M) { /* the run's largest model group */
        M = in->w.base_M;
        for (size_t i = 0; i < in->npt; i++) {
            long long m = rec_model_parallel(in->pt[i].rec)->model_ranks;
            if (m > M) M = (int)m;
        }
    }
    memset(c, 0, sizeof *c);
    mpc_t bc;
    memset(&bc, 0, sizeof bc);
    for (size_t i = 0; i < in->npt; i++)
        if (!strcmp(in->pt[i].bench, in->base_bench) && in->pt[i].scale == in->base_scale)
            mpar_point_config(in->pt[i].rec, &bc);
    c->M = M, c->batch = o->batch ? o->batch : in->w.base_batch;
    c->cycle_s = bc.cycle_s;
    if (M > *ranks)
        return snprintf(err, errlen, "--model-ranks %d: more than the %d ranks of %d nodes", M,
                        *ranks, o->nodes),
               -1;
    c->replicas = *ranks / M;
    if (o->grid) {
        char tail;
        if (sscanf(o->grid, "%dx%d%c", &c->gy, &c->gx, &tail) != 2 || c->gy < 1 || c->gx < 1)
            return snprintf(err, errlen, "--grid '%s': not GYxGX", o->grid), -1;
        if ((long long)c->gy * c->gx != M)
            return snprintf(err, errlen, "--grid %dx%d: %lld tiles, not the %d model ranks", c->gy,
                            c->gx, (long long)c->gy * c->gx, M),
                   -1;
        if (in->w.size % c->gy || in->w.size % c->gx)
            return snprintf(err, errlen, "--grid %dx%d does not divide the %d x %d positions",
                            c->gy, c->gx, in->w.size, in->w.size),
                   -1;
    } else if (mpar_auto_grid(M, in->w.size, &c->gy, &c->gx)) {
        return snprintf(err, errlen,
                        "model ranks %d: no grid divides the %d x %d positions (give --grid)", M,
                        in->w.size, in->w.size),
               -1;
    }
    return 0;
}

static int run(arena_t *a, const popts_t *o)
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
    mpin_t in;
    if (mpar_inputs_from_run(a, oc, no, mf, &in, err, sizeof err))
        return usage_error("model", "%s: %s", o->run, err);
    mpc_t c;
    int ranks;
    if (target(o, &in, mf, &c, &ranks, err, sizeof err)) return usage_error("model", "%s", err);
    mnet_t net = in.net;
    if (o->rpn) net.ranks_per_node = o->rpn;
    mpp_t t;
    if (mpar_predict(&in.w, &c, &net, in.have_ar ? &in.ar_net : NULL, &t))
        return usage_error("model",
                           "%dx%d tiles of %d positions a side%s do not fit the network "
                           "(tiles narrower than the halo, or dense %d not divisible by %d)",
                           c.gy, c.gx, in.w.size, o->grid ? " (--grid)" : "", in.w.dense, c.M);
    const char *out =
        o->out ? o->out
               : path_join(a, path_is_dir(o->run) ? o->run : path_dirname(a, o->run), "model");
    if (!o->out) { /* RUN/model: as cmd_model.c, no link followed, the folder's lock held */
        const char *rd = path_dirname(a, out);
        if (sf_check_rundir(rd, err, sizeof err) ||
            sf_lock_dir(rd, "exadl model --model-parallel", err, sizeof err) ||
            sf_mkdir(out, err, sizeof err))
            return usage_error("model", "%s", err);
    }
    if (mkdir(out, 0755) && !path_is_dir(out)) {
        fprintf(stderr, "exadl model: error: cannot create %s\n", out);
        return 1;
    }
    const char *yp = path_join(a, out, "modelpar_model.yaml");
    rec_t *w = rec_open(yp, err, sizeof err);
    if (!w) return usage_error("model", "%s", err);
    rec_map_begin(w);
    rec_kv_str(w, "model", "model parallelism (docs/model.md \"Model parallelism\")");
    rec_kv_str(w, "workload", in.work_source);
    rec_kv_str(w, "links", in.net_source);
    rec_kv_str(w, "machine", mf ? mf->name : NULL);
    rec_kv_int(w, "nodes", o->nodes);
    rec_kv_int(w, "ranks_of_nodes", ranks);
    const char *hdr = "%6s  %4s %-7s x %-5s %5s  %10s %10s %10s %10s %10s %10s %10s %10s\n";
    if (!o->quiet) {
        printf("exadl model (model parallelism): %s\n  workload: %s\n  links: %s\n\n", o->run,
               in.work_source, in.net_source);
        printf("prediction at %d nodes%s%s (%d ranks; %d used: %d model group(s) of %d)\n",
               o->nodes, mf ? " of " : "", mf ? mf->name : "", ranks, t.ranks, c.replicas, c.M);
        printf(hdr, "ranks", "M", "grid", "repl.", "batch", "step s", "samples/s", "compute s",
               "halo s", "tp s", "allred. s", "optim. s", "other s");
        pline(stdout, &t);
    }
    rec_key(w, "prediction");
    rec_map_begin(w);
    ypred(w, &t);
    rec_map_end(w);
    if (!o->quiet)
        printf("\nmeasured points of the run with the base's network (median step, launches of a "
               "scale pooled)\n");
    rec_key(w, "validation");
    rec_seq_begin(w);
    for (size_t i = 0; i < in.npt; i++) {
        const mppoint_t *p = &in.pt[i];
        const mpinfo_t *m = rec_model_parallel(p->rec);
        mpc_t pc;
        mpar_point_config(p->rec, &pc);
        mpw_t pw = in.w;
        pw.dense = (int)(isfinite(m->dense) ? m->dense : 0);
        mpp_t pp;
        /* another network than the base's: its compute is not the base's */
        if (m->parameters != in.w.params || pw.dense != in.w.dense ||
            mpar_predict(&pw, &pc, &in.net, in.have_ar ? &in.ar_net : NULL, &pp))
            continue;
        if (!o->quiet)
            printf("  %-16s %3d ranks  M %d (%dx%d) x %d  measured %.4g s  predicted %.4g s (%.3f)"
                   "  halo bytes %.0f (record %.0f)\n",
                   p->bench, p->scale, pc.M, pc.gy, pc.gx, pc.replicas, p->step_s, pp.step_s,
                   pp.step_s / p->step_s, pp.b.halo_group, m->halo_bytes);
        rec_map_begin(w);
        rec_kv_str(w, "bench", p->bench);
        ypred(w, &pp);
        rec_kv_double(w, "measured_step_s", p->step_s);
        rec_kv_double(w, "predicted_over_measured", pp.step_s / p->step_s);
        rec_kv_double(w, "record_halo_bytes_group", m->halo_bytes);
        rec_kv_double(w, "record_tp_bytes_rank0", m->tp_bytes_rank);
        rec_kv_double(w, "record_allreduce_bytes_rank", m->allreduce_bytes_rank);
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

int model_mpar_main(int argc, char **argv)
{
    popts_t o;
    int rc = parse(argc, argv, &o);
    if (rc) return rc;
    arena_t *a = ar_new();
    rc = run(a, &o);
    ar_free(a);
    return rc;
}

int model_mpar_valued(const char *opt)
{
    static const char *const v[] = {"--machine",        "--out",         "--grid",  "--nodes",
                                    "--ranks-per-node", "--model-ranks", "--batch", NULL};
    for (size_t i = 0; v[i]; i++)
        if (!strcmp(opt, v[i])) return 1;
    return 0;
}

int model_mpar_wanted(arena_t *a, const char *run)
{
    char err[256];
    outcome_t *oc;
    size_t no = model_load_run(a, run, &oc, err, sizeof err);
    int mp = 0, other = 0;
    for (size_t i = 0; i < no; i++) {
        if (!oc[i].rec) continue;
        if (rec_model_parallel(oc[i].rec))
            mp = 1;
        else if (oc[i].rec->benchmark && !strcmp(oc[i].rec->benchmark, "stemdl"))
            other = 1;
    }
    return mp && !other;
}
