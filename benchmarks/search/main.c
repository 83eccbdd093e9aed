/* search: an evolutionary search over FC-DenseNet configurations, MENNDL's
 * pattern (docs/search.md): world rank 0 is the master (sr_master.h), the
 * other ranks form worker groups (sr_worker.h) that train each candidate
 * in-process, or evaluate a planted fitness; the record (sr_rec.h) says how
 * many candidates an hour the machine evaluates, how idle the workers were,
 * what a decision of the master costs and how the best fitness fell. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/common/check.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/mpi/mpiopt.h"
#include "benchmarks/common/opt.h"
#include "benchmarks/common/sysinfo.h"
#include "benchmarks/common/timer.h"
#include "benchmarks/networks/fcdensenet/validate.h"
#include "benchmarks/search/sr_master.h"
#include "benchmarks/search/sr_rec.h"
#include "benchmarks/search/sr_worker.h"

static const char *const modes[] = {"async", "sync", NULL};
static const char *const strategies[] = {"evolve", "random", NULL};
static const char *const fitnesses[] = {"train", "planted", NULL};
static const char *const kernel_sets[] = {"fast", "reference", NULL};

static void usage(void)
{
    printf("usage: mpirun -np 1+W*G search [options]   (rank 0 the master, W worker groups of G ranks)\n"
           "  --fitness train|planted  train each candidate (held-out loss after --steps) or the\n"
           "                       planted synthetic fitness: a known optimum, no training (default train)\n"
           "  --mode async|sync    no generation barrier, or generations (default async)\n"
           "  --strategy evolve|random  the population's selection, crossover and mutation, or\n"
           "                       uniform sampling without repetition (default evolve)\n"
           "  --evals N            candidates to evaluate (default 24; at most the space's %lld)\n"
           "  --population P       the master's population (default 16)\n"
           "  --generation N       sync: candidates per generation (default: one per group)\n"
           "  --group-ranks G      ranks per worker group (default 1)\n"
           "  --stop-at-optimum    planted: stop when the optimum has been evaluated\n"
           "  --cost-s X           planted: a candidate's simulated training time, X seconds for the\n"
           "                       space's middle configuration, others in proportion to their FLOPs\n"
           "  --seed N             the search's draws, the planted optimum, weights and data (default 42)\n"
           "  --steps N            train: steps per candidate, after one warm-up (default 4)\n"
           "  --batch N            train: samples per rank per step (default 2)\n"
           "  --threads N          train: threads per rank (default 1)\n"
           "  --kernels fast|reference  train: the kernel set (default fast)\n"
           "  --replay RECORD      take the results in the completion order RECORD lists (an earlier\n"
           "                       search's record, same options): the candidates must come out the same\n"
           "  --record FILE        write the result record\n"
           "  --describe           the search space and the planted optimum of the seed; runs nothing\n"
           "  --check-config       check the options, run nothing (exit 0, or 2 with the error)\n"
           "exit status: 0 done; 1 failed or invalid (a replay that diverged); 2 bad options\n",
           (long long)sr_space_size());
}

static void parse(sr_cfg *c, int argc, char **argv, int *describe)
{
    memset(c, 0, sizeof *c);
    c->evals = 24, c->population = 16, c->group_ranks = 1, c->seed = 42;
    c->steps = 4, c->batch = 2, c->threads = 1;
    snprintf(c->kernels, sizeof c->kernels, "fast");
    int cost = 0, stop = 0;
    for (int i = 1; i < argc; i++) {
        char name[64];
        const char *in, *a = mpiopt_option(argv[i], usage, name, sizeof name, &in);
        if (!strcmp(a, "--fitness")) c->fitness = mpiopt_choice(a, mpiopt_value(argc, argv, &i, in), fitnesses);
        else if (!strcmp(a, "--mode")) c->mode = mpiopt_choice(a, mpiopt_value(argc, argv, &i, in), modes);
        else if (!strcmp(a, "--strategy")) c->strategy = mpiopt_choice(a, mpiopt_value(argc, argv, &i, in), strategies);
        else if (!strcmp(a, "--evals")) c->evals = mpiopt_int(a, mpiopt_value(argc, argv, &i, in), 1, sr_space_size());
        else if (!strcmp(a, "--population")) c->population = (int)mpiopt_int(a, mpiopt_value(argc, argv, &i, in), 2, 1 << 20);
        else if (!strcmp(a, "--generation")) c->generation = (int)mpiopt_int(a, mpiopt_value(argc, argv, &i, in), 1, 1 << 20);
        else if (!strcmp(a, "--group-ranks")) c->group_ranks = (int)mpiopt_int(a, mpiopt_value(argc, argv, &i, in), 1, 1 << 20);
        else if (!strcmp(a, "--stop-at-optimum")) stop = 1;
        else if (!strcmp(a, "--cost-s")) {
            const char *v = mpiopt_value(argc, argv, &i, in);
            c->cost_s = opt_double(a, v, 0, 1e6);
            cost = 1;
        } else if (!strcmp(a, "--seed")) c->seed = (uint64_t)mpiopt_int(a, mpiopt_value(argc, argv, &i, in), 0, INT64_MAX);
        else if (!strcmp(a, "--steps")) c->steps = (int)mpiopt_int(a, mpiopt_value(argc, argv, &i, in), 1, 1 << 20);
        else if (!strcmp(a, "--batch")) c->batch = (int)mpiopt_int(a, mpiopt_value(argc, argv, &i, in), 1, 4096);
        else if (!strcmp(a, "--threads")) c->threads = (int)mpiopt_int(a, mpiopt_value(argc, argv, &i, in), 1, 1024);
        else if (!strcmp(a, "--kernels"))
            snprintf(c->kernels, sizeof c->kernels, "%s", kernel_sets[mpiopt_choice(a, mpiopt_value(argc, argv, &i, in), kernel_sets)]);
        else if (!strcmp(a, "--replay")) c->replay = mpiopt_value(argc, argv, &i, in);
        else if (!strcmp(a, "--record")) c->record = mpiopt_value(argc, argv, &i, in);
        else if (!strcmp(a, "--describe")) *describe = 1;
        else mpiopt_usage_error("unknown option '%s'", a);
    }
    c->stop_at_optimum = stop;
    if (stop && c->fitness != SR_PLANTED) mpiopt_usage_error("--stop-at-optimum: only with --fitness planted (a trained network's optimum is unknown)");
    if (cost && c->fitness != SR_PLANTED) mpiopt_usage_error("--cost-s: only with --fitness planted (training costs what it costs)");
    if (c->generation && c->mode != SR_SYNC) mpiopt_usage_error("--generation: only with --mode sync");
    if (c->group_ranks > 1 && c->fitness == SR_PLANTED) mpiopt_usage_error("--group-ranks: only with --fitness train (a planted fitness needs one rank)");
    if (c->fitness == SR_TRAIN && c->population > c->evals)
        mpiopt_usage_error("--population %d: more than --evals %lld (the population would never fill)",
                           c->population, (long long)c->evals);
    /* the base configuration every candidate changes: the tiny preset's data */
    CHECK(cfg_preset(&c->base, "tiny") == 0, "search: no tiny preset");
    c->base.run.steps = c->steps, c->base.run.warmup = 1, c->base.run.batch = c->batch;
    c->base.run.seed = c->seed, c->base.run.threads = c->threads;
    snprintf(c->base.run.kernels, sizeof c->base.run.kernels, "%s", c->kernels);
    char err[512];
    if (cfg_validate(&c->base, err, sizeof err)) mpiopt_usage_error("%s", err);
}

static void describe_space(const sr_cfg *c)
{
    printf("search space: FC-DenseNet configurations on the tiny preset's data (16x16 images, 6 channels)\n");
    for (int g = 0; g < SR_GENES; g++) {
        printf("  %-11s", sr_gene_name(g));
        for (int i = 0; i < sr_gene_count(g); i++) printf(" %d", sr_gene_value(g, i));
        printf("\n");
    }
    sr_genome opt, lo, hi;
    sr_planted_optimum(c->seed, &opt);
    for (int g = 0; g < SR_GENES; g++) lo.g[g] = 0, hi.g[g] = sr_gene_count(g) - 1;
    char s[160];
    sr_format(&opt, s, sizeof s);
    printf("configurations %lld\nplanted optimum (seed %llu): %s\n", (long long)sr_space_size(),
           (unsigned long long)c->seed, s);
    printf("random sampling meets it after %.1f candidates on average\n", (double)(sr_space_size() + 1) / 2);
    printf("planned FLOPs per candidate (--steps %d, --batch %d, one rank): %.3g to %.3g\n", c->steps,
           c->batch, sr_planned_flops(c, &lo), sr_planned_flops(c, &hi));
}

int main(int argc, char **argv)
{
    check_set_program("search");
    int check_only = opt_take_check_config(&argc, argv);
    int local = check_only;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") || !strcmp(argv[i], "--describe")) local = 1;
    comm_t comm;
    if (local) comm_init_self(&comm);
    else comm_init(&argc, &argv, &comm);
    mpiopt_init("search", comm.rank);
    char started[32];
    timer_utc_iso(started, sizeof started);
    sr_cfg c;
    int describe = 0;
    parse(&c, argc, argv, &describe);
    if (check_only) {
        comm_finalize(&comm);
        return opt_config_valid();
    }
    if (describe) {
        describe_space(&c);
        comm_finalize(&comm);
        return 0;
    }
    if (comm.size < 2 || (comm.size - 1) % c.group_ranks)
        mpiopt_usage_error("%d rank(s): need 1 master + a multiple of --group-ranks %d", comm.size, c.group_ranks);
    int ngroups = (comm.size - 1) / c.group_ranks;
    int64_t *replay = NULL, nreplay = 0;
    uint64_t replay_hash = 0;
    int rc = 0;
    char err[600] = "";
    if (comm.rank == 0 && c.replay && sr_read_replay(c.replay, &replay, &nreplay, &replay_hash, err, sizeof err))
        rc = 2;
    CHECK_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, comm.world));
    if (rc) {
        if (comm.rank == 0) fprintf(stderr, "search: error: %s\n", err);
        comm_finalize(&comm);
        return rc;
    }
    /* the groups: rank 0 alone, then ranks 1.. in groups of G */
    comm_t group = comm;
    CHECK_MPI(MPI_Comm_split(comm.world, comm.rank == 0 ? 0 : 1 + (comm.rank - 1) / c.group_ranks, comm.rank,
                             &group.world));
    CHECK_MPI(MPI_Comm_rank(group.world, &group.rank));
    CHECK_MPI(MPI_Comm_size(group.world, &group.size));
    CHECK_MPI(MPI_Barrier(comm.world));
    sr_wstats ws = {0};
    sr_cand *cand = NULL;
    sr_stats st;
    memset(&st, 0, sizeof st);
    int failed = 0;
    if (comm.rank == 0) {
        failed = sr_master_run(&c, ngroups, replay, nreplay, &cand, &st, err, sizeof err) != 0;
        printf("search: %lld candidates in %.3f s (%s, %s, %d group(s) of %d rank(s)), best %.6g%s\n",
               (long long)st.evaluated, st.wall_s, modes[c.mode], strategies[c.strategy], ngroups,
               c.group_ranks, st.best >= 0 ? cand[st.best].fitness : -1.0,
               st.evals_to_optimum >= 0 ? ", optimum found" : "");
        if (st.evals_to_optimum >= 0) printf("search: optimum after %lld candidates\n", (long long)st.evals_to_optimum);
        if (failed) fprintf(stderr, "search: error: %s\n", err);
    } else {
        sr_worker_run(&c, &group, &ws);
    }
    /* each leader's busy and wall time to the master */
    double mine[2] = {group.rank == 0 ? ws.busy_s : -1, group.rank == 0 ? ws.wall_s : -1};
    double *all = comm.rank == 0 ? XMALLOC((size_t)comm.size * 2 * sizeof *all, "worker times") : NULL;
    CHECK_MPI(MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, comm.world));
    rc = failed;
    if (comm.rank == 0) {
        sr_outcome o = {.cand = cand, .st = &st, .ngroups = ngroups, .replay_hash = replay_hash,
                        .replay_failed = failed};
        snprintf(o.error, sizeof o.error, "%s", err);
        o.busy_s = XMALLOC((size_t)ngroups * sizeof(double), "busy");
        o.wall_s = XMALLOC((size_t)ngroups * sizeof(double), "wall");
        double busy = 0, wall = 0;
        for (int g = 0; g < ngroups; g++) {
            int r = 1 + g * c.group_ranks;
            o.busy_s[g] = all[2 * r], o.wall_s[g] = all[2 * r + 1];
            busy += o.busy_s[g], wall += o.wall_s[g];
        }
        o.idle_fraction = wall > 0 ? 1 - busy / wall : 0;
        o.trace_hash = sr_trace_hash(cand, st.generated);
        printf("search: %.1f candidates/hour, worker idle fraction %.3f, trace %016llx\n",
               st.wall_s > 0 ? 3600.0 * (double)st.evaluated / st.wall_s : 0.0, o.idle_fraction,
               (unsigned long long)o.trace_hash);
        if (replay && replay_hash != o.trace_hash && !failed) {
            fprintf(stderr, "search: error: --replay: the same completion order generated other "
                    "candidates (trace %016llx, the record's %016llx)\n",
                    (unsigned long long)o.trace_hash, (unsigned long long)replay_hash);
            rc = 1;
        }
        if (c.record) {
            sysinfo_t si;
            sysinfo_collect(&si);
            sysinfo_set_hosts(&si, comm.hosts, comm.nhosts);
            if (sr_write_record(&c, &o, &si, comm.size, argc, argv, started)) rc = 1;
        }
        free(o.busy_s);
        free(o.wall_s);
        free(all);
        free(cand);
        sr_stats_free(&st);
    }
    free(replay);
    CHECK_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, comm.world));
    CHECK_MPI(MPI_Comm_free(&group.world));
    comm_finalize(&comm);
    return rc;
}
