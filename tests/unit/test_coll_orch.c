/* Orchestration (orch.h) over however many ranks run it: as a unit test one
 * rank; tests/it/coll_orch.sh runs it under mpirun over 2 and 3 ranks.  Every
 * check is agreed over all ranks (MPI_Allreduce) before it passes or fails, so
 * all ranks take the same path; only rank 0 prints. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/mpi/orch.h"
#include "benchmarks/common/rng.h"
#include "tests/unit/tap.h"

static comm_t g_c;

/* all ranks agree on ok, or the test fails everywhere */
#define T_ALL(ok, ...)                                                          \
    do {                                                                        \
        int l_ = (ok), g_ = 0;                                                  \
        MPI_Allreduce(&l_, &g_, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);           \
        T_ASSERT(g_, __VA_ARGS__);                                              \
    } while (0)

static void perm(int *p, int n, int rank, int step)
{
    rng_t r = rng_stream(99, (uint64_t)rank, (uint64_t)step, 5);
    for (int i = 0; i < n; i++) p[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rng_next(&r) % (uint64_t)(i + 1)), t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
}

static orch_t *make(orch_mode_t m, orch_grouping_t g, int T, const int *layer, int ngroups,
                    double timeout)
{
    orch_config_t cfg = {.mode = m, .grouping = g, .ngroups = ngroups, .ntensors = T,
                         .layer = layer, .timeout_s = timeout, .comm = MPI_COMM_WORLD};
    char err[256];
    orch_t *o = orch_create(&cfg, err, sizeof err);
    T_ASSERT(o, "orch_create: %s", err);
    return o;
}

static void test_groups(void)
{
    int layer[7] = {0, 0, 1, 2, 2, 2, 3};
    orch_t *o = make(ORCH_COORDINATOR, ORCH_GROUP_LAYER, 7, layer, 0, 0);
    int n;
    T_ASSERT(orch_ngroups(o) == 4, "layer groups: %d", orch_ngroups(o));
    const int *m = orch_group_members(o, 2, &n);
    T_ASSERT(n == 3 && m[0] == 3 && m[2] == 5, "group 2 members");
    orch_destroy(o);
    o = make(ORCH_CACHE, ORCH_GROUP_EVEN, 7, NULL, 3, 0);
    T_ASSERT(orch_ngroups(o) == 3, "even groups");
    int sizes[3] = {0};
    for (int g = 0; g < 3; g++) orch_group_members(o, g, &sizes[g]);
    T_ASSERT(sizes[0] + sizes[1] + sizes[2] == 7 && sizes[0] >= 2 && sizes[0] <= 3 &&
                 sizes[2] >= 2 && sizes[2] <= 3, "even sizes %d %d %d", sizes[0], sizes[1], sizes[2]);
    orch_destroy(o);
    o = make(ORCH_CACHE, ORCH_GROUP_EVEN, 3, NULL, 10, 0);
    T_ASSERT(orch_ngroups(o) == 3, "more groups than tensors are clamped");
    orch_destroy(o);
    o = make(ORCH_COORDINATOR, ORCH_GROUP_NONE, 5, NULL, 0, 0);
    T_ASSERT(orch_ngroups(o) == 5 && orch_group_of(o, 4) == 4, "no grouping: one per tensor");
    orch_destroy(o);
}

static void test_bad_config(void)
{
    orch_config_t cfg = {.mode = ORCH_CACHE, .grouping = ORCH_GROUP_NONE, .ntensors = 0,
                         .comm = MPI_COMM_WORLD};
    char err[256] = "";
    T_ASSERT(orch_create(&cfg, err, sizeof err) == NULL && strstr(err, "at least one tensor"),
             "0 tensors: %s", err);
    cfg.ntensors = 4;
    cfg.grouping = ORCH_GROUP_EVEN;
    cfg.ngroups = 0;
    T_ASSERT(orch_create(&cfg, err, sizeof err) == NULL && strstr(err, "at least one group"),
             "0 groups: %s", err);
}

/* The property that matters: with every rank marking K tensors per cycle in
 * its own random order, a group is released in the first cycle after which
 * all its tensors are ready on all ranks -- the same cycle in both modes, the
 * same order on every rank, every group once per step. */
enum { T = 27, STEPS = 12, K = 2 };

static void run_mode(orch_mode_t m, orch_grouping_t g, const int *layer, int *rel_cycle,
                     int *order, int *cycles)
{
    orch_t *o = make(m, g, T, layer, 4, 30);
    int G = orch_ngroups(o), p[T], rel[T];
    char err[512];
    for (int s = 0; s < STEPS; s++) {
        perm(p, T, g_c.rank, s);
        orch_step_begin(o);
        int next = 0, cyc = 0, nord = 0;
        for (int i = 0; i < G; i++) rel_cycle[s * T + i] = -1;
        while (!orch_step_done(o)) {
            for (int k = 0; k < K && next < T; k++) orch_mark_ready(o, p[next++]);
            int n = orch_cycle(o, rel, err, sizeof err);
            T_ASSERT(n >= 0, "orch_cycle: %s", err);
            for (int i = 0; i < n; i++) {
                T_ASSERT(rel_cycle[s * T + rel[i]] == -1, "group %d released twice", rel[i]);
                rel_cycle[s * T + rel[i]] = cyc;
                order[s * T + nord++] = rel[i];
            }
            T_ASSERT(++cyc < 10 * T, "step does not end");
        }
        cycles[s] = cyc;
    }
    orch_destroy(o);
}

static void test_modes_agree(void)
{
    int layer[T];
    for (int t = 0; t < T; t++) layer[t] = t < 2 ? 0 : (t < 25 ? t - 1 : 24); /* gb2019-like */
    for (int g = ORCH_GROUP_NONE; g <= ORCH_GROUP_EVEN; g++) {
        static int rc[2][STEPS * T], ord[2][STEPS * T], cyc[2][STEPS];
        run_mode(ORCH_COORDINATOR, (orch_grouping_t)g, layer, rc[0], ord[0], cyc[0]);
        run_mode(ORCH_CACHE, (orch_grouping_t)g, layer, rc[1], ord[1], cyc[1]);
        orch_t *o = make(ORCH_CACHE, (orch_grouping_t)g, T, layer, 4, 0);
        int G = orch_ngroups(o), ok = 1, p[T];
        /* expected release cycle: max over ranks and members of the cycle the
         * tensor was marked (position / K) */
        for (int s = 0; s < STEPS && ok; s++) {
            int ready_at[T];
            for (int t = 0; t < T; t++) ready_at[t] = -1;
            for (int r = 0; r < g_c.size; r++) {
                perm(p, T, r, s);
                for (int i = 0; i < T; i++)
                    if (i / K > ready_at[p[i]]) ready_at[p[i]] = i / K;
            }
            for (int gr = 0; gr < G; gr++) {
                int n, want = -1;
                const int *m = orch_group_members(o, gr, &n);
                for (int i = 0; i < n; i++) if (ready_at[m[i]] > want) want = ready_at[m[i]];
                if (rc[0][s * T + gr] != want || rc[1][s * T + gr] != want) {
                    fprintf(stderr, "rank %d grouping %s step %d group %d: coordinator cycle %d, "
                            "cache cycle %d, expected %d\n", g_c.rank, orch_grouping_names[g], s,
                            gr, rc[0][s * T + gr], rc[1][s * T + gr], want);
                    ok = 0;
                }
            }
            if (cyc[0][s] != cyc[1][s]) ok = 0;
        }
        T_ALL(ok, "grouping %s: release cycles differ from the expected ones", orch_grouping_names[g]);
        /* every rank the same order: compare with rank 0's */
        for (int mo = 0; mo < 2; mo++) {
            static int root[STEPS * T];
            memcpy(root, ord[mo], sizeof root);
            MPI_Bcast(root, STEPS * T, MPI_INT, 0, MPI_COMM_WORLD);
            int same = 1;
            for (int s = 0; s < STEPS; s++)
                for (int i = 0; i < G; i++) same &= root[s * T + i] == ord[mo][s * T + i];
            T_ALL(same, "%s/%s: ranks released groups in different orders", orch_mode_names[mo],
                  orch_grouping_names[g]);
        }
        orch_destroy(o);
    }
}

static void test_cache_skips_coordinator_after_first_step(void)
{
    orch_t *o = make(ORCH_CACHE, ORCH_GROUP_NONE, 10, NULL, 0, 10);
    int rel[10], p[10];
    char err[256];
    orch_stats_t after_first = {0};
    for (int s = 0; s < 3; s++) {
        perm(p, 10, g_c.rank, s);
        orch_step_begin(o);
        int next = 0;
        while (!orch_step_done(o)) {
            if (next < 10) orch_mark_ready(o, p[next++]);
            T_ASSERT(orch_cycle(o, rel, err, sizeof err) >= 0, "%s", err);
        }
        if (s == 0) after_first = orch_stats(o);
    }
    orch_stats_t end = orch_stats(o);
    T_ASSERT(after_first.coordinator_rounds > 0, "the first step negotiates");
    T_ASSERT(end.coordinator_rounds == after_first.coordinator_rounds,
             "cached steps still used the coordinator (%ld rounds)",
             end.coordinator_rounds - after_first.coordinator_rounds);
    T_ASSERT(end.bitvector_rounds == end.cycles, "one bit-vector allreduce per cycle");
    orch_destroy(o);
    o = make(ORCH_COORDINATOR, ORCH_GROUP_NONE, 10, NULL, 0, 10);
    orch_step_begin(o);
    for (int t = 0; t < 10; t++) orch_mark_ready(o, t);
    T_ASSERT(orch_cycle(o, rel, err, sizeof err) == 10, "all ready: all released in one cycle");
    T_ASSERT(orch_stats(o).coordinator_rounds == 1 && orch_stats(o).bitvector_rounds == 0,
             "coordinator mode: one round, no bit vector");
    orch_destroy(o);
}

static void test_timeout_names_tensor_and_rank(void)
{
    for (int m = 0; m < 2; m++) {
        orch_t *o = make((orch_mode_t)m, ORCH_GROUP_LAYER, 6, NULL, 0, 0.2);
        int rel[6], missing_rank = g_c.size - 1, rc = 0, cycles = 0;
        char err[1024] = "";
        orch_step_begin(o);
        for (int t = 0; t < 6; t++)
            if (!(t == 3 && g_c.rank == missing_rank)) orch_mark_ready(o, t);
        /* about 1 ms a cycle: the 0.2 s timeout comes after ~200 cycles */
        while ((rc = orch_cycle(o, rel, err, sizeof err)) >= 0 && cycles < 5000) {
            cycles++;
            usleep(1000);
        }
        char want[64];
        snprintf(want, sizeof want, "tensor 3 (group 3) not ready on rank %d", missing_rank);
        T_ALL(rc < 0 && strstr(err, want) != NULL, "%s: no timeout error naming the tensor: '%s'",
              orch_mode_names[m], err);
        orch_destroy(o);
    }
}

int main(int argc, char **argv)
{
    comm_init(&argc, &argv, &g_c);
    if (g_c.rank != 0 && !freopen("/dev/null", "w", stdout)) return 1;
    T_RUN(test_groups);
    T_RUN(test_bad_config);
    T_RUN(test_modes_agree);
    T_RUN(test_cache_skips_coordinator_after_first_step);
    T_RUN(test_timeout_names_tensor_and_rank);
    comm_finalize(&g_c);
    T_DONE();
}
