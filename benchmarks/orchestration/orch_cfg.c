#include "benchmarks/orchestration/orch_cfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/mpiopt.h"
#include "benchmarks/common/mpi/orch.h"

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

void orch_cfg_parse(int argc, char **argv, orch_cfg_t *o)
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
                if (o->ncounts == ORCH_MAX_TENSOR_COUNTS)
                    mpiopt_usage_error("--tensors: more than %d counts", ORCH_MAX_TENSOR_COUNTS);
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

/* docs/collectives.md "The orchestration benchmark": every option that ran */
void orch_cfg_write(rec_t *r, const void *arg)
{
    const orch_cfg_t *o = arg;
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
        int64_t tc[ORCH_MAX_TENSOR_COUNTS];
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
