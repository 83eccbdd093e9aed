#include "benchmarks/orchestration/orch_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/mpiopt.h"
#include "benchmarks/common/mpi/orch.h"
#include "benchmarks/common/opt.h"
#include "benchmarks/common/record/header.h"
#include "benchmarks/common/rng.h"
#include "benchmarks/common/stats.h"
#include "benchmarks/common/sysinfo.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/orchestration/orch_cfg.h"
#include "benchmarks/orchestration/tensors.h"

typedef struct {
    int mode, grouping, groups, tensors;
    double *time_s;
    stats_summary_t st;
    double cycles, coord_rounds, bitvec_rounds, requests; /* per timed step */
    unsigned long long *set_sig;                           /* per step: order-free */
    int agree, once;
} orow_t;

/* the ready order of one rank in one step */
static void permutation(int *perm, int n, unsigned long long seed, int rank, int step)
{
    rng_t r = rng_stream(seed, (uint64_t)rank, (uint64_t)step, 0x0c4e);
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rng_next(&r) % (uint64_t)(i + 1));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

static void run_row(const orch_cfg_t *o, comm_t *c, const coll_tensor_t *tens, int T, int mode,
                    int grouping, orow_t *row)
{
    int *layer = XCALLOC((size_t)T, sizeof *layer, "layers");
    for (int t = 0; t < T; t++) layer[t] = tens[t].layer;
    orch_config_t oc = {.mode = (orch_mode_t)mode, .grouping = (orch_grouping_t)grouping,
                        .ngroups = o->ngroups, .ntensors = T, .layer = layer,
                        .timeout_s = o->timeout_s, .comm = c->world};
    char err[1024];
    orch_t *h = orch_create(&oc, err, sizeof err);
    if (!h) mpiopt_usage_error("%s", err);
    int G = orch_ngroups(h);
    int *perm = XCALLOC((size_t)T, sizeof *perm, "ready order");
    int *rel = XCALLOC((size_t)G, sizeof *rel, "released");
    int *times_released = XCALLOC((size_t)G, sizeof *times_released, "released");
    int S = o->steps, W = o->warmup_steps;
    double *local = XCALLOC((size_t)S, sizeof *local, "samples");
    row->time_s = XCALLOC((size_t)S, sizeof *row->time_s, "samples");
    row->set_sig = XCALLOC((size_t)S, sizeof *row->set_sig, "signatures");
    row->mode = mode;
    row->grouping = grouping;
    row->groups = G;
    row->tensors = T;
    row->once = 1;
    unsigned long long *order_sig = XCALLOC((size_t)S, sizeof *order_sig, "signatures");
    orch_stats_t before = {0};
    long cycles_total = 0;
    for (int step = 0; step < W + S; step++) {
        if (step == W) before = orch_stats(h);
        permutation(perm, T, o->seed, c->rank, step);
        memset(times_released, 0, (size_t)G * sizeof *times_released);
        unsigned long long set_sig = 0, ord = 0x12345;
        CHECK_MPI(MPI_Barrier(c->world));
        double t0 = timer_now_s();
        orch_step_begin(h);
        int next = 0, cycle = 0;
        while (!orch_step_done(h)) {
            for (int k = 0; k < o->ready_per_cycle && next < T; k++) orch_mark_ready(h, perm[next++]);
            int n = orch_cycle(h, rel, err, sizeof err);
            if (n < 0) check_fail("orch_cycle", __FILE__, __LINE__, "%s", err);
            for (int i = 0; i < n; i++) {
                times_released[rel[i]]++;
                set_sig += rng_mix(((uint64_t)cycle << 32) ^ (uint64_t)rel[i]);
                ord = rng_mix(ord ^ (uint64_t)rel[i]);
            }
            cycle++;
        }
        double t1 = timer_now_s();
        if (step >= W) {
            local[step - W] = t1 - t0;
            row->set_sig[step - W] = set_sig;
            order_sig[step - W] = ord;
            cycles_total += cycle;
        }
        for (int g = 0; g < G; g++)
            if (times_released[g] != 1) row->once = 0;
    }
    orch_stats_t after = orch_stats(h);
    CHECK_MPI(MPI_Allreduce(local, row->time_s, S, MPI_DOUBLE, MPI_MAX, c->world));
    for (int i = 0; i < S; i++) row->time_s[i] = (double)(long long)(row->time_s[i] * 1e9 + 0.5) * 1e-9;
    stats_summarize(row->time_s, (size_t)S, &row->st);
    row->cycles = (double)cycles_total / S;
    row->coord_rounds = (double)(after.coordinator_rounds - before.coordinator_rounds) / S;
    row->bitvec_rounds = (double)(after.bitvector_rounds - before.bitvector_rounds) / S;
    long long req = after.requests - before.requests, req_all = 0;
    CHECK_MPI(MPI_Allreduce(&req, &req_all, 1, MPI_LONG_LONG, MPI_SUM, c->world));
    row->requests = (double)req_all / S;
    /* every rank the same order, every group once */
    unsigned long long *mn = XCALLOC((size_t)S, sizeof *mn, "signatures");
    unsigned long long *mx = XCALLOC((size_t)S, sizeof *mx, "signatures");
    CHECK_MPI(MPI_Allreduce(order_sig, mn, S, MPI_UNSIGNED_LONG_LONG, MPI_MIN, c->world));
    CHECK_MPI(MPI_Allreduce(order_sig, mx, S, MPI_UNSIGNED_LONG_LONG, MPI_MAX, c->world));
    row->agree = memcmp(mn, mx, (size_t)S * sizeof *mn) == 0;
    int once = row->once;
    CHECK_MPI(MPI_Allreduce(&once, &row->once, 1, MPI_INT, MPI_MIN, c->world));
    free(mn);
    free(mx);
    free(order_sig);
    free(local);
    free(times_released);
    free(rel);
    free(perm);
    free(layer);
    orch_destroy(h);
}

int orch_bench_check(int argc, char **argv)
{
    orch_cfg_t o;
    orch_cfg_parse(argc, argv, &o);
    return opt_config_valid();
}

int orch_bench_run(int argc, char **argv, comm_t *c)
{
    orch_cfg_t o;
    orch_cfg_parse(argc, argv, &o);
    char started[32];
    timer_utc_iso(started, sizeof started);
    sysinfo_t si;
    sysinfo_collect(&si);
    sysinfo_set_hosts(&si, c->hosts, c->nhosts);
    char mpiv[256];
    comm_library_version(mpiv, sizeof mpiv);
    sysinfo_set_version(&si, "mpi", mpiv);

    int nsets = o.ncounts ? o.ncounts : 1;
    int nmodes = o.modes[0] + o.modes[1];
    int ngroupings = o.groupings[0] + o.groupings[1] + o.groupings[2];
    int nrows_max = nsets * nmodes * ngroupings, nrows = 0;
    orow_t *rows = XCALLOC((size_t)nrows_max, sizeof *rows, "rows");
    int all_agree = 1, all_once = 1, modes_agree = 1, modes_compared = 0;

    if (c->rank == 0) {
        printf("# ExaDL orchestration benchmark: %d rank%s on %d host%s", c->size,
               c->size == 1 ? "" : "s", c->nhosts, c->nhosts == 1 ? "" : "s");
        for (int i = 0; i < c->nhosts && i < 8; i++) printf("%s%s", i ? "," : " (", c->hosts[i]);
        printf("%s\n", c->nhosts ? ")" : "");
        printf("# mpi: %s\n", mpiv);
        printf("# each step: every rank marks %d tensor%s ready per cycle in its own random order;\n"
               "# time = control cost of one step (all its cycles), max over ranks; %d timed steps"
               " after %d warm-up\n",
               o.ready_per_cycle, o.ready_per_cycle == 1 ? "" : "s", o.steps, o.warmup_steps);
        fflush(stdout);
    }
    for (int s = 0; s < nsets; s++) {
        coll_tensor_t *tens;
        int nl, T;
        if (o.ncounts)
            T = coll_synthetic_tensors(&tens, o.tensor_counts[s],
                                       (int64_t)(o.tensor_bytes / 2), &nl);
        else
            T = coll_gb2019_tensors(&tens, &nl);
        if (c->rank == 0) {
            double bytes = 0;
            for (int t = 0; t < T; t++) bytes += 2.0 * (double)tens[t].elements;
            printf("# tensors: %s, %d tensors in %d layers, %.1f MiB of fp16 gradients\n",
                   o.ncounts ? "synthetic" : "gb2019 FC-DenseNet", T, nl, bytes / (1 << 20));
            printf("# %11s %9s %7s %6s %8s %7s %11s %11s %11s %11s %11s %12s\n", "mode",
                   "grouping", "groups", "ranks", "tensors", "cycles", "median_us", "ci_lo_us",
                   "ci_hi_us", "min_us", "max_us", "per_cycle_us");
            fflush(stdout);
        }
        for (int g = 0; g < 3; g++) {
            if (!o.groupings[g]) continue;
            int first_row = -1;
            for (int m = 0; m < 2; m++) {
                if (!o.modes[m]) continue;
                orow_t *row = &rows[nrows++];
                run_row(&o, c, tens, T, m, g, row);
                all_agree &= row->agree;
                all_once &= row->once;
                if (first_row < 0) {
                    first_row = nrows - 1;
                } else {
                    modes_compared = 1;
                    if (memcmp(rows[first_row].set_sig, row->set_sig,
                               (size_t)o.steps * sizeof *row->set_sig))
                        modes_agree = 0;
                }
                if (c->rank == 0) {
                    printf("%13s %9s %7d %6d %8d %7.1f %11.2f %11.2f %11.2f %11.2f %11.2f %12.3f\n",
                           orch_mode_names[m], orch_grouping_names[g], row->groups, c->size, T,
                           row->cycles, row->st.median * 1e6, row->st.ci_lo * 1e6,
                           row->st.ci_hi * 1e6, row->st.min * 1e6, row->st.max * 1e6,
                           row->st.median * 1e6 / (row->cycles > 0 ? row->cycles : 1));
                    fflush(stdout);
                }
            }
        }
        free(tens);
    }
    int ok = all_agree && all_once && modes_agree;
    if (c->rank == 0 && !ok)
        fprintf(stderr, "orchestration: error: validation failed:%s%s%s\n",
                all_agree ? "" : " ranks released groups in different orders;",
                all_once ? "" : " a group was not released exactly once per step;",
                modes_agree ? "" : " coordinator and cache released different groups per cycle");
    if (c->rank == 0 && o.record) {
        rec_header_t h = {.benchmark = "orchestration", .status = ok ? "ok" : "invalid",
                          .error = ok ? NULL : "orchestration validation failed",
                          .started_utc = started, .argc = argc, .argv = argv, .system = &si,
                          .config = orch_cfg_write, .config_arg = &o, .ranks = c->size, .gpus = 0,
                          .backend = "mpi", .precision = "fp16"};
        char err[512];
        rec_t *r = rec_header_open(o.record, &h, err, sizeof err);
        if (!r) {
            fprintf(stderr, "orchestration: error: record %s\n", err);
            ok = 0; /* the exit status says the record is missing */
        }
        if (r) {
            rec_key(r, "timing");
            rec_map_begin(r);
            rec_kv_str(r, "combine", "max over ranks");
            rec_kv_str(r, "sync", "barrier before each step");
            rec_kv_str(r, "measures", "control cost of one step: all its cycles, no reduction");
            rec_map_end(r);
            rec_key(r, "results");
            rec_seq_begin(r);
            for (int i = 0; i < nrows; i++) {
                orow_t *w = &rows[i];
                rec_map_begin(r);
                rec_kv_str(r, "mode", orch_mode_names[w->mode]);
                rec_kv_str(r, "grouping", orch_grouping_names[w->grouping]);
                rec_kv_int(r, "groups", w->groups);
                rec_kv_int(r, "ranks", c->size);
                rec_kv_int(r, "tensors", w->tensors);
                rec_kv_double(r, "cycles", w->cycles);
                rec_kv_double(r, "coordinator_rounds", w->coord_rounds);
                rec_kv_double(r, "bitvector_rounds", w->bitvec_rounds);
                rec_kv_double(r, "requests", w->requests);
                size_t keep = (size_t)o.steps < 1000 ? (size_t)o.steps : 1000;
                rec_kv_doubles(r, "time_s", w->time_s, keep);
                rec_kv_stats_s(r, &w->st);
                rec_kv_double(r, "per_cycle_s", w->st.median / (w->cycles > 0 ? w->cycles : 1));
                /* the costs the scaling model takes (docs/model.md): per request
                 * (the coordinator's; 0 requests: the cache answered) and per
                 * rank of one cycle */
                if (w->requests > 0) rec_kv_double(r, "per_request_s", w->st.median / w->requests);
                rec_kv_double(r, "per_rank_cycle_s",
                              w->st.median / (w->cycles > 0 ? w->cycles : 1) / c->size);
                rec_map_end(r);
            }
            rec_seq_end(r);
            rec_key(r, "validation");
            rec_seq_begin(r);
            rec_validation(r, "orchestration_ranks_agree", all_agree ? "pass" : "fail", 1,
                           "every rank released the same groups in the same order, every step");
            rec_validation(r, "orchestration_each_group_once", all_once ? "pass" : "fail", 1,
                           "every group released exactly once per step");
            rec_validation(r, "orchestration_modes_agree",
                           !modes_compared ? "skipped" : modes_agree ? "pass" : "fail", 1,
                           "coordinator and cache released the same groups in the same cycles");
            rec_seq_end(r);
            if (rec_header_close(r, err, sizeof err)) {
                fprintf(stderr, "orchestration: error: %s\n", err);
                ok = 0;
            }
        }
    }
    for (int i = 0; i < nrows; i++) {
        free(rows[i].time_s);
        free(rows[i].set_sig);
    }
    free(rows);
    return ok ? 0 : 1;
}
