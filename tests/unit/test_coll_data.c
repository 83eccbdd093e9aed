/* Collectives: element types, sizes, bandwidth factors, shapes, the exact data
 * pattern, and every operation's layout checked against an independent
 * reference simulation of n ranks (no MPI calls: this runs on the host). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/collectives/bench.h"
#include "benchmarks/collectives/coll.h"
#include "benchmarks/orchestration/tensors.h"
#include "tests/unit/tap.h"

static void test_f16_known_values(void)
{
    T_ASSERT(coll_f32_to_f16(1.0f) == 0x3c00, "1.0 -> %04x", coll_f32_to_f16(1.0f));
    T_ASSERT(coll_f32_to_f16(-2.0f) == 0xc000, "-2.0");
    T_ASSERT(coll_f32_to_f16(65504.0f) == 0x7bff, "max half");
    T_ASSERT(coll_f32_to_f16(65520.0f) == 0x7c00, "65520 rounds to inf");
    T_ASSERT(coll_f32_to_f16(65519.0f) == 0x7bff, "65519 rounds down");
    T_ASSERT(coll_f32_to_f16(ldexpf(1, -24)) == 0x0001, "smallest subnormal");
    T_ASSERT(coll_f32_to_f16(ldexpf(1, -25)) == 0x0000, "half of it ties to even (0)");
    T_ASSERT(coll_f32_to_f16(ldexpf(3, -26)) == 0x0001, "0.75 ulp rounds up");
    T_ASSERT(coll_f32_to_f16(0.1f) == 0x2e66, "0.1 -> %04x", coll_f32_to_f16(0.1f));
    T_ASSERT(coll_f32_to_f16(2049.0f) == 0x6800, "2049 ties to even 2048");
    T_ASSERT(coll_f32_to_f16(2051.0f) == 0x6802, "2051 ties to even 2052");
    T_ASSERT(isnan(coll_f16_to_f32(coll_f32_to_f16(NAN))), "NaN stays NaN");
    T_ASSERT(coll_f32_to_bf16(1.0f) == 0x3f80, "bf16 1.0");
    T_ASSERT(coll_f32_to_bf16(257.0f) == 0x4380, "bf16 257 ties to even 256");
    T_ASSERT(coll_f32_to_bf16(259.0f) == 0x4382, "bf16 259 ties to even 260");
    T_ASSERT(isnan(coll_bf16_to_f32(coll_f32_to_bf16(NAN))), "bf16 NaN stays NaN");
}

static void test_16bit_round_trips(void)
{
    for (uint32_t h = 0; h < 65536; h++) {
        float f = coll_f16_to_f32((uint16_t)h);
        if (isnan(f)) continue;
        T_ASSERT(coll_f32_to_f16(f) == h, "f16 %04x -> %g -> %04x", h, f, coll_f32_to_f16(f));
        float b = coll_bf16_to_f32((uint16_t)h);
        if (isnan(b)) continue;
        T_ASSERT(coll_f32_to_bf16(b) == h, "bf16 %04x -> %g", h, b);
    }
}

static void test_parse_sizes(void)
{
    struct { const char *s; size_t v; } ok[] = {
        {"4", 4}, {"64K", 65536}, {"16M", 16u << 20}, {"1G", 1u << 30}, {"2KiB", 2048},
        {"8B", 8}, {"3m", 3u << 20}, {"1kb", 1024}};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        size_t v = 0;
        T_ASSERT(coll_parse_size(ok[i].s, &v) == 0 && v == ok[i].v, "'%s' -> %zu", ok[i].s, v);
    }
    const char *bad[] = {"", "K", "4X", "-1", "1.5M", "4 K", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        size_t v;
        T_ASSERT(coll_parse_size(bad[i], &v) != 0, "'%s' accepted", bad[i]);
    }
}

static int near(double a, double b) { return fabs(a - b) < 1e-12; }

static void test_busbw_factors(void)
{
    /* nccl-tests: allreduce 2(n-1)/n; allgather, reduce_scatter, alltoall
     * (n-1)/n; broadcast, reduce 1; pingpong 1 */
    T_ASSERT(near(coll_op_allreduce.busbw_factor(1), 0.0), "allreduce n=1");
    T_ASSERT(near(coll_op_allreduce.busbw_factor(2), 1.0), "allreduce n=2");
    T_ASSERT(near(coll_op_allreduce.busbw_factor(4), 1.5), "allreduce n=4");
    T_ASSERT(near(coll_op_allreduce.busbw_factor(3), 4.0 / 3), "allreduce n=3");
    T_ASSERT(near(coll_op_allgather.busbw_factor(4), 0.75), "allgather n=4");
    T_ASSERT(near(coll_op_reduce_scatter.busbw_factor(3), 2.0 / 3), "reduce_scatter n=3");
    T_ASSERT(near(coll_op_alltoall.busbw_factor(8), 0.875), "alltoall n=8");
    T_ASSERT(near(coll_op_broadcast.busbw_factor(6), 1.0), "broadcast");
    T_ASSERT(near(coll_op_reduce.busbw_factor(6), 1.0), "reduce");
    T_ASSERT(near(coll_op_pingpong.busbw_factor(2), 1.0), "pingpong");
}

static void test_shapes(void)
{
    coll_shape_t s;
    char err[256];
    T_ASSERT(coll_op_allgather.shape(12, 4, 3, &s, err, sizeof err) == 0, "%s", err);
    T_ASSERT(s.chunk == 1 && s.count == 3 && s.send_count == 1 && s.recv_count == 3 && s.bytes == 12,
             "allgather 12 B / 3 ranks");
    T_ASSERT(coll_op_allgather.shape(16, 4, 3, &s, err, sizeof err) == 0 && s.bytes == 12,
             "16 B rounds down to 12 B");
    T_ASSERT(coll_op_reduce_scatter.shape(24, 4, 3, &s, err, sizeof err) == 0 &&
                 s.send_count == 6 && s.recv_count == 2, "reduce_scatter 24 B / 3 ranks");
    T_ASSERT(coll_op_alltoall.shape(24, 4, 3, &s, err, sizeof err) == 0 &&
                 s.send_count == 6 && s.recv_count == 6 && s.chunk == 2, "alltoall 24 B / 3 ranks");
    const coll_op_t *split[] = {&coll_op_allgather, &coll_op_reduce_scatter, &coll_op_alltoall};
    for (int i = 0; i < 3; i++) {
        err[0] = 0;
        T_ASSERT(split[i]->shape(8, 4, 3, &s, err, sizeof err) == -1, "%s: 8 B over 3 ranks",
                 split[i]->name);
        T_ASSERT(strstr(err, "cannot be split over 3 ranks") && strstr(err, split[i]->name),
                 "message: %s", err);
    }
    T_ASSERT(coll_op_allreduce.shape(2, 4, 2, &s, err, sizeof err) == -1 &&
                 strstr(err, "less than one element"), "2 B of float32: %s", err);
    T_ASSERT(coll_op_pingpong.shape(8, 4, 1, &s, err, sizeof err) == -1 &&
                 strstr(err, "at least 2 ranks"), "pingpong on 1 rank: %s", err);
    T_ASSERT(coll_op_allreduce.shape(1000, 8, 5, &s, err, sizeof err) == 0 && s.count == 125 &&
                 s.chunk == 125 && s.bytes == 1000, "allreduce whole");
}

/* Every value exact, and a sum in the type itself (rounded after every add)
 * equal to the closed form, in two orders: the pattern's promise. */
static void test_pattern_exact(void)
{
    const int ranks[] = {1, 2, 3, 7, 64, 300, 5000};
    for (int t = 0; t < DT_COUNT; t++) {
        for (size_t k = 0; k < sizeof ranks / sizeof *ranks; k++) {
            int n = ranks[k];
            for (int op = 0; op < RED_COUNT; op++) {
                coll_pattern_t p;
                coll_pattern_init(&p, (coll_dtype_t)t, (coll_redop_t)op, n, op == RED_SUM, 7);
                T_ASSERT(p.a >= 1, "%s n=%d: no range left", coll_dtype_names[t], n);
                double buf[2];
                for (size_t i = 0; i < 40; i++) {
                    double fwd = 0, bwd = 0;
                    int first = 1;
                    for (int r = 0; r < n; r++) {
                        double v = coll_pattern_value(&p, r, i), w = coll_pattern_value(&p, n - 1 - r, i);
                        coll_set((coll_dtype_t)t, buf, 0, v);
                        T_ASSERT(coll_get((coll_dtype_t)t, buf, 0) == v, "%s: %g not exact",
                                 coll_dtype_names[t], v);
                        if (op == RED_SUM) {
                            coll_set((coll_dtype_t)t, buf, 0, fwd + v);
                            fwd = coll_get((coll_dtype_t)t, buf, 0);
                            coll_set((coll_dtype_t)t, buf, 1, bwd + w);
                            bwd = coll_get((coll_dtype_t)t, buf, 1);
                        } else if (op == RED_MIN) {
                            fwd = first || v < fwd ? v : fwd;
                        } else {
                            fwd = first || v > fwd ? v : fwd;
                        }
                        first = 0;
                    }
                    if (op != RED_SUM) bwd = fwd;
                    double want = coll_pattern_reduced(&p, i);
                    T_ASSERT(fwd == want && bwd == want, "%s %s n=%d element %zu: %g / %g, want %g",
                             coll_dtype_names[t], coll_redop_names[op], n, i, fwd, bwd, want);
                }
                coll_pattern_free(&p);
            }
        }
    }
}

/* ---- a host simulation of n ranks for every operation ----------------------
 * The reference computes each rank's output from all ranks' inputs with plain
 * loops written here, independently of the op files' out_value; the op files'
 * check must then find 0 wrong, and exactly 1 after a planted element. */
enum { NR = 3, CHUNK = 4 };

typedef struct {
    coll_ctx_t ctx[NR];
    void *send[NR], *recv[NR];
} sim_t;

static double in_of(const sim_t *s, const coll_op_t *op, int r, int inplace, size_t i)
{
    coll_region_t in = op->in_region(&s->ctx[r], inplace);
    void *base = inplace ? s->recv[r] : (in.buf == BUF_SEND ? s->send[r] : s->recv[r]);
    return coll_get(s->ctx[r].dtype, base, in.off + i);
}

static double red(coll_redop_t op, double a, double b)
{
    return op == RED_SUM ? a + b : op == RED_MIN ? (b < a ? b : a) : (b > a ? b : a);
}

/* the reference: write each rank's expected output where the backend puts it */
static void reference(sim_t *s, const coll_op_t *op, int inplace, coll_backend_t bk)
{
    size_t c = CHUNK, cnt = (size_t)CHUNK * NR;
    coll_dtype_t t = s->ctx[0].dtype;
    coll_redop_t ro = s->ctx[0].redop;
    int root = s->ctx[0].root;
    double out[NR][CHUNK * NR];
    for (int r = 0; r < NR; r++) {
        const char *n = op->name;
        for (size_t j = 0; j < cnt; j++) out[r][j] = NAN;
        if (!strcmp(n, "allreduce") || !strcmp(n, "reduce")) {
            for (size_t j = 0; j < cnt; j++) {
                double v = in_of(s, op, 0, inplace, j);
                for (int q = 1; q < NR; q++) v = red(ro, v, in_of(s, op, q, inplace, j));
                out[r][j] = v;
            }
        } else if (!strcmp(n, "reduce_scatter")) {
            for (size_t j = 0; j < c; j++) {
                double v = in_of(s, op, 0, inplace, (size_t)r * c + j);
                for (int q = 1; q < NR; q++) v = red(ro, v, in_of(s, op, q, inplace, (size_t)r * c + j));
                out[r][j] = v;
            }
        } else if (!strcmp(n, "allgather")) {
            for (int q = 0; q < NR; q++)
                for (size_t j = 0; j < c; j++) out[r][(size_t)q * c + j] = in_of(s, op, q, inplace, j);
        } else if (!strcmp(n, "alltoall")) {
            for (int q = 0; q < NR; q++)
                for (size_t j = 0; j < c; j++)
                    out[r][(size_t)q * c + j] = in_of(s, op, q, inplace, (size_t)r * c + j);
        } else if (!strcmp(n, "broadcast")) {
            for (size_t j = 0; j < cnt; j++) out[r][j] = in_of(s, op, root, inplace, j);
        } else if (!strcmp(n, "pingpong")) {
            if (r < 2)
                for (size_t j = 0; j < cnt; j++) out[r][j] = in_of(s, op, 1 - r, inplace, j);
        }
    }
    for (int r = 0; r < NR; r++) {
        const char *n = op->name;
        if (!strcmp(n, "reduce") && r != root) continue;
        if (!strcmp(n, "pingpong") && r > 1) continue;
        size_t len = !strcmp(n, "reduce_scatter") ? c : cnt, off = 0;
        void *dst = s->recv[r];
        if (!strcmp(n, "reduce_scatter") && inplace && bk == BK_NCCL) off = (size_t)r * c;
        if (!strcmp(n, "broadcast") && r == root && !inplace && bk != BK_NCCL) dst = s->send[r];
        for (size_t j = 0; j < len; j++) coll_set(t, dst, off + j, out[r][j]);
    }
}

static void test_every_op_layout_and_plant(void)
{
    const coll_op_t *ops[] = {&coll_op_allreduce, &coll_op_reduce_scatter, &coll_op_allgather,
                              &coll_op_broadcast, &coll_op_reduce, &coll_op_alltoall,
                              &coll_op_pingpong};
    const coll_dtype_t types[] = {DT_F32, DT_F16, DT_BF16, DT_I32, DT_F64};
    for (size_t oi = 0; oi < sizeof ops / sizeof *ops; oi++) {
        const coll_op_t *op = ops[oi];
        for (size_t ti = 0; ti < sizeof types / sizeof *types; ti++)
            for (int bk = BK_MPI; bk <= BK_NCCL; bk += BK_NCCL - BK_MPI)
                for (int inplace = 0; inplace < 2; inplace++) {
                    if (inplace && !op->inplace_ok((coll_backend_t)bk)) continue;
                    coll_dtype_t t = types[ti];
                    coll_redop_t ro = (op->flags & OP_REDUCES) ? (coll_redop_t)(ti % RED_COUNT) : RED_SUM;
                    coll_pattern_t pat;
                    coll_pattern_init(&pat, t, ro, NR, (op->flags & OP_REDUCES) && ro == RED_SUM, 11);
                    coll_shape_t sh;
                    char err[256];
                    size_t es = coll_dtype_size(t);
                    size_t bytes = (op->flags & OP_SPLITS) ? es * CHUNK * NR : es * CHUNK * NR;
                    T_ASSERT(op->shape(bytes, es, NR, &sh, err, sizeof err) == 0, "%s", err);
                    sim_t s;
                    size_t cap = (size_t)CHUNK * NR * 8;
                    for (int r = 0; r < NR; r++) {
                        coll_ctx_t c = {.backend = (coll_backend_t)bk, .dtype = t, .redop = ro,
                                        .rank = r, .nranks = NR, .root = 2, .shape = sh, .pat = &pat};
                        s.ctx[r] = c;
                        s.send[r] = calloc(cap, 1);
                        s.recv[r] = calloc(cap, 1);
                        coll_fill(&s.ctx[r], op, inplace, s.send[r], s.recv[r]);
                    }
                    reference(&s, op, inplace, (coll_backend_t)bk);
                    for (int r = 0; r < NR; r++) {
                        size_t w = coll_check(&s.ctx[r], op, inplace, s.send[r], s.recv[r], 2);
                        T_ASSERT(w == 0, "%s %s %s %s rank %d: %zu wrong", op->name, coll_dtype_names[t],
                                 coll_backend_names[bk], inplace ? "in-place" : "out-of-place", r, w);
                        coll_region_t o = op->out_region(&s.ctx[r], inplace);
                        coll_plant(&s.ctx[r], op, inplace, s.send[r], s.recv[r], 5);
                        w = coll_check(&s.ctx[r], op, inplace, s.send[r], s.recv[r], 0);
                        T_ASSERT(w == (o.n ? 1u : 0u), "%s %s rank %d: planted, %zu wrong",
                                 op->name, coll_dtype_names[t], r, w);
                        free(s.send[r]);
                        free(s.recv[r]);
                    }
                    coll_pattern_free(&pat);
                }
    }
}

static void test_adaptive_iterations(void)
{
    T_ASSERT(coll_default_iters(8192) == 1000 && coll_default_warmup(8192) == 100, "8 KiB is small");
    T_ASSERT(coll_default_iters(8193) == 100 && coll_default_warmup(8193) == 10, "above 8 KiB");
}

static void test_op_registry(void)
{
    const char *names[] = {"allreduce", "reduce_scatter", "allgather", "broadcast", "reduce",
                           "alltoall", "pingpong"};
    for (size_t i = 0; i < 7; i++)
        T_ASSERT(coll_op_find(names[i]) && !strcmp(coll_op_find(names[i])->name, names[i]), "%s",
                 names[i]);
    T_ASSERT(coll_op_find("gather") == NULL, "unknown op found");
}

/* the orchestration's default tensor list is the gb2019 network of DESIGN.md:
 * REFERENCES.md gives its conv weights, 220,398,848 */
static void test_gb2019_tensors(void)
{
    coll_tensor_t *t;
    int layers, n = coll_gb2019_tensors(&t, &layers);
    long long w = 0, b = 0;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(t[i].name);
        if (t[i].name[len - 1] == 'w') w += t[i].elements; else b += t[i].elements;
        T_ASSERT(i == 0 || t[i].layer >= t[i - 1].layer, "layers in forward order");
    }
    T_ASSERT(w == 220398848LL, "conv weights %lld", w);
    T_ASSERT(b == 257, "biases %lld (CONV_INIT 256 + CONV_FIN 1)", b);
    T_ASSERT(n == 27 && layers == 25, "%d tensors in %d layers", n, layers);
    free(t);
    n = coll_synthetic_tensors(&t, 5, 100, &layers);
    T_ASSERT(n == 5 && layers == 3 && t[4].layer == 2 && t[4].elements == 100, "synthetic");
    free(t);
}

int main(void)
{
    T_RUN(test_f16_known_values);
    T_RUN(test_16bit_round_trips);
    T_RUN(test_parse_sizes);
    T_RUN(test_busbw_factors);
    T_RUN(test_shapes);
    T_RUN(test_pattern_exact);
    T_RUN(test_every_op_layout_and_plant);
    T_RUN(test_adaptive_iterations);
    T_RUN(test_op_registry);
    T_RUN(test_gb2019_tensors);
    T_DONE();
}
