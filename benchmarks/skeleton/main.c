/* skeleton: a STEMDL training step with the real gradient engine and MPI
 * calls and the kernels replaced by device time (skel.h, docs/simulate.md
 * "The compute skeleton").  Writes a training record (kind `skeleton`,
 * read like a stemdl record) whose validation says that nothing was
 * computed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/mpi/mpiopt.h"
#include "benchmarks/common/opt.h"
#include "benchmarks/common/record/header.h"
#include "benchmarks/common/sysinfo.h"
#include "benchmarks/skeleton/skel.h"
#include "benchmarks/networks/fcdensenet/config.h"
#include "benchmarks/networks/fcdensenet/plan.h"
#include "benchmarks/networks/fcdensenet/stemdl_network.h"
#include "benchmarks/train/backend.h"
#include "benchmarks/train/tprog.h"
#include "benchmarks/train/trec.h"

typedef struct {
    const char *preset, *record;
    double device_flops, jitter_cv;
    int basis, grad_bytes, hierarchical, inline_engine, quiet;
    cfg_t cfg;
} sargs_t;

static void usage(void)
{
    printf("usage: skeleton [options]\n"
           "A STEMDL training step as a compute skeleton: the real gradient engine (gsync:\n"
           "orchestration, grouping, fusion) and its MPI calls, with every kernel replaced by\n"
           "device time (its counted FLOPs at --device-flops).  Runs under mpirun, and under\n"
           "SimGrid's smpirun (make smpi) as thousands of simulated ranks.  docs/simulate.md.\n"
           "  --preset NAME           gb2019 | bench256 | small | tiny (gb2019)\n"
           "  --batch N               samples per rank per step (1)\n"
           "  --steps N               timed steps (2)\n"
           "  --warmup N              untimed steps first (1; the first fills the cache)\n"
           "  --device-flops RATE     the device's FLOP rate (55.8e12: Summit's V100s in 2019)\n"
           "  --flops convention|executed  what takes RATE: the convention count (3 x forward\n"
           "                          conv, spread over the kernels as they execute; as exadl\n"
           "                          model and the published rates) or each kernel's own (convention)\n"
           "  --jitter-cv CV          stragglers: each rank's device time of each step x (1 + CV z),\n"
           "                          z standard normal (0: identical devices)\n"
           "  --grad-bytes 2|4        bytes per gradient on the wire (2: fp16 as in 2019)\n"
           "  --reduction hierarchical|flat  in the node, between nodes, in the node (Horovod's\n"
           "                          hierarchical allreduce) or over all ranks (hierarchical)\n"
           "  --engine inline|thread  the engine's cycles between kernels on the rank's thread\n"
           "                          (inline; the only one under SMPI) or on a thread of its own\n"
           "  --orchestration coordinator|bitvector   (bitvector)\n"
           "  --cache-capacity N      response cache, tensors (1024)\n"
           "  --grouping none|layer|N (layer)\n"
           "  --fusion-bytes B        largest fused reduction in wire bytes (8M)\n"
           "  --cycle-ms MS           engine cycle time (1)\n"
           "  --comm-timeout S        a step without progress this long fails (60; 0: none)\n"
           "  --record FILE           write the result record\n"
           "  --quiet                 no progress lines\n"
           "  --check-config          check the options, run nothing (exit 0, or 2 with the error)\n");
}

static void set(cfg_t *c, const char *key, const char *val)
{
    char err[256];
    if (cfg_set(c, key, val, err, sizeof err)) mpiopt_usage_error("%s", err);
}

static void parse(int argc, char **argv, sargs_t *a)
{
    memset(a, 0, sizeof *a);
    a->preset = "gb2019";
    a->device_flops = 55.8e12;
    a->grad_bytes = 2;
    a->hierarchical = 1;
    a->inline_engine = 1;
    const char *batch = "1", *steps = "2", *warmup = "1", *kv[16][2];
    int nkv = 0;
    size_t fusion = 8u << 20;
    static const char *const bases[] = {"convention", "executed", NULL};
    static const char *const reds[] = {"flat", "hierarchical", NULL};
    static const char *const engines[] = {"thread", "inline", NULL};
    static const char *const passed[] = {"orchestration", "cache-capacity", "grouping", "cycle-ms",
                                         "comm-timeout", NULL};
    for (int i = 1; i < argc; i++) {
        char *a0 = argv[i], *eq = NULL, name[64];
        if (!strcmp(a0, "--help") || !strcmp(a0, "-h")) {
            usage();
            exit(0);
        }
        if (!strncmp(a0, "--", 2) && (eq = strchr(a0, '=')) && eq - a0 < (long)sizeof name) {
            snprintf(name, sizeof name, "%.*s", (int)(eq - a0), a0);
            a0 = name;
            eq++;
        }
        if (!strcmp(a0, "--quiet")) {
            a->quiet = 1;
            continue;
        }
        const char *v = mpiopt_value(argc, argv, &i, eq);
        int known = 0;
        for (int k = 0; passed[k] && !known; k++)
            if (!strcmp(a0 + 2, passed[k])) {
                if (nkv == 16) mpiopt_usage_error("too many options");
                kv[nkv][0] = passed[k], kv[nkv++][1] = v, known = 1;
            }
        if (known) continue;
        if (!strcmp(a0, "--preset")) a->preset = v;
        else if (!strcmp(a0, "--batch")) batch = v;
        else if (!strcmp(a0, "--steps")) steps = v;
        else if (!strcmp(a0, "--warmup")) warmup = v;
        else if (!strcmp(a0, "--record")) a->record = v;
        else if (!strcmp(a0, "--device-flops")) {
            char *end;
            a->device_flops = strtod(v, &end);
            if (end == v || *end || !isfinite(a->device_flops) || a->device_flops < 1e6 || a->device_flops > 1e18)
                mpiopt_usage_error("--device-flops: '%s' is not a rate between 1e6 and 1e18 FLOP/s", v);
        } else if (!strcmp(a0, "--jitter-cv")) {
            char *end;
            a->jitter_cv = strtod(v, &end);
            if (end == v || *end || !(a->jitter_cv >= 0 && a->jitter_cv <= 0.5))
                mpiopt_usage_error("--jitter-cv: '%s' is not a number between 0 and 0.5", v);
        } else if (!strcmp(a0, "--flops")) a->basis = mpiopt_choice(a0, v, bases);
        else if (!strcmp(a0, "--grad-bytes")) {
            a->grad_bytes = (int)mpiopt_int(a0, v, 2, 4);
            if (a->grad_bytes == 3) mpiopt_usage_error("--grad-bytes: 2 (fp16) or 4 (fp32)");
        } else if (!strcmp(a0, "--reduction")) a->hierarchical = mpiopt_choice(a0, v, reds);
        else if (!strcmp(a0, "--engine")) a->inline_engine = mpiopt_choice(a0, v, engines);
        else if (!strcmp(a0, "--fusion-bytes")) fusion = mpiopt_size(a0, v);
        else mpiopt_usage_error("unknown option '%s'", argv[i]);
    }
    if (cfg_preset(&a->cfg, a->preset)) mpiopt_usage_error("--preset: unknown network '%s'", a->preset);
    set(&a->cfg, "batch", batch);
    set(&a->cfg, "steps", steps);
    set(&a->cfg, "warmup", warmup);
    for (int k = 0; k < nkv; k++) {
        char key[32];
        snprintf(key, sizeof key, "%s", kv[k][0]);
        for (char *p = key; *p; p++)
            if (*p == '-') *p = '_';
        set(&a->cfg, key, kv[k][1]);
    }
    /* the engine fuses by fp32 bytes (4 per weight): the wire's bytes per
     * weight scale the threshold */
    size_t max_fusion = ((size_t)1 << 30) / 4 * (size_t)a->grad_bytes;
    if (fusion < (size_t)a->grad_bytes || fusion > max_fusion)
        mpiopt_usage_error("--fusion-bytes: %zu is not between %d and %zu bytes (%d-byte gradients)", fusion,
                           a->grad_bytes, max_fusion, a->grad_bytes);
    char fb[32];
    snprintf(fb, sizeof fb, "%zu", fusion / (size_t)a->grad_bytes * 4);
    set(&a->cfg, "fusion_bytes", fb);
#if EXADL_SMPI
    if (!a->inline_engine)
        mpiopt_usage_error("--engine thread: SMPI ranks cannot call MPI from a second thread (use inline)");
#endif
}

#if EXADL_SMPI
/* Under SMPI every simulated rank runs in this process with the same
 * arguments, and globals are shared (smpi/privatization:no): the first rank
 * makes the trace, the others copy it.  A dry pass of gb2019 takes about
 * 10 ms; once per rank it was minutes of start-up at 27,648 ranks. */
static skel_trace trace_once;
static int trace_made;
static double trace_key[3];
#endif

static int make_trace(const plan_t *p, int batch, const sargs_t *a, skel_trace *t, char *err, size_t errlen)
{
#if EXADL_SMPI
    double key[3] = {batch, a->device_flops, a->basis};
    if (!trace_made) {
        if (skel_trace_build(&stemdl_network, p, batch, a->device_flops, a->basis, &trace_once, err,
                             errlen))
            return -1;
        memcpy(trace_key, key, sizeof key);
        trace_made = 1;
    }
    CHECK(!memcmp(trace_key, key, sizeof key), "simulated ranks with different arguments");
    skel_trace_copy(&trace_once, t);
    return 0;
#else
    return skel_trace_build(&stemdl_network, p, batch, a->device_flops, a->basis, t, err, errlen);
#endif
}

/* the record's own block: what the skeleton assumed */
static void write_skeleton(rec_t *w, const sargs_t *a, const skel_trace *t, int hierarchical)
{
    rec_key(w, "skeleton");
    rec_map_begin(w);
    rec_kv_str(w, "what", "the real gradient engine and MPI calls; kernels replaced by device time, "
                          "gradients neither computed nor summed");
    rec_kv_double(w, "device_flops", a->device_flops);
    rec_kv_double(w, "jitter_cv", a->jitter_cv);
    rec_kv_str(w, "flops_basis", a->basis == SKEL_BASIS_CONVENTION ? "convention" : "executed");
    rec_kv_double(w, "seconds_per_executed_flop", t->seconds_per_flop);
    rec_kv_double(w, "forward_s", t->fwd_s);
    rec_kv_double(w, "backward_s", t->bwd_s);
    rec_kv_double(w, "optimizer_s", t->opt_s);
    rec_kv_int(w, "grad_bytes", a->grad_bytes);
    rec_kv_str(w, "reduction", hierarchical ? "hierarchical" : "flat");
    rec_kv_str(w, "engine", a->inline_engine ? "inline" : "thread");
    rec_map_end(w);
}

static void sconfig(rec_t *w, const void *arg)
{
    const sargs_t *a = arg;
    cfg_write(&a->cfg, w);
}

int main(int argc, char **argv)
{
    check_set_program("skeleton");
    comm_t comm;
    int check_only = opt_take_check_config(&argc, argv); /* opt.h: no MPI */
    if (check_only) comm_init_self(&comm);
    else comm_init(&argc, &argv, &comm);
    mpiopt_init("skeleton", comm.rank);
    sargs_t a;
    parse(argc, argv, &a);
    if (check_only) {
        comm_finalize(&comm);
        return opt_config_valid();
    }
    char started[32], err[512];
    sysinfo_t si;
    tprog_start(&comm, &si, started, sizeof started);
    snprintf(a.cfg.run.backend, sizeof a.cfg.run.backend, "skel");
    snprintf(a.cfg.run.kernels, sizeof a.cfg.run.kernels, "skeleton");
    snprintf(a.cfg.run.precision, sizeof a.cfg.run.precision, "%s", a.grad_bytes == 2 ? "fp16" : "fp32");
    /* the config's engine is the one the skeleton's own --engine chose */
    snprintf(a.cfg.run.engine, sizeof a.cfg.run.engine, "%s", a.inline_engine ? "inline" : "thread");

    plan_t p;
    plan_build(&p, &a.cfg);
    const runcfg_t *c = &a.cfg.run;
    skel_trace t;
    if (make_trace(&p, c->batch, &a, &t, err, sizeof err))
        mpiopt_usage_error("%s", err);
    gsync_cfg gc;
    runcfg_gsync(c, &gc);
    gc.inline_engine = a.inline_engine;
#if EXADL_SMPI
    /* MPI_Wait, not MPI_Test and a sleep of poll_us: under SMPI each sleep
     * is simulated time that would be added to every collective */
    gc.poll_us = 0;
#endif
    /* the largest reduction: a fusion batch, or a tensor larger than it */
    int64_t max_elems = gc.fusion_bytes / 4;
    for (int i = 0; i < t.ntensors; i++)
        if (t.tensors[i].count > max_elems) max_elems = t.tensors[i].count;
    skel_xport *x = skel_xport_open(&comm, a.grad_bytes, a.hierarchical, max_elems, err, sizeof err);
    if (!x) mpiopt_usage_error("%s", err);
    backend_t be;
    memset(&be, 0, sizeof be);
    be.transport = skel_xport_transport(x);
    be.gpus = comm.size;
    be.threads = 1;
    snprintf(be.library, sizeof be.library, "compute skeleton: device time at %g FLOP/s", a.device_flops);
    /* the engine writes nothing into the gradient array it is given */
    gsync_t *gs = gsync_create(&gc, &comm, be.transport, t.tensors, t.ntensors, t.layers, NULL, err,
                               sizeof err);
    if (!gs) mpiopt_usage_error("%s", err);

    train_result r;
    memset(&r, 0, sizeof r);
    int S = c->steps, W = c->warmup, G = gsync_ngroups(gs);
    r.steps = S, r.warmup = W, r.gcfg = gc;
    r.step_s = XCALLOC((size_t)S, sizeof(double), "steps");
    r.data_s = XCALLOC((size_t)S, sizeof(double), "steps");
    r.comm_s = XCALLOC((size_t)S, sizeof(double), "steps");
    r.loss = XCALLOC((size_t)S, sizeof(double), "steps");
    r.warm_s = XCALLOC((size_t)W + 1, sizeof(double), "steps");
    r.warm_loss = XCALLOC((size_t)W + 1, sizeof(double), "steps");
    r.exposed_s = XCALLOC((size_t)S, sizeof(double), "steps");
    r.negotiation_s = XCALLOC((size_t)S, sizeof(double), "steps");
    r.backward_end_s = XCALLOC((size_t)S, sizeof(double), "steps");
    r.cycles = XCALLOC((size_t)S, sizeof(int), "steps");
    r.timeline = XCALLOC((size_t)S * (size_t)G * 3, sizeof(double), "timeline");
    r.up.wire_bytes = XCALLOC((size_t)S, sizeof(int64_t), "steps");
    r.up.sync_bytes = XCALLOC((size_t)S, sizeof(int64_t), "steps");
    r.up.synced = XCALLOC((size_t)S, sizeof(int), "steps");
    r.up.kernel_s = XCALLOC((size_t)S, sizeof(double), "steps");
    r.up.collective_s = XCALLOC((size_t)S, sizeof(double), "steps");
    r.up.disagreement = XCALLOC((size_t)S, sizeof(double), "steps");
    r.up.bits = a.grad_bytes * 8;
    r.ntensors = t.ntensors;
    r.tensors = t.tensors;
    r.ngroups = G;
    r.tensor_group = XMALLOC((size_t)t.ntensors * sizeof(int), "groups");
    for (int i = 0; i < t.ntensors; i++) r.tensor_group[i] = gsync_group_of(gs, i);
    r.group_label = XMALLOC((size_t)G * sizeof *r.group_label, "groups");
    r.group_bytes = XMALLOC((size_t)G * sizeof *r.group_bytes, "groups");
    r.group_reductions = XCALLOC((size_t)G, sizeof(int), "groups");
    for (int k = 0; k < G; k++) {
        snprintf(r.group_label[k], sizeof r.group_label[k], "%s", gsync_group_label(gs, k));
        r.group_bytes[k] = gsync_group_bytes(gs, k);
    }
    ktab_init(&r.kernels, 4);
    r.flops_rank_step = t.fwd_flops + t.bwd_flops + t.opt_flops;
    r.flops_step = r.flops_rank_step * comm.size;
    if (comm.rank == 0 && !a.quiet)
        printf("skeleton: %s, %d rank(s) x batch %d, device %.4g s per step (%g FLOP/s), %s engine, "
               "%s reduction of %d-byte gradients\n",
               a.preset, comm.size, c->batch, t.fwd_s + t.bwd_s + t.opt_s, a.device_flops,
               a.inline_engine ? "inline" : "threaded",
               skel_xport_hierarchical(x) ? "hierarchical" : "flat", a.grad_bytes);
    for (int s = 0; s < W + S; s++) {
        skel_step_times st;
        skel_step(&t, gs, &comm, skel_speed(a.jitter_cv, c->seed, comm.rank, s), &st);
        double in[5] = {st.step_s, st.reduce_s, st.exposed_s, st.negotiation_s, 0}, mx[5];
        CHECK_MPI(MPI_Allreduce(in, mx, 4, MPI_DOUBLE, MPI_MAX, comm.world));
        if (s < W) {
            r.warm_s[s] = mx[0];
        } else {
            int i = s - W;
            const gsync_step *g = gsync_last_step(gs);
            r.step_s[i] = mx[0], r.comm_s[i] = mx[1], r.exposed_s[i] = mx[2];
            r.negotiation_s[i] = mx[3];
            r.backward_end_s[i] = st.backward_end_s;
            r.cycles[i] = st.cycles;
            for (int k = 0; k < G; k++) {
                double *e = r.timeline + ((size_t)i * G + k) * 3;
                e[0] = g->groups[k].ready_s, e[1] = g->groups[k].start_s, e[2] = g->groups[k].end_s;
                r.group_reductions[k] = g->groups[k].reductions;
            }
            r.up.wire_bytes[i] = (int64_t)(2.0 * (comm.size - 1) / comm.size * (double)t.params * a.grad_bytes);
            r.up.disagreement[i] = NAN;
            /* each rank's own step and device time (the straggler spread) */
            double mine[2] = {st.step_s, st.compute_s};
            if (comm.rank == 0 && !r.rank_step_s) {
                r.nranks = comm.size;
                r.rank_step_s = XCALLOC((size_t)S * (size_t)comm.size, sizeof(double), "per-rank steps");
                r.rank_compute_s = XCALLOC((size_t)S * (size_t)comm.size, sizeof(double), "per-rank steps");
            }
            double *all = comm.rank == 0 ? XMALLOC((size_t)comm.size * 2 * sizeof *all, "per-rank") : NULL;
            CHECK_MPI(MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, comm.world));
            for (int k = 0; all && k < comm.size; k++) {
                r.rank_step_s[(size_t)i * comm.size + k] = all[2 * k];
                r.rank_compute_s[(size_t)i * comm.size + k] = all[2 * k + 1];
            }
            free(all);
        }
        if (comm.rank == 0 && !a.quiet) {
            /* under SMPI every clock is the simulated one: no wall time here */
            printf("  step %d/%d%s  %.6f s  exposed %.6f s  %d cycles\n", s + 1, W + S,
                   s < W ? " (warm-up)" : "", mx[0], mx[2], st.cycles);
            fflush(stdout);
        }
    }
    r.nchecks = 1;
    snprintf(r.checks[0].check, sizeof r.checks[0].check, "computed");
    snprintf(r.checks[0].outcome, sizeof r.checks[0].outcome, "skipped");
    snprintf(r.checks[0].detail, sizeof r.checks[0].detail,
             "a compute skeleton: no kernel ran and no gradient was summed; only times are measured");
    int rc = 0;
    if (comm.rank == 0 && a.record) {
        train_job j = {.net = &stemdl_network, .model = &p, .run = c, .backend = &be, .comm = &comm,
                       .quiet = a.quiet};
        rec_header_t h = {.benchmark = "skeleton", .status = "ok", .started_utc = started,
                          .argc = argc, .argv = argv, .system = &si, .config = sconfig,
                          .config_arg = &a, .ranks = comm.size, .gpus = comm.size,
                          .backend = c->backend, .precision = c->precision};
        rec_t *w = rec_header_open(a.record, &h, err, sizeof err);
        if (w) {
            trec_write_run(&j, w);
            stemdl_network.write_record(&p, w);
            write_skeleton(w, &a, &t, skel_xport_hierarchical(x));
            trec_write_results(&j, &r, w);
        }
        if (!w || rec_header_close(w, err, sizeof err)) {
            fprintf(stderr, "skeleton: error: %s\n", err);
            rc = 1;
        }
    }
    if (comm.rank == 0 && !a.quiet) {
        double sum = 0;
        for (int i = 0; i < S; i++) sum += r.step_s[i];
        printf("skeleton: %d rank(s), mean step %.6f s (device %.6f s), exposed %.6f s%s%s\n", comm.size,
               sum / S, t.fwd_s + t.bwd_s + t.opt_s, r.exposed_s[S - 1], a.record ? ", record " : "",
               a.record ? a.record : "");
    }
    r.tensors = NULL; /* the trace's */
    train_result_free(&r);
    gsync_free(gs);
    skel_xport_close(x);
    skel_trace_free(&t);
    plan_free(&p);
    CHECK_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, comm.world));
    comm_finalize(&comm);
    return rc;
}
