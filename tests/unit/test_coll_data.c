/* Collectives: element types, sizes, shapes and the exact data pattern (no
 * MPI calls: this runs on the host).  What every registered operation must
 * do (factor, layout, validation, planted errors) is test_coll_ops.c. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/collectives/bench.h"
#include "benchmarks/collectives/coll.h"
#include "benchmarks/common/opt.h"
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
        T_ASSERT(opt_parse_size(ok[i].s, &v) == 0 && v == ok[i].v, "'%s' -> %zu", ok[i].s, v);
    }
    const char *bad[] = {"", "K", "4X", "-1", "1.5M", "4 K", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        size_t v;
        T_ASSERT(opt_parse_size(bad[i], &v) != 0, "'%s' accepted", bad[i]);
    }
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

static void test_adaptive_iterations(void)
{
    T_ASSERT(coll_default_iters(8192) == 1000 && coll_default_warmup(8192) == 100, "8 KiB is small");
    T_ASSERT(coll_default_iters(8193) == 100 && coll_default_warmup(8193) == 10, "above 8 KiB");
}

int main(void)
{
    T_RUN(test_f16_known_values);
    T_RUN(test_16bit_round_trips);
    T_RUN(test_parse_sizes);
    T_RUN(test_shapes);
    T_RUN(test_pattern_exact);
    T_RUN(test_adaptive_iterations);
    T_DONE();
}
