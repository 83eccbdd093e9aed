/* Every registered collective (ops/ops.def), each check one loop over the
 * registry, so a new operation is tested the moment its line is added and a
 * broken or unknown one fails here:
 *   - the registry: callbacks present, names unique and usable in --op lists,
 *     found by name, one line each in the --op help with its summary;
 *   - the bus-bandwidth factor against nccl-tests' definition, written here
 *     independently of the op files;
 *   - the data: a host simulation of n ranks (no MPI calls) where this file's
 *     own reference computes every rank's output from all ranks' inputs; the
 *     op's check finds 0 wrong there, and exactly 1 after a planted element
 *     (both backends' layouts, both variants, five types);
 *   - the calls: each operation run for real over MPI_COMM_WORLD (one rank
 *     as a unit test; tests/it/coll_ops.sh runs 2, 3 and 4), its output
 *     compared with the same reference and checked, then planted.
 * An operation this file has no reference for fails: add its definition
 * below (expected_factor, reference). */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/collectives/bench.h"
#include "benchmarks/collectives/coll.h"
#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/signpack.h"
#include "tests/unit/tap.h"

enum { MAXR = 8, CHUNK = 4 };

static comm_t g_c;

/* all ranks agree on ok, or the test fails everywhere */
#define T_ALL(ok, ...)                                                          \
    do {                                                                        \
        int l_ = (ok), g_ = 0;                                                  \
        MPI_Allreduce(&l_, &g_, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);           \
        T_ASSERT(g_, __VA_ARGS__);                                              \
    } while (0)

/* ---- nccl-tests' definitions (the busBw factor of each src/NAME.cu) ---- */
static double expected_factor(const char *op, int n)
{
    double p = n;
    if (!strcmp(op, "allreduce")) return 2 * (p - 1) / p;
    if (!strcmp(op, "allgather") || !strcmp(op, "reduce_scatter") || !strcmp(op, "alltoall"))
        return (p - 1) / p;
    if (!strcmp(op, "broadcast") || !strcmp(op, "reduce")) return 1;
    /* not in nccl-tests: ExaDL's pingpong times one way (half the round trip)
     * of a message of `size` bytes, so busbw = algbw = size / one-way time
     * (OSU's bandwidth convention for one link): factor 1 */
    if (!strcmp(op, "pingpong")) return 1;
    /* not in nccl-tests: the compressed sign exchanges (docs/lioncub.md) take
     * the fp32 allreduce's factor, so that their busbw is the bandwidth an
     * fp32 allreduce of the same parameters would need (effective busbw) */
    if (!strcmp(op, "vote_1bit") || !strcmp(op, "sum_pbit")) return 2 * (p - 1) / p;
    return NAN;
}

static void test_registry(void)
{
    int n = 0;
    while (coll_ops[n]) n++;
    T_ASSERT(n == COLL_NOPS && n > 0, "coll_ops has %d entries, ops.def %d", n, (int)COLL_NOPS);
    char help[4096];
    int len = coll_ops_help(help, sizeof help, 4);
    T_ASSERT(len > 0 && (size_t)len < sizeof help, "help of %d chars", len);
    int lines = 0;
    for (const char *p = help; *p; p++) lines += *p == '\n';
    T_ASSERT(lines == n, "--op help has %d lines for %d operations", lines, n);
    for (int i = 0; i < n; i++) {
        const coll_op_t *op = coll_ops[i];
        T_ASSERT(op->name && *op->name, "operation %d has no name", i);
        T_ASSERT(strcspn(op->name, ", \t\n") == strlen(op->name) && strcmp(op->name, "all"),
                 "'%s' cannot be written in an --op list", op->name);
        T_ASSERT(op->summary && *op->summary && !strchr(op->summary, '\n'),
                 "%s: no one-line summary", op->name);
        T_ASSERT(op->shape && op->busbw_factor && op->in_region && op->in_value &&
                     op->out_region && op->out_value && op->inplace_ok && op->run,
                 "%s: a callback is missing", op->name);
        for (int j = 0; j < i; j++)
            T_ASSERT(strcmp(coll_ops[j]->name, op->name), "'%s' registered twice", op->name);
        T_ASSERT(coll_op_find(op->name) == op, "coll_op_find(%s)", op->name);
        /* its own help line: "    NAME<spaces>  SUMMARY" */
        char want[256];
        snprintf(want, sizeof want, "    %s ", op->name);
        const char *l = strstr(help, want);
        while (l && l != help && l[-1] != '\n') l = strstr(l + 1, want);
        T_ASSERT(l, "%s is not in the --op help:\n%s", op->name, help);
        const char *eol = strchr(l, '\n'), *s = strstr(l, op->summary);
        T_ASSERT(s && s < eol, "%s: its help line lacks the summary", op->name);
    }
    T_ASSERT(coll_op_find("gather") == NULL && coll_op_find("all") == NULL, "unknown op found");
    /* the operations the benchmark has always had are still there */
    const char *names[] = {"allreduce", "reduce_scatter", "allgather", "broadcast", "reduce",
                           "alltoall", "pingpong"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        T_ASSERT(coll_op_find(names[i]) && !strcmp(coll_op_find(names[i])->name, names[i]), "%s",
                 names[i]);
}

static int near(double a, double b) { return fabs(a - b) < 1e-12; }

static void test_factors(void)
{
    /* the definitions themselves, on numbers worked out by hand */
    T_ASSERT(near(expected_factor("allreduce", 1), 0.0) && near(expected_factor("allreduce", 2), 1.0) &&
                 near(expected_factor("allreduce", 4), 1.5) &&
                 near(expected_factor("allreduce", 3), 4.0 / 3),
             "allreduce 2(n-1)/n");
    T_ASSERT(near(expected_factor("allgather", 4), 0.75) &&
                 near(expected_factor("reduce_scatter", 3), 2.0 / 3) &&
                 near(expected_factor("alltoall", 8), 0.875),
             "(n-1)/n");
    T_ASSERT(expected_factor("broadcast", 6) == 1 && expected_factor("reduce", 6) == 1 &&
                 expected_factor("pingpong", 2) == 1,
             "1");
    /* and the registered operations on the same numbers */
    const struct {
        const char *op;
        int n;
        double want;
    } known[] = {{"vote_1bit", 2, 1.0},        {"sum_pbit", 4, 1.5},
                 {"allreduce", 1, 0.0},        {"allreduce", 2, 1.0},     {"allreduce", 4, 1.5},
                 {"allreduce", 3, 4.0 / 3},    {"allgather", 4, 0.75},    {"reduce_scatter", 3, 2.0 / 3},
                 {"alltoall", 8, 0.875},       {"broadcast", 6, 1.0},     {"reduce", 6, 1.0},
                 {"pingpong", 2, 1.0}};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        const coll_op_t *op = coll_op_find(known[i].op);
        T_ASSERT(op && near(op->busbw_factor(known[i].n), known[i].want), "%s n=%d", known[i].op,
                 known[i].n);
    }
    const int ns[] = {1, 2, 3, 4, 6, 8, 64, 1000};
    for (int i = 0; coll_ops[i]; i++) {
        const coll_op_t *op = coll_ops[i];
        T_ASSERT(!isnan(expected_factor(op->name, 2)),
                 "%s: no expected factor: write its nccl-tests definition into expected_factor()",
                 op->name);
        for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
            if ((op->flags & OP_P2P) && ns[k] < 2) continue;
            double got = op->busbw_factor(ns[k]), want = expected_factor(op->name, ns[k]);
            T_ASSERT(near(got, want), "%s n=%d: factor %.17g, nccl-tests %.17g", op->name, ns[k],
                     got, want);
        }
    }
}

/* ---- n ranks' buffers, and this file's reference ------------------------- */
typedef struct {
    int n;
    coll_ctx_t ctx[MAXR];
    void *send[MAXR], *recv[MAXR];
} sim_t;

/* what rank r must hold after the call: len values from offset off of
 * buffer buf (len 0: no output on this rank); -1 when unknown */
typedef struct {
    int buf;
    size_t off, len;
    double v[CHUNK * MAXR];
} expect_t;

static double in_of(const sim_t *s, const coll_op_t *op, int q, int inplace, size_t i)
{
    coll_region_t in = op->in_region(&s->ctx[q], inplace);
    void *base = inplace ? s->recv[q] : (in.buf == BUF_SEND ? s->send[q] : s->recv[q]);
    return coll_get(s->ctx[q].dtype, base, in.off + i);
}

static double red(coll_redop_t op, double a, double b)
{
    return op == RED_SUM ? a + b : op == RED_MIN ? (b < a ? b : a) : (b > a ? b : a);
}

/* The output of rank r from the inputs every rank's buffers hold (filled by
 * coll_fill), by each operation's definition; where it lands is the
 * backend's documented layout. */
static int reference(const sim_t *s, const coll_op_t *op, int inplace, int r, expect_t *e)
{
    int n = s->n;
    size_t c = CHUNK, cnt = (size_t)CHUNK * (size_t)n;
    coll_redop_t ro = s->ctx[0].redop;
    coll_backend_t bk = s->ctx[0].backend;
    int root = s->ctx[0].root;
    const char *name = op->name;
    e->buf = BUF_RECV;
    e->off = 0;
    e->len = cnt;
    if (!strcmp(name, "allreduce") || !strcmp(name, "reduce")) {
        if (!strcmp(name, "reduce") && r != root) e->len = 0;
        for (size_t j = 0; j < e->len; j++) {
            double v = in_of(s, op, 0, inplace, j);
            for (int q = 1; q < n; q++) v = red(ro, v, in_of(s, op, q, inplace, j));
            e->v[j] = v;
        }
    } else if (!strcmp(name, "reduce_scatter")) {
        e->len = c;
        if (inplace && bk == BK_NCCL) e->off = (size_t)r * c; /* MPI: chunk r at offset 0 */
        for (size_t j = 0; j < c; j++) {
            double v = in_of(s, op, 0, inplace, (size_t)r * c + j);
            for (int q = 1; q < n; q++) v = red(ro, v, in_of(s, op, q, inplace, (size_t)r * c + j));
            e->v[j] = v;
        }
    } else if (!strcmp(name, "allgather")) {
        for (int q = 0; q < n; q++)
            for (size_t j = 0; j < c; j++) e->v[(size_t)q * c + j] = in_of(s, op, q, inplace, j);
    } else if (!strcmp(name, "alltoall")) {
        for (int q = 0; q < n; q++)
            for (size_t j = 0; j < c; j++)
                e->v[(size_t)q * c + j] = in_of(s, op, q, inplace, (size_t)r * c + j);
    } else if (!strcmp(name, "broadcast")) {
        /* MPI has one buffer per rank: out of place the root's is its send buffer */
        if (r == root && !inplace && bk != BK_NCCL) e->buf = BUF_SEND;
        for (size_t j = 0; j < cnt; j++) e->v[j] = in_of(s, op, root, inplace, j);
    } else if (!strcmp(name, "vote_1bit") || !strcmp(name, "sum_pbit")) {
        /* every rank's sign, a 0 as its tie bit; the vote's ties by the vote's tie bit */
        uint64_t seed = s->ctx[0].pat->seed;
        for (size_t j = 0; j < cnt; j++) {
            int ones = 0;
            for (int q = 0; q < n; q++) {
                double v = in_of(s, op, q, inplace, j);
                ones += v > 0 ? 1 : v < 0 ? 0 : (int)((sp_tie_word(seed, (int64_t)(j / 64)) >> (j % 64)) & 1);
            }
            if (!strcmp(name, "sum_pbit"))
                e->v[j] = 2.0 * ones - n;
            else if (2 * ones != n)
                e->v[j] = 2 * ones > n ? 1.0 : -1.0;
            else
                e->v[j] = (sp_tie_word(sp_vote_seed(seed), (int64_t)(j / 64)) >> (j % 64)) & 1 ? 1.0 : -1.0;
        }
    } else if (!strcmp(name, "pingpong")) {
        if (r > 1) e->len = 0;
        for (size_t j = 0; j < e->len; j++) e->v[j] = in_of(s, op, 1 - r, inplace, j);
    } else {
        return -1;
    }
    return 0;
}

static void *expect_base(const expect_t *e, void *send, void *recv, int inplace)
{
    return inplace || e->buf == BUF_RECV ? recv : send;
}

/* the shape of the test size: CHUNK elements per rank and chunk */
static int test_shape(const coll_op_t *op, coll_dtype_t t, int n, coll_shape_t *sh, char *err,
                      size_t errlen)
{
    size_t es = coll_dtype_size(t);
    return op->shape(es * CHUNK * (size_t)n, es, n, sh, err, errlen);
}

static coll_redop_t redop_for(const coll_op_t *op, size_t variant)
{
    return (op->flags & OP_REDUCES) ? (coll_redop_t)(variant % RED_COUNT) : RED_SUM;
}

static const coll_dtype_t types[] = {DT_F32, DT_F16, DT_BF16, DT_I32, DT_F64};
enum { NTYPES = sizeof types / sizeof *types };

/* Host simulation of n ranks: the reference written where the backend puts
 * it, the op's check finds nothing wrong, and exactly the planted element. */
static void simulate(const coll_op_t *op, int n, coll_backend_t bk, int inplace, size_t ti)
{
    coll_dtype_t t = types[ti];
    coll_redop_t ro = redop_for(op, ti);
    coll_pattern_t pat;
    coll_pattern_init(&pat, t, ro, n, (op->flags & OP_REDUCES) && ro == RED_SUM, 11 + ti);
    coll_shape_t sh;
    char err[256];
    T_ASSERT(test_shape(op, t, n, &sh, err, sizeof err) == 0, "%s n=%d: %s", op->name, n, err);
    sim_t s = {.n = n};
    size_t cap = (size_t)CHUNK * MAXR * 8;
    for (int r = 0; r < n; r++) {
        coll_ctx_t c = {.backend = bk, .dtype = t, .redop = ro, .rank = r, .nranks = n,
                        .root = n - 1, .shape = sh, .pat = &pat};
        s.ctx[r] = c;
        s.send[r] = calloc(cap, 1);
        s.recv[r] = calloc(cap, 1);
        T_ASSERT(s.send[r] && s.recv[r], "calloc");
        coll_fill(&s.ctx[r], op, inplace, s.send[r], s.recv[r]);
    }
    expect_t e[MAXR];
    for (int r = 0; r < n; r++)
        T_ASSERT(reference(&s, op, inplace, r, &e[r]) == 0,
                 "%s: this test has no reference for it: add its definition to reference()",
                 op->name);
    const char *how = inplace ? "in-place" : "out-of-place";
    for (int r = 0; r < n; r++) {
        void *dst = expect_base(&e[r], s.send[r], s.recv[r], inplace);
        for (size_t j = 0; j < e[r].len; j++) coll_set(t, dst, e[r].off + j, e[r].v[j]);
    }
    for (int r = 0; r < n; r++) {
        coll_region_t o = op->out_region(&s.ctx[r], inplace);
        T_ASSERT(o.n == e[r].len, "%s %s %s rank %d: output of %zu elements, reference %zu",
                 op->name, coll_backend_names[bk], how, r, o.n, e[r].len);
        size_t w = coll_check(&s.ctx[r], op, inplace, s.send[r], s.recv[r], 2);
        T_ASSERT(w == 0, "%s %s %s %s n=%d rank %d: %zu wrong", op->name, coll_dtype_names[t],
                 coll_backend_names[bk], how, n, r, w);
        coll_plant(&s.ctx[r], op, inplace, s.send[r], s.recv[r], 5);
        w = coll_check(&s.ctx[r], op, inplace, s.send[r], s.recv[r], 0);
        T_ASSERT(w == (o.n ? 1u : 0u), "%s %s %s n=%d rank %d: planted, %zu wrong", op->name,
                 coll_dtype_names[t], how, n, r, w);
        free(s.send[r]);
        free(s.recv[r]);
    }
    coll_pattern_free(&pat);
}

static void test_simulated(void)
{
    for (int i = 0; coll_ops[i]; i++)
        for (int n = 2; n <= 4; n++)
            for (size_t ti = 0; ti < NTYPES; ti++)
                for (int bk = BK_MPI; bk <= BK_NCCL; bk += BK_NCCL - BK_MPI)
                    for (int inplace = 0; inplace < 2; inplace++)
                        if (!inplace || coll_ops[i]->inplace_ok((coll_backend_t)bk))
                            simulate(coll_ops[i], n, (coll_backend_t)bk, inplace, ti);
}

/* One real call over MPI_COMM_WORLD on host buffers; every rank compares its
 * output with the reference computed from all ranks' inputs (filled here, as
 * each rank fills its own), then the op's check, then a plant. */
static int run_real(const coll_op_t *op, size_t ti, int inplace, char *why, size_t whylen)
{
    int n = g_c.size, me = g_c.rank;
    coll_dtype_t t = types[ti];
    coll_redop_t ro = redop_for(op, ti);
    coll_pattern_t pat;
    coll_pattern_init(&pat, t, ro, n, (op->flags & OP_REDUCES) && ro == RED_SUM, 23 + ti);
    coll_shape_t sh;
    char err[256];
    if (test_shape(op, t, n, &sh, err, sizeof err)) {
        coll_pattern_free(&pat);
        snprintf(why, whylen, "%s", err);
        return -1;
    }
    size_t cap = (size_t)CHUNK * MAXR * 8;
    sim_t s = {.n = n};
    for (int r = 0; r < n; r++) {
        coll_ctx_t c = {.backend = BK_MPI, .dtype = t, .redop = ro, .rank = r, .nranks = n,
                        .root = n - 1, .shape = sh, .pat = &pat, .comm = g_c.world,
                        .mpi_type = coll_mpi_type(t),
                        .mpi_op = (op->flags & OP_REDUCES) ? coll_mpi_op(t, ro) : MPI_OP_NULL};
        s.ctx[r] = c;
        s.send[r] = calloc(cap, 1);
        s.recv[r] = calloc(cap, 1);
        if (!s.send[r] || !s.recv[r]) abort();
        coll_fill(&s.ctx[r], op, inplace, s.send[r], s.recv[r]);
    }
    expect_t e;
    int bad = reference(&s, op, inplace, me, &e) ? 1 : 0;
    if (bad) snprintf(why, whylen, "no reference for %s in this test", op->name);
    void *send = s.send[me], *recv = s.recv[me];
    /* what coll_measure passes: in place, both are the one buffer */
    if (op->run(&s.ctx[me], inplace, inplace ? recv : send, recv, err, sizeof err)) {
        bad = 1;
        snprintf(why, whylen, "%s", err);
    }
    size_t mism = 0;
    void *dst = expect_base(&e, send, recv, inplace);
    for (size_t j = 0; !bad && j < e.len; j++)
        if (coll_get(t, dst, e.off + j) != e.v[j]) {
            if (!mism++)
                snprintf(why, whylen, "rank %d element %zu: got %.17g, reference %.17g", me,
                         e.off + j, coll_get(t, dst, e.off + j), e.v[j]);
        }
    size_t w = bad ? 0 : coll_check(&s.ctx[me], op, inplace, send, recv, 2);
    coll_region_t o = op->out_region(&s.ctx[me], inplace);
    if (!bad && (mism || w)) {
        bad = 1;
        if (!mism) snprintf(why, whylen, "rank %d: the op's check found %zu wrong", me, w);
    }
    if (!bad) {
        coll_plant(&s.ctx[me], op, inplace, send, recv, 3);
        w = coll_check(&s.ctx[me], op, inplace, send, recv, 0);
        if (w != (o.n ? 1u : 0u)) {
            bad = 1;
            snprintf(why, whylen, "rank %d: planted, %zu wrong", me, w);
        }
    }
    for (int r = 0; r < n; r++) {
        free(s.send[r]);
        free(s.recv[r]);
    }
    coll_pattern_free(&pat);
    return bad;
}

static void test_real_calls(void)
{
    int runs = 0;
    for (int i = 0; coll_ops[i]; i++) {
        const coll_op_t *op = coll_ops[i];
        coll_shape_t sh;
        char err[256];
        if ((op->flags & OP_P2P) && g_c.size < 2) {
            /* the shape says why, and the benchmark stops with that line */
            T_ALL(test_shape(op, DT_F32, g_c.size, &sh, err, sizeof err) == -1, "%s on %d rank",
                  op->name, g_c.size);
            continue;
        }
        for (size_t ti = 0; ti < NTYPES; ti++)
            for (int inplace = 0; inplace < 2; inplace++) {
                if (inplace && !op->inplace_ok(BK_MPI)) continue;
                char why[256] = "";
                int bad = run_real(op, ti, inplace, why, sizeof why);
                T_ALL(!bad, "%s %s %s over %d rank%s: %s", op->name, coll_dtype_names[types[ti]],
                      inplace ? "in-place" : "out-of-place", g_c.size, g_c.size == 1 ? "" : "s",
                      why);
                runs++;
            }
    }
    T_ALL(runs > 0, "nothing ran");
}

int main(int argc, char **argv)
{
    comm_init(&argc, &argv, &g_c);
    if (g_c.size > MAXR) {
        if (g_c.rank == 0) printf("SKIP: test_coll_ops: more than %d ranks\n", MAXR);
        comm_finalize(&g_c);
        return 0;
    }
    if (g_c.rank != 0 && !freopen("/dev/null", "w", stdout)) return 1;
    T_RUN(test_registry);
    T_RUN(test_factors);
    T_RUN(test_simulated);
    T_RUN(test_real_calls);
    coll_mpi_ops_free();
    comm_finalize(&g_c);
    T_DONE();
}
