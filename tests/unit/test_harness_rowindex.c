/* rowindex: `exadl check` finds a check's rows through an index (issue 30
 * D8: 20,000 checks x 100,000 rows took 75 s when each check scanned every
 * row).  The index must find every row where.c would match (values in any
 * notation, sizes, truth words), the largest scale and the launch count as
 * the scan did, and the time must grow linearly with checks + rows. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/checks/refcheck.h"
#include "harness/checks/rowindex.h"
#include "harness/checks/where.h"
#include "tests/unit/doubling.h"
#include "tests/unit/tap.h"

/* every pair where.c calls the same, the index may match (a change to
 * where_value_same that this fails on needs the same change in rowindex.c) */
static void test_index_keys_cover_where(void)
{
    static const char *const v[] = {
        "1", "1.0", "1e0", "+1", "0", "-0", "0.0", "2.5", "yes", "Yes", "true", "TRUE", "on",
        "no", "false", "off", "Off", "1M", "1048576", "1048576.0", "64K", "65536", "1k", "1024",
        "nan", "NaN", "inf", "-inf", "abc", "ABC", "", "1 ", " 1", "0x10", "16", "1e6",
        "1000000", "1G", "allreduce", "float32", NULL};
    for (size_t i = 0; v[i]; i++)
        for (size_t j = 0; v[j]; j++)
            T_ASSERT(!where_value_same(v[i], v[j]) || rowindex_may_match(v[i], v[j]),
                     "where.c matches recorded '%s' to wanted '%s', the index would not", v[i],
                     v[j]);
}

static void row(arena_t *a, mtable_t *t, const char *bench, int scale, const char *metric,
                double value, const char *op, const char *bytes)
{
    metric_t m = {.bench = bench, .program = "/opt/bin/collectives", .kind = "collectives",
                  .scale = scale, .metric = metric, .value = value, .lo = NAN, .hi = NAN,
                  .n = NAN, .unit = "GB/s"};
    if (op) {
        m.params = ar_alloc(a, 2 * sizeof *m.params);
        m.params[m.nparams++] = (kv_t){"op", op};
        if (bytes) m.params[m.nparams++] = (kv_t){"bytes", bytes};
    }
    mtable_add(a, t, &m);
}

static refspec_t spec(arena_t *a, const char *metric, double value, const char *bench,
                      const char *op, const char *bytes, const char *scale)
{
    refspec_t s = {.metric = metric, .value = value, .lower = -0.01, .upper = 0.01};
    s.where = ar_alloc(a, 4 * sizeof *s.where);
    if (bench) s.where[s.nwhere++] = (kv_t){"benchmark", bench};
    if (op) s.where[s.nwhere++] = (kv_t){"op", op};
    if (bytes) s.where[s.nwhere++] = (kv_t){"bytes", bytes};
    if (scale) s.where[s.nwhere++] = (kv_t){"scale", scale};
    return s;
}

/* the same answers as the scan gave: notations, largest and smallest scale,
 * the launch count of the row's benchmark and scale */
static void test_index_finds_rows(void)
{
    arena_t *a = ar_new();
    mtable_t t = {0};
    for (int sc = 1; sc <= 4; sc *= 2) {
        row(a, &t, "coll", sc, "busbw_GBps", 10.0 * sc, "allreduce", "1048576");
        row(a, &t, "coll", sc, "busbw_GBps", 5.0 * sc, "broadcast", "1048576");
        row(a, &t, "coll", sc, "launches_ok", 7, NULL, NULL);
        row(a, &t, "coll", sc, "launches_ok", 3 + sc, NULL, NULL); /* the last one counts */
        row(a, &t, "other", sc, "busbw_GBps", 99, "allreduce", "1048576");
    }
    refspec_t c[] = {
        spec(a, "busbw_GBps", 40, "coll", "allreduce", "1M", "largest"),
        spec(a, "busbw_GBps", 5, "collectives", "broadcast", "1048576.0", "smallest"),
        spec(a, "busbw_GBps", 20, "coll", "allreduce", "1e6", "2"), /* 1e6 is not 1 MiB */
        spec(a, "busbw_GBps", 99, "other", NULL, NULL, "largest"),
    };
    reference_t r = {.name = "r", .kind = "acceptance", .c = c, .n = 4};
    checks_t out = {0};
    reference_evaluate(a, &r, &t, NULL, &out);
    T_ASSERT(out.n == 4, "%zu checks out, 4 expected", out.n);
    T_ASSERT(out.c[0].outcome == CK_PASS && out.c[0].scale == 4 && out.c[0].launches == 7,
             "largest allreduce 1M: %s at n=%d, %d launches", ck_name(out.c[0].outcome),
             out.c[0].scale, out.c[0].launches);
    T_ASSERT(out.c[1].outcome == CK_PASS && out.c[1].scale == 1 && out.c[1].launches == 4,
             "smallest broadcast by record kind: %s at n=%d, %d launches",
             ck_name(out.c[1].outcome), out.c[1].scale, out.c[1].launches);
    /* nothing matches: a reference error (a where that selects nothing that ran) */
    T_ASSERT(out.c[2].outcome == CK_ERROR && isnan(out.c[2].measured), "1e6 bytes matched a row (%s)",
             ck_name(out.c[2].outcome));
    T_ASSERT(out.c[3].outcome == CK_PASS && out.c[3].scale == 4, "benchmark other, largest");
    ar_free(a);
}

/* n rows (n/4 sizes x 2 operations x 2 scales), n/5 checks on them */
static void check_many(void *ctx, size_t n)
{
    (void)ctx;
    arena_t *a = ar_new();
    mtable_t t = {0};
    char **bytes = ar_alloc(a, (n / 4 + 1) * sizeof *bytes);
    for (size_t i = 0; i < n / 4; i++) {
        bytes[i] = ar_printf(a, "%zu", 8 * (i + 1));
        for (int sc = 1; sc <= 2; sc++) {
            row(a, &t, "coll", sc, "busbw_GBps", (double)i, "allreduce", bytes[i]);
            row(a, &t, "coll", sc, "busbw_GBps", (double)i, "broadcast", bytes[i]);
        }
    }
    row(a, &t, "coll", 2, "launches_ok", 3, NULL, NULL);
    size_t nc = n / 5;
    refspec_t *c = ar_alloc(a, (nc + 1) * sizeof *c);
    for (size_t i = 0; i < nc; i++)
        c[i] = spec(a, "busbw_GBps", (double)(i % (n / 4)), "coll", i % 2 ? "allreduce" : "broadcast",
                    bytes[i % (n / 4)], "largest");
    reference_t r = {.name = "r", .kind = "acceptance", .c = c, .n = nc};
    checks_t out = {0};
    reference_evaluate(a, &r, &t, NULL, &out);
    int pass, fail, na;
    checks_count(&out, &pass, &fail, &na);
    ar_free(a);
    T_ASSERT(pass == (int)nc && fail == 0, "%zu rows, %zu checks: %d pass, %d fail", n, nc, pass,
             fail);
}

static void test_check_linear(void)
{
    DOUBLING_CHECK(check_many, NULL, DOUBLING_N(50000, 8), "rows (and n/5 checks)");
}

/* checks whose where value no row records: where_diagnose names the key's
 * values the run has.  That list was a scan per row (O(rows x values)): 100
 * such checks on 20,000 rows took 71 s; then a scan of the table per
 * unmatched check (O(checks x rows)); now the facts are read once per
 * reference (where_facts_build) and each unmatched check costs a lookup, so
 * doubling both rows and checks doubles the time */
static void check_unmatched(void *ctx, size_t n)
{
    (void)ctx;
    arena_t *a = ar_new();
    mtable_t t = {0};
    for (size_t i = 0; i < n; i++)
        row(a, &t, "coll", 1, "busbw_GBps", 1, "allreduce", ar_printf(a, "%zu", 8 * (i + 1)));
    size_t nc = n / 10 < 40 ? 40 : n / 10;
    refspec_t *c = ar_alloc(a, nc * sizeof *c);
    for (size_t i = 0; i < nc; i++) /* odd sizes: no row records any of them */
        c[i] = spec(a, "busbw_GBps", 1, "coll", "allreduce", ar_printf(a, "%zu", 2 * i + 3), NULL);
    reference_t r = {.name = "r", .kind = "acceptance", .c = c, .n = nc};
    checks_t out = {0};
    reference_evaluate(a, &r, &t, NULL, &out);
    int named = out.n == nc && out.c[nc - 1].detail && strstr(out.c[9].detail, "in all)") &&
                out.c[nc - 1].outcome == CK_ERROR;
    const char *why = out.n ? out.c[0].detail : "(no check)";
    ar_free(a);
    T_ASSERT(named, "an unmatched bytes=3 is not diagnosed with the values recorded: %s",
             why ? why : "(none)");
}

static void test_unmatched_linear(void)
{
    DOUBLING_CHECK(check_unmatched, NULL, DOUBLING_N(20000, 8), "rows (and n/10 unmatched checks)");
}

int main(void)
{
    T_RUN(test_index_keys_cover_where);
    T_RUN(test_index_finds_rows);
    T_RUN(test_check_linear);
    T_RUN(test_unmatched_linear);
    T_DONE();
}
