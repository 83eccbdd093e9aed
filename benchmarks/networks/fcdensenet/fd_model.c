#include "benchmarks/networks/fcdensenet/fd_model.h"

#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/networks/fcdensenet/fd_convtime.h"
#include "benchmarks/networks/fcdensenet/fd_links.h"
#include "benchmarks/networks/fcdensenet/fd_split.h"
#include "benchmarks/networks/fcdensenet/net.h"
#include "benchmarks/networks/fcdensenet/validate.h"
#include "benchmarks/train/train.h"

/* One candidate: the configuration with its plan (or unsplit at batch b/S). */
static void count(const network_t *net, const plan_t *p, int batch, int elem_bytes,
                  const char *name, fdm_plan *o)
{
    int S = fd_split_of(&p->cfg);
    cfg_t c = p->cfg;
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "%s", name);
    o->step_s = -1;
    o->conv_s = o->other_s = -1;
    int data = strcmp(name, "data") == 0, b = data ? batch / S : batch;
    if (data) {
        snprintf(c.spatial, sizeof c.spatial, "1x1");
        snprintf(c.spatial_plan, sizeof c.spatial_plan, "h");
        if (batch % S) {
            snprintf(o->why, sizeof o->why, "--batch %d does not give %d ranks whole samples",
                     batch, S);
            return;
        }
    } else {
        /* "GRID:PLAN" */
        const char *colon = strchr(name, ':');
        snprintf(c.spatial, sizeof c.spatial, "%.*s", (int)(colon - name), name);
        snprintf(c.spatial_plan, sizeof c.spatial_plan, "%s", colon + 1);
    }
    c.run.batch = b;
    plan_t q;
    if (plan_build_checked(&q, &c, o->why, sizeof o->why)) return;
    if (fd_split_check(&q, o->why, sizeof o->why) == 0) {
        o->ok = 1;
        o->flops = train_dry_flops(net, &q, b, NULL);
        o->mem_bytes = (int64_t)net_bytes_needed(&q, kern_ref_ops(), b);
        /* the halo of the busiest rank: one neighbour along an axis of 2 tiles */
        fd_rank_counts rc;
        fd_split_rank_counts(&q, b, elem_bytes, 1, &rc);
        o->halo_bytes = rc.halo_bytes;
        o->halo_msgs = rc.halo_msgs;
        o->shuffle_bytes = rc.shuffle_bytes;
        o->shuffle_msgs = rc.shuffle_msgs;
        /* a ring allreduce of the fp32 gradient over the group's ranks */
        o->allreduce_bytes = S > 1 ? 2 * (int64_t)(S - 1) * (q.params * 4 / S) : 0;
        o->allreduce_msgs = 2LL * (S - 1);
        fdc_bench *cb = fdc_current();
        char err[512];
        fdc_cost cost;
        if (cb) {
            if (fdc_step(cb, net, &q, b, &cost, err, sizeof err))
                check_usage("plan model, %s: %s", name, err);
            o->conv_s = cost.conv_s;
            o->conv_flops = cost.conv_flops;
            o->other_s = cost.other_s;
            o->other_flops = cost.other_flops;
        }
    }
    plan_free(&q);
}

int fdm_enumerate(const network_t *net, const plan_t *p, int batch, int elem_bytes,
                  const fdm_machine *m, fdm_plan *out)
{
    int S = fd_split_of(&p->cfg), L = p->cfg.levels, n = 0;
    if (S <= 1) return 0;
    count(net, p, batch, elem_bytes, "data", &out[n++]);
    /* every grid of S tiles, H splits first, each with every plan */
    for (int sh = S; sh >= 1; sh--) {
        if (S % sh || n + L + 1 > FDM_MAX) continue;
        char name[24];
        int at = snprintf(name, sizeof name, "%dx%d:", sh, S / sh);
        snprintf(name + at, sizeof name - (size_t)at, "h");
        count(net, p, batch, elem_bytes, name, &out[n++]);
        for (int k = 1; k <= L; k++) {
            for (int i = 0; i < k; i++) name[at + i] = 'h';
            name[at + k] = 's';
            name[at + k + 1] = 0;
            count(net, p, batch, elem_bytes, name, &out[n++]);
        }
    }
    for (int i = 0; m && m->memory_bytes > 0 && i < n; i++)
        if (out[i].ok && (double)out[i].mem_bytes > m->memory_bytes) {
            out[i].ok = 0;
            snprintf(out[i].why, sizeof out[i].why,
                     "does not fit: %lld bytes of network buffers per rank over %.4g",
                     (long long)out[i].mem_bytes, m->memory_bytes);
        }
    /* measured kernels: the FLOPs of kernels not timed (none in a STEMDL step
     * today: a safeguard for a kernel the observer does not see) at F, else at
     * the convolutions' rate (not the other kernels': so that one kernel's
     * time moves only its own charge) */
    double cs = 0, cf = 0;
    for (int i = 0; i < n; i++)
        if (out[i].ok && out[i].conv_s > 0) cs += out[i].conv_s, cf += (double)out[i].conv_flops;
    double F = m && m->flops > 0 ? m->flops : cs > 0 ? cf / cs : 0;
    if (m && F > 0 && m->bytes_per_s > 0)
        for (int i = 0; i < n; i++) {
            fdm_plan *c = &out[i];
            if (!c->ok) continue;
            double msgs = (double)(c->halo_msgs + c->shuffle_msgs + c->allreduce_msgs);
            double bytes = (double)(c->halo_bytes + c->shuffle_bytes + c->allreduce_bytes);
            double compute =
                c->conv_s >= 0 ? c->conv_s + c->other_s +
                                     (double)(c->flops - c->conv_flops - c->other_flops) / F
                               : (double)c->flops / F;
            c->step_s = compute + msgs * m->latency_s + bytes / m->bytes_per_s;
        }
    return n;
}

int fdm_choose(const fdm_plan *c, int n)
{
    int best = -1;
    for (int i = 0; i < n; i++)
        if (c[i].ok && c[i].step_s >= 0 && (best < 0 || c[i].step_s < c[best].step_s)) best = i;
    return best;
}

void fdm_print(const network_t *net, const plan_t *p, int batch, FILE *f)
{
    const cfg_t *c = &p->cfg;
    fdm_plan cand[FDM_MAX];
    fdm_machine m = {c->model_flops, c->model_latency_s, c->model_Bps, c->model_memory_bytes};
    fdl_links links = {.source = ""};
    if (c->model_links[0]) {
        char err[600];
        if (c->model_latency_s > 0 || c->model_Bps > 0)
            check_usage("--model-links %s with --model-latency-s or --model-bytes-per-s: give the "
                        "links one way", c->model_links);
        if (fdl_load(c->model_links, &links, err, sizeof err))
            check_usage("--model-links: %s", err);
        m.latency_s = links.latency_s;
        m.bytes_per_s = links.bytes_per_s;
    }
    int esz = strcmp(c->run.precision, "fp32") == 0 ? 4 : 2;
    int n = fdm_enumerate(net, p, batch, esz, &m, cand);
    if (n == 0) return;
    fprintf(f, "spatial_plans                  %d ranks per sample, batch %d per group, per rank and "
            "step (docs/spatial.md \"The plan model\"):\n", fd_split_of(c), batch);
    fprintf(f, "  %-10s %16s %12s %6s %12s %6s %12s %6s %14s %10s %10s %12s\n", "plan", "flops",
            "halo_bytes", "msgs", "shuffle_bytes", "msgs", "allred_bytes", "msgs", "memory_bytes",
            "conv_s", "other_s", "predicted_s");
    for (int i = 0; i < n; i++) {
        const fdm_plan *q = &cand[i];
        if (!q->ok) {
            fprintf(f, "  %-10s refused: %s\n", q->name, q->why);
            continue;
        }
        char pred[32] = "-", conv[32] = "-", other[32] = "-";
        if (q->step_s >= 0) snprintf(pred, sizeof pred, "%.4g", q->step_s);
        if (q->conv_s >= 0) snprintf(conv, sizeof conv, "%.4g", q->conv_s);
        if (q->other_s >= 0) snprintf(other, sizeof other, "%.4g", q->other_s);
        fprintf(f, "  %-10s %16lld %12lld %6lld %12lld %6lld %12lld %6lld %14lld %10s %10s %12s\n",
                q->name, (long long)q->flops, (long long)q->halo_bytes, (long long)q->halo_msgs,
                (long long)q->shuffle_bytes, (long long)q->shuffle_msgs,
                (long long)q->allreduce_bytes, (long long)q->allreduce_msgs,
                (long long)q->mem_bytes, conv, other, pred);
    }
    if (links.source[0])
        fprintf(f, "model_links                    %.3g s + bytes / %.3g B/s  (%s)\n",
                links.latency_s, links.bytes_per_s, links.source);
    fdc_bench *cb = fdc_current();
    if (cb)
        fprintf(f, "conv_times                     %d shapes of local convolutions: %d measured now "
                "(%.3g s, %d reps after a warm-up, median), %d from the cache %s; %d shapes of "
                "other kernels: %d measured now, %d from the cache\n",
                cb->measured + cb->reused, cb->measured, cb->bench_s, FDC_REPS, cb->reused,
                cb->path, cb->measured_other + cb->reused_other, cb->measured_other,
                cb->reused_other);
    int best = fdm_choose(cand, n);
    if (best < 0) {
        if ((m.flops > 0 || cb) && m.bytes_per_s > 0)
            fprintf(f, "spatial_plan_chosen            none: no candidate is allowed and fits\n");
        else
            fprintf(f, "spatial_plan_chosen            none: no machine (give --model-flops or "
                    "--model-conv-times, --model-latency-s and --model-bytes-per-s)\n");
        return;
    }
    char how[64] = "--spatial 1";
    const char *colon = strchr(cand[best].name, ':');
    if (colon)
        snprintf(how, sizeof how, "--spatial %.*s --spatial-plan %s",
                 (int)(colon - cand[best].name), cand[best].name, colon + 1);
    char rate[160];
    if (cb)
        snprintf(rate, sizeof rate, "with measured kernels (%.4g s convolutions, %.4g s the "
                 "others)", cand[best].conv_s, cand[best].other_s);
    else
        snprintf(rate, sizeof rate, "at %.3g FLOP/s per rank", m.flops);
    fprintf(f, "spatial_plan_chosen            %s  (predicted %.4g s per step %s, links %.3g s + "
            "bytes / %.3g B/s; run it with %s)\n",
            cand[best].name, cand[best].step_s, rate, m.latency_s, m.bytes_per_s, how);
}
