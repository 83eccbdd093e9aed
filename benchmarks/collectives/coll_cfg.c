#include "benchmarks/collectives/coll_cfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/mpiopt.h"

const char *const coll_inplace_names[] = {"no", "yes", "both", NULL};
const char *const coll_timing_names[] = {"batched", "per-call", NULL};

static void usage(void)
{
    char ops[2048];
    coll_ops_help(ops, sizeof ops, 6);
    printf(
        "usage: collectives [options]          collective microbenchmarks (nccl-tests/OSU style)\n"
        "  (the Horovod orchestration benchmark is its own program: orchestration --help)\n"
        "  --backend mpi|mpi-cuda|nccl   host buffers over MPI; device buffers over CUDA-aware\n"
        "                                MPI; NCCL, one GPU per rank (mpi)\n"
        "  --op LIST|all        comma-separated operations (all):\n"
        "%s"
        "  --dtype LIST|all     float32,float64,float16,bfloat16,int32 (float32)\n"
        "  --redop LIST|all     sum,min,max (sum); for allreduce, reduce_scatter, reduce\n"
        "  --root R             root of broadcast and reduce (0)\n"
        "  -b, --minbytes MIN   smallest size (4; raised to one element per rank for the\n"
        "                       operations that split the size over the ranks)\n"
        "  -e, --maxbytes MAX   largest size (16M); sizes take K, M, G (binary)\n"
        "  -f, --stepfactor F   size multiplier between rows (2)\n"
        "  -n, --iters N        timed calls (1000 up to 8 KiB, 100 above, OSU's counts; batched\n"
        "                       timing raises them to at least 10 batches)\n"
        "  --timing batched|per-call  batched: a sample is the mean of B back-to-back calls,\n"
        "                       barrier only between batches (OSU/nccl-tests' quantity);\n"
        "                       per-call: a barrier before each call (batched)\n"
        "  --batch-us T         batched: a batch lasts at least T microseconds (100)\n"
        "  --batch N            batched: N calls per batch whatever they take (nccl-tests'\n"
        "                       method: its -n calls between two syncs); -n a multiple of N\n"
        "  -w, --warmup N       untimed iterations first (100 up to 8 KiB, 10 above)\n"
        "  --inplace yes|no|both  in-place, out-of-place or both variants (both)\n"
        "  --seed N             data pattern seed (1)\n"
        "  --record FILE        write the result record (YAML, docs/record.md)\n"
        "  --check-config       check the options, run nothing (exit 0, or 2 with the error)\n"
        "  --help               this text\n"
        "Output: a table per operation on stdout; time is the median over samples of the\n"
        "slowest rank's time per call (us), algbw = size/time, busbw = algbw x nccl-tests'\n"
        "factor, #wrong = wrong output elements over all ranks.  Exit status: 0 ok,\n"
        "1 wrong results or a failure, 2 bad arguments, 3 backend not available here.\n",
        ops);
}

static void parse_plant(coll_cfg_t *c, const char *v)
{
    long long r, i;
    char *copy = strdup(v);
    CHECK(copy != NULL, "out of memory for --plant-error");
    char *colon = strchr(copy, ':');
    if (!colon) mpiopt_usage_error("--plant-error: '%s' is not RANK:INDEX", v);
    *colon = 0;
    r = mpiopt_int("--plant-error", copy, 0, 1 << 30);
    i = mpiopt_int("--plant-error", colon + 1, 0, 1LL << 62);
    free(copy);
    c->chk.plant = 1;
    c->chk.plant_rank = (int)r;
    c->chk.plant_index = (size_t)i;
}

void coll_cfg_parse(int argc, char **argv, coll_cfg_t *c)
{
    memset(c, 0, sizeof *c);
    c->backend = BK_MPI;
    for (int i = 0; coll_ops[i]; i++) c->ops[i] = 1;
    c->dtypes[DT_F32] = 1;
    c->redops[RED_SUM] = 1;
    c->min_bytes = 4;
    c->max_bytes = 16u << 20;
    c->factor = 2;
    c->iters = c->warmup = -1;
    c->batch_target_s = 100e-6;
    c->inplace_mode = 2;
    c->seed = 1;
    c->chk.max_reports = 3;
    /* the orchestration benchmark used to hide behind this flag */
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--orchestration"))
            mpiopt_usage_error("--orchestration: the orchestration benchmark is its own program "
                               "now: run `orchestration` with the same options");
    const char *env = getenv("EXADL_COLL_PLANT_ERROR"); /* test hook, as --plant-error */
    if (env && *env) parse_plant(c, env);
    for (int i = 1; i < argc; i++) {
        char name[64];
        const char *eq, *a = mpiopt_option(argv[i], usage, name, sizeof name, &eq);
#define VAL() mpiopt_value(argc, argv, &i, eq)
        if (!strcmp(a, "--backend")) {
            c->backend = mpiopt_choice(a, VAL(), coll_backend_names);
        } else if (!strcmp(a, "--op")) {
            const char *names[COLL_NOPS + 1];
            int k = 0;
            for (; coll_ops[k]; k++) names[k] = coll_ops[k]->name;
            names[k] = NULL;
            mpiopt_choice_list(a, VAL(), names, c->ops);
        } else if (!strcmp(a, "--dtype")) {
            mpiopt_choice_list(a, VAL(), coll_dtype_names, c->dtypes);
        } else if (!strcmp(a, "--redop")) {
            mpiopt_choice_list(a, VAL(), coll_redop_names, c->redops);
        } else if (!strcmp(a, "--root")) {
            c->root = (int)mpiopt_int(a, VAL(), 0, 1 << 30);
        } else if (!strcmp(a, "-b") || !strcmp(a, "--minbytes")) {
            c->min_bytes = mpiopt_size(a, VAL());
            c->min_given = 1;
        } else if (!strcmp(a, "-e") || !strcmp(a, "--maxbytes")) {
            c->max_bytes = mpiopt_size(a, VAL());
        } else if (!strcmp(a, "-f") || !strcmp(a, "--stepfactor")) {
            c->factor = mpiopt_int(a, VAL(), 2, 1 << 20);
        } else if (!strcmp(a, "-n") || !strcmp(a, "--iters")) {
            c->iters = (int)mpiopt_int(a, VAL(), 1, 10000000);
        } else if (!strcmp(a, "-w") || !strcmp(a, "--warmup")) {
            c->warmup = (int)mpiopt_int(a, VAL(), 0, 10000000);
        } else if (!strcmp(a, "--timing")) {
            c->per_call = mpiopt_choice(a, VAL(), coll_timing_names);
        } else if (!strcmp(a, "--batch-us")) {
            c->batch_target_s = (double)mpiopt_int(a, VAL(), 1, 10000000) * 1e-6;
        } else if (!strcmp(a, "--batch")) {
            c->batch_calls = (int)mpiopt_int(a, VAL(), 1, 10000000);
        } else if (!strcmp(a, "--inplace")) {
            c->inplace_mode = mpiopt_choice(a, VAL(), coll_inplace_names);
        } else if (!strcmp(a, "--seed")) {
            c->seed = (unsigned long long)mpiopt_int(a, VAL(), 0, 1LL << 62);
        } else if (!strcmp(a, "--record")) {
            c->record = VAL();
        } else if (!strcmp(a, "--plant-error")) {
            parse_plant(c, VAL());
        } else {
            mpiopt_usage_error("unknown option '%s'", argv[i]);
        }
#undef VAL
    }
    if (c->batch_calls > 0 && c->per_call)
        mpiopt_usage_error("--batch %d: per-call timing has one call per sample (leave out --batch or "
                           "--timing per-call)", c->batch_calls);
    if (c->batch_calls > 0 && c->iters > 0 && c->iters % c->batch_calls)
        mpiopt_usage_error("--batch %d: -n %d is not a multiple of it (the timed calls come in whole batches)",
                           c->batch_calls, c->iters);
    if (c->min_bytes == 0) mpiopt_usage_error("-b: the smallest size must be at least 1 byte");
    if (c->min_bytes > c->max_bytes)
        mpiopt_usage_error("-b %zu is larger than -e %zu (MIN > MAX)", c->min_bytes, c->max_bytes);
}

int coll_cfg_sizes(const coll_cfg_t *c, const coll_op_t *op, coll_dtype_t t, int nranks,
                   size_t *out)
{
    size_t es = coll_dtype_size(t), lo = c->min_bytes;
    if (!c->min_given) {
        if (lo < es) lo = es;
        if ((op->flags & OP_SPLITS) && lo < es * (size_t)nranks) lo = es * (size_t)nranks;
    }
    int n = 0;
    for (size_t s = lo; s <= c->max_bytes && n < COLL_MAX_SIZES; s *= (size_t)c->factor) {
        out[n++] = s;
        if (s > c->max_bytes / (size_t)c->factor) break;
    }
    return n;
}
