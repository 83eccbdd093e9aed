/* The compressed sign exchanges over real MPI ranks (signx.h, the ops
 * vote_1bit and sum_pbit; docs/lioncub.md), against a serial reference that
 * every rank computes from every rank's input (the inputs are a function of
 * (seed, rank, element)).  Sizes that are not multiples of 8, 32 or 64 bits,
 * fewer words than ranks, odd and even rank counts, ties.  One rank as a unit
 * test; tests/it/lioncub.sh runs 2, 3 and 4. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/collectives/bench.h"
#include "benchmarks/collectives/coll.h"
#include "benchmarks/collectives/signops.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/mpi/signx.h"
#include "benchmarks/common/rng.h"
#include "benchmarks/common/signpack.h"
#include "tests/unit/tap.h"

static comm_t g_c;

#define T_ALL(ok, ...)                                                          \
    do {                                                                        \
        int l_ = (ok), g_ = 0;                                                  \
        MPI_Allreduce(&l_, &g_, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);           \
        T_ASSERT(g_, __VA_ARGS__);                                              \
    } while (0)

static const int64_t elems[] = {1, 5, 8, 31, 33, 63, 64, 65, 100, 129, 1000, 4097, 70001};
enum { NEL = sizeof elems / sizeof *elems };

/* Rank q's signs of n elements: ranks agree, disagree and tie. */
static int sign_of(int q, int64_t i) { return (int)(rng_mix((uint64_t)i * 31 + (uint64_t)q * 7 + 3) >> 17) & 1; }

static void test_vote_sum(void)
{
    int n = g_c.size, me = g_c.rank, p = sp_bits(n);
    signx_buf xb = {0};
    for (int k = 0; k < NEL; k++) {
        int64_t ne = elems[k], nb = sp_words(ne, 1), nf = sp_words(ne, p);
        uint64_t *bits = calloc((size_t)nb, 8), *fields = calloc((size_t)nf, 8);
        for (int64_t i = 0; i < ne; i++) bits[i / 64] |= (uint64_t)sign_of(me, i) << (i % 64);
        sp_spread(bits, ne, p, fields);
        uint64_t seed = 1000 + (uint64_t)k;
        int64_t sent = signx_vote(MPI_COMM_WORLD, bits, nb, seed, &xb, k % 2 ? 20 : 0);
        int64_t sent2 = signx_sum(MPI_COMM_WORLD, fields, nf, &xb, k % 2 ? 0 : 20);
        int64_t bad = 0, first = -1;
        for (int64_t i = 0; i < ne; i++) {
            int ones = 0;
            for (int q = 0; q < n; q++) ones += sign_of(q, i);
            int want = 2 * ones > n ? 1 : 2 * ones < n ? 0
                       : (int)((sp_tie_word(sp_vote_seed(seed), i / 64) >> (i % 64)) & 1);
            int got = (int)((bits[i / 64] >> (i % 64)) & 1);
            if (got != want || (int)sp_field(fields, p, i) != ones) {
                if (first < 0) first = i;
                bad++;
            }
        }
        int64_t cv = (nb + n - 1) / n, cs = (nf + n - 1) / n;
        T_ALL(bad == 0, "%lld elements over %d ranks: %lld wrong (first %lld)", (long long)ne, n,
              (long long)bad, (long long)first);
        T_ALL(sent == 2 * (n - 1) * cv * 8 && sent2 == 2 * (n - 1) * cs * 8,
              "bytes sent %lld and %lld for %lld and %lld words", (long long)sent, (long long)sent2,
              (long long)nb, (long long)nf);
        free(bits);
        free(fields);
    }
    signx_buf_free(&xb);
}

/* A fused batch voted with one run per tensor gives each tensor the bits it
 * gets voted alone with its seed: a weight's tie bit does not depend on what
 * the gradient engine fused with it (lionx; fusion follows timing). */
static void test_vote_runs(void)
{
    int me = g_c.rank;
    signx_buf xb = {0};
    const int64_t sizes[] = {5, 64, 130, 1, 4097, 200}; /* elements per tensor */
    enum { NT = sizeof sizes / sizeof *sizes };
    signx_run runs[NT];
    int64_t total = 0;
    for (int t = 0; t < NT; t++) {
        runs[t] = (signx_run){.word0 = total, .seed = rng_mix(77 + (uint64_t)t)};
        total += sp_words(sizes[t], 1);
    }
    uint64_t *fused = calloc((size_t)total, 8), *alone = calloc((size_t)total, 8);
    for (int t = 0; t < NT; t++)
        for (int64_t i = 0; i < sizes[t]; i++) {
            uint64_t b = (uint64_t)sign_of(me, 1000 * t + i) << (i % 64);
            fused[runs[t].word0 + i / 64] |= b;
            alone[runs[t].word0 + i / 64] |= b;
        }
    signx_vote_runs(MPI_COMM_WORLD, fused, total, runs, NT, &xb, 0);
    for (int t = 0; t < NT; t++)
        signx_vote(MPI_COMM_WORLD, alone + runs[t].word0, sp_words(sizes[t], 1), runs[t].seed, &xb,
                   0);
    int64_t bad = 0;
    for (int64_t w = 0; w < total; w++) bad += fused[w] != alone[w];
    T_ALL(bad == 0, "fused vote with %d runs over %d ranks: %lld of %lld words differ from each "
                    "tensor voted alone", NT, g_c.size, (long long)bad, (long long)total);
    free(fused);
    free(alone);
    signx_buf_free(&xb);
}

/* The ops themselves, float32 and int32, at sizes that split unevenly. */
static void test_ops(void)
{
    int n = g_c.size, me = g_c.rank;
    const char *names[] = {"vote_1bit", "sum_pbit"};
    for (int o = 0; o < 2; o++) {
        const coll_op_t *op = coll_op_find(names[o]);
        T_ASSERT(op, "%s is not registered", names[o]);
        for (int t = 0; t < 2; t++) {
            coll_dtype_t dt = t ? DT_I32 : DT_F32;
            for (int k = 0; k < NEL; k++) {
                coll_pattern_t pat;
                coll_pattern_init(&pat, dt, RED_SUM, n, 0, 77 + (uint64_t)k);
                coll_shape_t sh;
                char err[256];
                T_ASSERT(op->shape((size_t)elems[k] * 4, 4, n, &sh, err, sizeof err) == 0, "%s", err);
                coll_ctx_t c = {.backend = BK_MPI, .dtype = dt, .rank = me, .nranks = n,
                                .shape = sh, .pat = &pat, .comm = MPI_COMM_WORLD,
                                .mpi_type = coll_mpi_type(dt)};
                void *send = calloc(sh.count, 4), *recv = calloc(sh.count, 4);
                coll_fill(&c, op, 0, send, recv);
                int rc = op->run(&c, 0, send, recv, err, sizeof err);
                /* the reference from every rank's input, written out here */
                size_t wrong = 0;
                for (size_t j = 0; !rc && j < sh.count; j++) {
                    int ones = 0;
                    for (int q = 0; q < n; q++) {
                        coll_ctx_t cq = c;
                        cq.rank = q;
                        double v = sign_in_value(&cq, j);
                        ones += v > 0 ? 1 : v < 0 ? 0
                                : (int)((sp_tie_word(pat.seed, (int64_t)(j / 64)) >> (j % 64)) & 1);
                    }
                    double want = o ? 2.0 * ones - n
                                  : 2 * ones != n ? (2 * ones > n ? 1.0 : -1.0)
                                  : ((sp_tie_word(sp_vote_seed(pat.seed), (int64_t)(j / 64)) >> (j % 64)) & 1)
                                        ? 1.0 : -1.0;
                    wrong += coll_get(dt, recv, j) != want;
                }
                size_t checked = rc ? 1 : coll_check(&c, op, 0, send, recv, 2);
                T_ALL(!rc && wrong == 0 && checked == 0, "%s %s %zu elements over %d ranks: %s%zu wrong "
                      "(the op's own check: %zu)", names[o], coll_dtype_names[dt], sh.count, n,
                      rc ? err : "", wrong, checked);
                free(send);
                free(recv);
                coll_pattern_free(&pat);
            }
        }
    }
}

int main(int argc, char **argv)
{
    comm_init(&argc, &argv, &g_c);
    if (g_c.rank != 0 && !freopen("/dev/null", "w", stdout)) return 1;
    T_RUN(test_vote_sum);
    T_RUN(test_vote_runs);
    T_RUN(test_ops);
    coll_mpi_ops_free();
    comm_finalize(&g_c);
    T_DONE();
}
