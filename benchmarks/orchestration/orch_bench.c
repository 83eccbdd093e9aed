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
#include "benchmarks/orchestration/tensors.h"

#define MAX_TENSOR_COUNTS 16

typedef struct {
    int modes[3], groupings[4];
    int ngroups;
    int tensor_counts[MAX_TENSOR_COUNTS], ncounts; /* 0: the gb2019 list */
    size_t tensor_bytes;
    int ready_per_cycle, steps, warmup_steps;
    double timeout_s;
    unsigned long long seed;
    const char *record;
} ocfg_t;

typedef struct {
    int mode, grouping, groups, tensors;
    double *time_s;
    stats_summary_t st;
    double cycles, coord_rounds, bitvec_rounds, requests; /* per timed step */
    unsigned long long *set_sig;                           /* per step: order-free */
    int agree, once;
} orow_t;

static void usage(void)
{
    printf("usage: orchestration [options]\n"
           "Per-step control cost of Horovod-style negotiation: every rank marks its tensors\n"
           "ready in its own random order, one cycle after another, until every group is\n"
           "released.  See docs/collectives.md.\n"
           "  --mode coordinator|cache|all        (all)\n"
           "  --grouping none|layer|even|all      (all)\n"
           "  --groups N              even groups (4)\n"
           "  --tensors N[,N...]      synthetic tensor counts (default: the gb2019 list)\n"
           "  --tensor-bytes B        bytes per synthetic tensor (4M); two tensors per layer\n"
           "  --ready-per-cycle K     tensors each rank marks ready per cycle (1)\n"
           "  --steps S               timed steps (50)\n"
           "  --warmup-steps W        untimed steps first; the first fills the cache (2)\n"
           "  --timeout SECONDS       a step without progress this long is an error (10)\n"
           "  --seed N                ready orders (1)\n"
           "  --record FILE           write the result record\n"
           "  --check-config          check the options, run nothing (exit 0, or 2 with the error)\n");
}

static void parse(int argc, char **argv, ocfg_t *o)
{
    memset(o, 0, sizeof *o);
    o->modes[0] = o->modes[1] = 1;
    o->groupings[0] = o->groupings[1] = o->groupings[2] = 1;
    o->ngroups = 4;
    o->tensor_bytes = 4u << 20;
    o->ready_per_cycle = 1;
    o->steps = 50;
    o->warmup_steps = 2;
    o->timeout_s = 10;
    o->seed = 1;
    for (int i = 1; i < argc; i++) {
        char name[64];
        const char *eq, *a = mpiopt_option(argv[i], usage, name, sizeof name, &eq);
        if (!strcmp(a, "--mode")) {
            mpiopt_choice_list(a, mpiopt_value(argc, argv, &i, eq), orch_mode_names, o->modes);
        } else if (!strcmp(a, "--grouping")) {
            mpiopt_choice_list(a, mpiopt_value(argc, argv, &i, eq), orch_grouping_names,
                                 o->groupings);
        } else if (!strcmp(a, "--groups")) {
            o->ngroups = (int)mpiopt_int(a, mpiopt_value(argc, argv, &i, eq), 1, 1 << 20);
        } else if (!strcmp(a, "--tensors")) {
            const char *v = mpiopt_value(argc, argv, &i, eq);
            char *copy = strdup(v), *save = NULL;
            CHECK(copy != NULL, "out of memory for --tensors");
            o->ncounts = 0;
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (o->ncounts == MAX_TENSOR_COUNTS)
                    mpiopt_usage_error("--tensors: more than %d counts", MAX_TENSOR_COUNTS);
                o->tensor_counts[o->ncounts++] = (int)mpiopt_int(a, t, 1, 1 << 20);
            }
            free(copy);
            if (!o->ncounts) mpiopt_usage_error("--tensors needs a value");
        } else if (!strcmp(a, "--tensor-bytes")) {
            o->tensor_bytes = mpiopt_size(a, mpiopt_value(argc, argv, &i, eq));
        } else if (!strcmp(a, "--ready-per-cycle")) {
            o->ready_per_cycle = (int)mpiopt_int(a, mpiopt_value(argc, argv, &i, eq), 1, 1 << 20);
        } else if (!strcmp(a, "--steps")) {
            o->steps = (int)mpiopt_int(a, mpiopt_value(argc, argv, &i, eq), 1, 1000000);
        } else if (!strcmp(a, "--warmup-steps")) {
            o->warmup_steps = (int)mpiopt_int(a, mpiopt_value(argc, argv, &i, eq), 0, 1000000);
        } else if (!strcmp(a, "--timeout")) {
            const char *v = mpiopt_value(argc, argv, &i, eq);
            char *end;
            o->timeout_s = strtod(v, &end);
            if (*end || end == v || !(o->timeout_s >= 0))
                mpiopt_usage_error("--timeout: '%s' is not a number of seconds", v);
        } else if (!strcmp(a, "--seed")) {
            o->seed = (unsigned long long)mpiopt_int(a, mpiopt_value(argc, argv, &i, eq), 0,
                                                       (1LL << 62));
        } else if (!strcmp(a, "--record")) {
            o->record = mpiopt_value(argc, argv, &i, eq);
        } else {
            mpiopt_usage_error("unknown option '%s'", argv[i]);
        }
    }
}

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

static void run_row(const ocfg_t *o, comm_t *c, const coll_tensor_t *tens, int T, int mode,
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

/* docs/collectives.md "The orchestration benchmark": every option that ran */
static void write_config(rec_t *r, const void *arg)
{
    const ocfg_t *o = arg;
    rec_key(r, "config");
    rec_map_begin(r);
    rec_key(r, "modes");
    rec_flow_seq_begin(r);
    for (int m = 0; m < 2; m++)
        if (o->modes[m]) rec_str(r, orch_mode_names[m]);
    rec_seq_end(r);
    rec_key(r, "groupings");
    rec_flow_seq_begin(r);
    for (int g = 0; g < 3; g++)
        if (o->groupings[g]) rec_str(r, orch_grouping_names[g]);
    rec_seq_end(r);
    rec_kv_int(r, "groups", o->ngroups);
    rec_kv_str(r, "tensor_set", o->ncounts ? "synthetic" : "gb2019");
    if (o->ncounts) {
        int64_t tc[MAX_TENSOR_COUNTS];
        for (int i = 0; i < o->ncounts; i++) tc[i] = o->tensor_counts[i];
        rec_kv_ints(r, "tensors", tc, (size_t)o->ncounts);
        rec_kv_int(r, "tensor_bytes", (int64_t)o->tensor_bytes);
    }
    rec_kv_int(r, "ready_per_cycle", o->ready_per_cycle);
    rec_kv_int(r, "steps", o->steps);
    rec_kv_int(r, "warmup_steps", o->warmup_steps);
    rec_kv_double(r, "timeout_s", o->timeout_s);
    rec_kv_int(r, "seed", (int64_t)o->seed);
    rec_map_end(r);
}

int orch_bench_check(int argc, char **argv)
{
    ocfg_t o;
    parse(argc, argv, &o);
    return opt_config_valid();
}

int orch_bench_run(int argc, char **argv, comm_t *c)
{
    ocfg_t o;
    parse(argc, argv, &o);
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
                          .config = write_config, .config_arg = &o, .ranks = c->size, .gpus = 0,
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
